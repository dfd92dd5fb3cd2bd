"""Which openai release an SDK version works with: version arithmetic and the search order.

Older SDKs declare loose `openai` ranges and break on newer clients, so compatibility is found by
trying releases, not read from metadata. The search steps down the major lines (the latest release
of each; failing that, the oldest minor line), then bisects the minor lines between that anchor and
the release that failed, assuming openai works up to some release and breaks after it. Pure: no
processes here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

Release = tuple[int, ...]

_RELEASE = re.compile(r"^\d+(?:\.\d+)*$")
_CLAUSE = re.compile(r"(~=|==|!=|<=|>=|<|>)\s*([0-9][0-9.]*)")


def release(version: str) -> Release | None:
    """(3, 57, 0) for "3.57.0"; None for pre-releases and anything else."""
    if not _RELEASE.match(version):
        return None
    return tuple(int(part) for part in version.split("."))


def parse_pip_index(output: str) -> list[str]:
    """The versions listed by `pip index versions PACKAGE` ("Available versions: a, b, ...")."""
    for line in output.splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()]
    return []


def allows(specifier: str, version: str) -> bool:
    """Whether a simple specifier like "<3,>=2.45.0" admits `version` (unknown clauses admit all)."""
    candidate = release(version)
    if candidate is None:
        return False
    for operator, bound_text in _CLAUSE.findall(specifier):
        bound = release(bound_text.rstrip("."))
        if bound is None:
            continue
        if not _compare(operator, candidate, bound):
            return False
    return True


def newest_working(
    versions: Iterable[str], failed: str, works: Callable[[str], bool], max_attempts: int = 12
) -> str | None:
    """The newest release older than `failed` for which `works` is true, or None.

    `works` installs and smoke-tests one openai release; it is called at most `max_attempts` times.
    An anchor that works is found first (the latest release of each major line, newest first; else
    the oldest line), then the minor lines between the anchor and `failed` are bisected.
    """
    failed_release = release(failed) or ()
    older = sorted((v for v in versions if (r := release(v)) is not None and r < failed_release), key=_key)
    lines = _latest_per(older, 2)
    budget = [max_attempts]

    def attempt(version: str) -> bool:
        budget[0] -= 1
        return works(version)

    anchor = None
    for candidate in [*sorted(_latest_per(older, 1), key=_key, reverse=True), *lines[:1]]:
        if budget[0] <= 0:
            return None
        if attempt(candidate):
            anchor = candidate
            break
    if anchor is None:
        return None
    newer = [line for line in lines if _key(anchor) < _key(line)]
    low, high = 0, len(newer) - 1
    while low <= high and budget[0] > 0:
        middle = (low + high) // 2
        if attempt(newer[middle]):
            anchor, low = newer[middle], middle + 1
        else:
            high = middle - 1
    return anchor


def _latest_per(versions: list[str], depth: int) -> list[str]:
    """The latest release of each line (depth 1: major, 2: major.minor), ascending."""
    latest: dict[Release, str] = {}
    for version in sorted(versions, key=_key):
        latest[_key(version)[:depth]] = version
    return sorted(latest.values(), key=_key)


def _key(version: str) -> Release:
    return release(version) or ()


def _pad(version: Release, other: Release) -> Release:
    return version + (0,) * max(0, len(other) - len(version))


def _compare(operator: str, version: Release, bound: Release) -> bool:
    if operator == "~=":  # ~=2.45.0 means >=2.45.0, ==2.45.*; ~=2.45 means >=2.45, ==2.*
        prefix = max(len(bound) - 1, 1)
        return _pad(version, bound) >= _pad(bound, version) and version[:prefix] == bound[:prefix]
    version, bound = _pad(version, bound), _pad(bound, version)
    return {
        "==": version == bound,
        "!=": version != bound,
        "<=": version <= bound,
        ">=": version >= bound,
        "<": version < bound,
        ">": version > bound,
    }[operator]
