"""The docs show what the code does: generated tables are the ones the code generates today, and
every page the README links exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from k8s_agent.docs import TABLES, main

ROOT = Path(__file__).resolve().parent.parent
PAGES = {
    "settings": "docs/configuration.md",
    "traces": "docs/traces.md",
    "vocabulary": "docs/traces.md",
    "scorecard": "docs/migration.md",
    "fixture-schema": "docs/mock-cluster.md",
    "fault-schema": "docs/mock-cluster.md",
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

    assert len(readme.splitlines()) < 200
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
