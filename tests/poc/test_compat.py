"""Finding the openai release an SDK version works with: version arithmetic and the search."""

from __future__ import annotations

from poc.compat import allows, newest_working, parse_pip_index, release

RELEASES = (
    [f"3.{minor}.0" for minor in range(58)] + [f"2.{minor}.0" for minor in range(55)] + ["1.109.1", "1.0.0"]
)


def test_release_parses_plain_versions_only() -> None:
    assert release("3.57.0") == (3, 57, 0)
    assert release("1.0.0rc1") is None


def test_parse_pip_index_reads_the_available_versions_line() -> None:
    output = "openai (3.57.0)\nAvailable versions: 3.57.0, 3.56.0, 2.54.0\n  INSTALLED: 3.57.0\n"

    assert parse_pip_index(output) == ["3.57.0", "3.56.0", "2.54.0"]


def test_allows_reads_declared_ranges() -> None:
    assert allows("<3,>=2.45.0", "2.54.0")
    assert not allows("<3,>=2.45.0", "3.0.0")
    assert not allows("<3,>=2.45.0", "2.44.0")
    assert allows("~=2.45", "2.60.1") and not allows("~=2.45", "3.0.0")
    assert allows("", "3.57.0")


def test_newest_working_finds_the_boundary_in_the_newer_major() -> None:
    tried: list[str] = []

    def works(version: str) -> bool:
        tried.append(version)
        return (release(version) or ()) <= (3, 20, 0)

    assert newest_working(RELEASES, "3.57.0", works) == "3.20.0"
    assert tried[0] == "3.56.0"  # the newest release older than the one that failed comes first
    assert len(tried) <= 12


def test_newest_working_steps_down_to_an_older_major() -> None:
    def works(version: str) -> bool:
        return (release(version) or ())[0] == 2

    assert newest_working(RELEASES, "3.57.0", works) == "2.54.0"


def test_newest_working_gives_up_when_nothing_works() -> None:
    tried: list[str] = []

    def works(version: str) -> bool:
        tried.append(version)
        return False

    assert newest_working(RELEASES, "3.57.0", works) is None
    assert tried == ["3.56.0", "2.54.0", "1.109.1", "1.0.0"]


def test_newest_working_bisects_inside_the_only_allowed_major() -> None:
    allowed = [f"2.{minor}.0" for minor in range(55)]
    tried: list[str] = []

    def works(version: str) -> bool:
        tried.append(version)
        return (release(version) or ()) <= (2, 30, 0)

    assert newest_working(allowed, "2.54.0", works) == "2.30.0"
    assert tried[:2] == ["2.53.0", "2.0.0"]  # the major's latest fails, so the oldest line anchors
    assert len(tried) <= 12
