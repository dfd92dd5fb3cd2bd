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
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
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
