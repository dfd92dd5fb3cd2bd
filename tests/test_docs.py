"""The docs show what the code does: generated tables are the ones the code generates today, the
cheap generated blocks show what their commands print today (durations and times aside), every
recorded run says so, and every page the README links exists."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from k8s_agent.doc_blocks import BLOCKS, Shell, generated_blocks, normalised, recorded_blocks
from k8s_agent.docs import TABLES, main
from tests import processes

ROOT = Path(__file__).resolve().parent.parent
EVERY_PAGE = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PAGES = {
    "settings": "docs/configuration.md",
    "traces": "docs/traces.md",
    "vocabulary": "docs/traces.md",
    "scorecard": "docs/migration.md",
    "fixture-schema": "docs/mock-cluster.md",
    "fault-schema": "docs/mock-cluster.md",
    "blocks": "docs/testing.md",
}


@pytest.mark.parametrize("table", sorted(TABLES))
def test_each_generated_table_is_shown_as_the_code_generates_it(table: str) -> None:
    page = ROOT / PAGES[table]

    assert TABLES[table]() in page.read_text(encoding="utf-8"), (
        f"{page.name} is out of date: paste `python -m k8s_agent.docs {table}` into it"
    )


def test_every_relative_link_of_the_readme_and_the_docs_resolves() -> None:
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        prose = re.sub(r"(?ms)^```.*?^```", "", page.read_text(encoding="utf-8"))  # code blocks hold no links
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")

    assert broken == []


def test_the_readme_stays_short_and_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")

    assert len(readme.splitlines()) < 200  # every line counts, the generated blocks' markers too
    first_block = readme[readme.index("```sh") : readme.index("```", readme.index("```sh") + 5)]
    assert "k8s-agent ask" in first_block and "python -m pytest" in first_block


def test_an_unknown_table_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nonsense"]) == 2

    assert capsys.readouterr().err.startswith("error: unknown table nonsense")


def test_the_examples_of_the_mock_cluster_page_are_a_valid_fixture_and_fault_plan(tmp_path: Path) -> None:
    from k8s_agent_mock_cluster import Cluster, load_fixture
    from k8s_agent_mock_cluster.faults import FaultPlan

    page = (ROOT / "docs" / "mock-cluster.md").read_text(encoding="utf-8")
    fixture_example, fault_example = re.findall(r"```json\n(.*?)\n```", page, re.S)[0:3:2]
    (tmp_path / "fixture.json").write_text(fixture_example)
    (tmp_path / "faults.json").write_text(fault_example)

    cluster = Cluster(load_fixture(tmp_path / "fixture.json"))
    assert "cart-api-6d5f7c8b9-k2m4p" in cluster.list_pods("shop")
    assert [fault.action for fault in FaultPlan.load(tmp_path / "faults.json").faults] == ["error", "exit"]


def _warm_launch(args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return processes.k8s_agent(*args, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Shell:
    """One scratch folder for the module's commands: blocks that show the same run share it."""
    return Shell(tmp_path_factory.mktemp("doc-blocks"), launch=_warm_launch)


@pytest.mark.parametrize("block_id", sorted(block.id for block in BLOCKS.values() if block.check))
def test_each_checked_block_shows_what_its_command_prints(block_id: str, shell: Shell) -> None:
    block = BLOCKS[block_id]
    assert block.check is not None
    page = (ROOT / block.page).read_text(encoding="utf-8")
    shown = normalised(next(mark.body for mark in generated_blocks(page, block.page) if mark.id == block_id))

    expected = normalised(block.check.expected(shell))

    stale = (
        f"{block.page} no longer shows what it prints: python -m k8s_agent.docs refresh --block {block_id}"
    )
    if block.check.whole:
        assert shown == expected, stale
    else:
        assert _in_order(expected.split("\n"), shown.split("\n")), (
            f"{stale}\n\nexpected, in order:\n{expected}"
        )


def _in_order(wanted: list[str], lines: list[str]) -> bool:
    """Whether every line of `wanted` is a line of `lines`, in the same order."""
    remaining = iter(lines)
    return all(any(line == want for line in remaining) for want in wanted)


def test_every_generated_block_is_marked_once_on_its_page_with_its_command() -> None:
    found: dict[str, list[str]] = {}
    wrong = []
    for path in EVERY_PAGE:
        page = str(path.relative_to(ROOT))
        for mark in generated_blocks(path.read_text(encoding="utf-8"), page):
            found.setdefault(mark.id, []).append(page)
            block = BLOCKS.get(mark.id)
            if block is None or block.page != page or block.command != mark.command:
                wrong.append(f"{page}: {mark.id}")

    assert wrong == []
    assert found == {block.id: [block.page] for block in BLOCKS.values()}


def test_every_recorded_run_is_dated_and_says_so_in_the_prose_above_it() -> None:
    unlabelled = []
    for path in EVERY_PAGE:
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        for block in recorded_blocks(text, path.name):
            above = []
            for line in reversed(lines[: block.first]):
                if line.startswith("#") or line.startswith("<!-- end"):
                    break
                if not line.startswith("<!--"):
                    above.append(line)
            if "recorded run" not in " ".join(above):
                unlabelled.append(f"{path.name}:{block.first + 1}")

    assert unlabelled == []


def test_the_corpus_sizes_the_prose_states_are_the_corpus_s_and_the_held_out_set_s() -> None:
    from k8s_agent.eval.corpus import CORPUS, load_corpus

    held_out = [len(load_corpus(CORPUS.parent / name)[0]) for name in ("holdout", "holdout2", "holdout3")]
    sizes = {len(load_corpus(CORPUS)[0]), *held_out, sum(held_out)}  # each set, and both held out
    stated = []
    for page in (ROOT / "README.md", ROOT / "docs" / "eval.md"):
        text = page.read_text(encoding="utf-8")
        lines = text.split("\n")
        for block in [*generated_blocks(text, page.name), *recorded_blocks(text, page.name)]:  # outputs
            lines[block.first : block.last + 1] = [""] * (block.last + 1 - block.first)
        prose = "\n".join(lines)
        for found in re.finditer(r"\b(\d+) (?:graded |more )?incidents\b|\b(\d+) more held out", prose):
            stated.append(int(found.group(1) or found.group(2)))

    assert stated and set(stated) <= sizes, (
        f"the corpus has {sorted(sizes)} incidents; the prose says {stated}"
    )
