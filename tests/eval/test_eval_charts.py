"""The eval HTML report's pictures: scores with their intervals and the paired per-incident differences,
as headless Chromium renders them; and the plain tables with one line when matplotlib is missing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from k8s_agent import charts
from k8s_agent.eval.corpus import load_corpus
from k8s_agent.eval.report import EvalReport, build, html
from k8s_agent.eval.score import METRICS
from tests.browser import CHROMIUM, chromium, colour_pixels


def record(impl: str, incident: str, solved: bool) -> dict[str, Any]:
    value = 1.0 if solved else 0.5
    return {
        "impl": impl,
        "model": "offline",
        "incident": incident,
        "repeat": 1,
        "error": None,
        "score": {
            **dict.fromkeys(METRICS, value),
            "solved": solved,
            "scorable": True,
            "costs": {"requests": 3},
        },
    }


@pytest.fixture(scope="module")
def report() -> EvalReport:
    incidents, _ = load_corpus(patterns=["crash*"])
    records = [record("handwritten", i.id, True) for i in incidents]
    records += [record("sdk", i.id, n != 0) for n, i in enumerate(incidents)]  # the sdk misses the first
    return build(records, incidents)


@pytest.mark.skipif(not charts.available(), reason=charts.NOTE)
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_chromium_draws_one_dot_per_score_and_per_incident(report: EvalReport, tmp_path: Path) -> None:
    page = tmp_path / "eval.html"
    page.write_text(html(report), encoding="utf-8")
    shot = tmp_path / "eval.png"

    dumped = chromium(page, tmp_path / "profile-dom", "--dump-dom")
    taken = chromium(page, tmp_path / "profile-shot", f"--screenshot={shot}", "--window-size=1200,1400")

    assert dumped.returncode == 0 and taken.returncode == 0, dumped.stderr[-2000:] + taken.stderr[-2000:]
    scores = set(re.findall(r'id="[^"]*mark-score-(\d+)"', dumped.stdout))
    pairs = set(re.findall(r'id="[^"]*mark-pair-(\d+)"', dumped.stdout))
    assert len(scores) == len(report.groups) * (1 + len(METRICS))  # solved and each metric, per group
    assert len(pairs) == len(report.incidents) == report.pairs[0].incidents
    assert "sdk better" in dumped.stdout and "handwritten better" in dumped.stdout
    assert colour_pixels(shot, charts.colour("handwritten")) > 200  # the chart is drawn, not blank
    assert colour_pixels(shot, charts.colour("sdk")) > 100


def test_without_matplotlib_the_page_keeps_its_tables_and_says_how_to_get_charts(
    report: EvalReport, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts, "available", lambda: False)

    page = html(report)

    assert "<svg" not in page
    assert page.count(charts.NOTE) == 1
    assert "id='scores'" in page and "id='incidents'" in page
    assert all(f"data-incident='{incident.id}'" in page for incident in report.incidents)


def test_records_without_their_report_keep_their_stored_scores_and_say_so(report: EvalReport) -> None:
    assert report.rescored == 0 and report.stored == sum(g.runs for g in report.groups)
    assert any("the scores stored with them are shown" in note for note in report.notes)


@pytest.mark.skipif(not charts.available(), reason=charts.NOTE)
def test_baselines_are_drawn_as_floor_marks_apart_from_the_models() -> None:
    incidents, _ = load_corpus(patterns=["crash*"])
    records = [record("handwritten", i.id, True) for i in incidents]
    floor = [{**record("handwritten", i.id, False), "model": "baseline:parrot"} for i in incidents]
    built = build(records + floor, incidents)

    page = html(built)

    scores = set(re.findall(r'id="[^"]*mark-score-(\d+)"', page))
    floors = set(re.findall(r'id="[^"]*mark-floor-(\d+)"', page))
    assert len(scores) == len(floors) == 1 + len(METRICS)
    assert "floor: handwritten · baseline:parrot" in page and "hollow grey rings" in page
    assert page.index("id='scores'") < page.index("id='floor'") < page.index("id='scores-chart'")
