"""The judge's verdicts as a user reads them, word for word, on every case written from the page.

`test_judge_from_the_docs.py` decides whether each clause holds or fails; it does not read what a
failing verdict says. That is what a user acts on: the summary, the request it names and the excerpt
it quotes, the scenarios it saw. This test keeps every verdict of those cases, and every item's
verdict with no run and on one correct subject, in `data/judge_verdicts.json`, so that a change to
any of them is a change someone reviews. When the judge's wording changes on purpose, the test
writes the verdicts as they now are to its temporary folder and names the file: read its diff, and
copy it over the recorded one.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from k8s_agent import scenarios as sc
from k8s_agent.contract.judge import Judgement, judge_all
from tests.contract.test_judge_from_the_docs import CASES, GOOD_RUNS, JUDGES

RECORDED = Path(__file__).parent / "data" / "judge_verdicts.json"


def as_read(judgement: Judgement) -> dict[str, Any]:
    return {
        "verdict": judgement.verdict,
        "summary": judgement.summary,
        "evidence": list(judgement.evidence),
        "scenarios": list(judgement.scenarios),
    }


def verdicts_now() -> dict[str, Any]:
    cases = {}
    for param in CASES:
        item, _clause, _verdict, build, _also = param.values
        cases[param.id] = as_read(JUDGES[item](build()))
    return {
        "cases": cases,
        "no run": {j.item: as_read(j) for j in judge_all({}, {})},
        "one correct subject": {j.item: as_read(j) for j in judge_all(GOOD_RUNS, {sc.C7.name: 3})},
    }


def test_every_verdict_reads_as_recorded(tmp_path: Path) -> None:
    now = verdicts_now()
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    if now == recorded:
        return
    written = tmp_path / RECORDED.name
    written.write_text(json.dumps(now, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    diff = difflib.unified_diff(
        RECORDED.read_text(encoding="utf-8").splitlines(),
        written.read_text(encoding="utf-8").splitlines(),
        "recorded",
        "now",
        lineterm="",
        n=2,
    )
    shown = "\n".join(list(diff)[:60])
    raise AssertionError(
        f"the judge's verdicts read differently from {RECORDED.name}:\n{shown}\n"
        f"the verdicts as they are now: {written} (review, then copy it over {RECORDED})"
    )


def test_the_record_holds_every_case_and_every_item() -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert sorted(recorded["cases"]) == sorted(param.id for param in CASES)
    for part in ("no run", "one correct subject"):
        assert sorted(recorded[part]) == sorted(f"C{n}" for n in range(1, 15))
    failing = [v for v in recorded["cases"].values() if v["verdict"] == "fails"]
    assert failing and all(v["evidence"] for v in failing)
