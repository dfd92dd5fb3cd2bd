"""The HTML report: one self-contained file whose timelines a real browser renders, offline.

Chromium (Debian's `chromium`) runs headless with a fresh profile and background networking off;
the test reads the DOM it produced (after the page's script ran) and takes a screenshot.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

import pytest

from k8s_agent import charts
from k8s_agent.compare import render
from k8s_agent.compare_report import Comparison
from k8s_agent_harness.traces.events import Event
from tests.browser import CHROMIUM, chromium, colour_pixels

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Entries(HTMLParser):
    """Counts timeline entries per (scenario, implementation, kind) in a DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[dict[str, str]] = []
        self.counts: Counter[tuple[str, str, str]] = Counter()
        self.timelines: dict[str, list[str]] = {}
        self.root: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if tag == "html":
            self.root = attributes
        classes = attributes.get("class", "").split()
        scenario = next((a["data-name"] for a in reversed(self.stack) if "data-name" in a), "")
        impl = next((a["data-impl"] for a in reversed(self.stack) if "data-impl" in a), "")
        if "timeline" in classes:
            self.timelines.setdefault(scenario, []).append(attributes.get("data-impl", ""))
        if "entry" in classes:
            kind = next(c for c in classes if c != "entry")
            self.counts[scenario, impl, kind] += 1
        mark = re.search(r"mark-(turn|call|guardrail)-\d+$", attributes.get("id", ""))
        if mark:
            self.counts[scenario, impl, f"chart-{mark.group(1)}"] += 1
        if tag not in VOID:
            self.stack.append(attributes)

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.stack:
            self.stack.pop()


@pytest.fixture(scope="module")
def page(comparison: Comparison) -> str:
    """The report, rendered once (drawing its charts takes a few seconds)."""
    return render(comparison, "html")


def events(trace: Sequence[Event], kind: str) -> list[Event]:
    return [e for e in trace if e.kind == kind]


def test_the_html_report_is_one_self_contained_file(comparison: Comparison, page: str) -> None:
    assert page.startswith("<!doctype html>")
    assert "<style>" in page and "<script>" in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page), "an external resource"
    assert "<link" not in page and "@import" not in page
    assert not re.search(r"url\((?!#)", page), "a url() that is not the page's own (an SVG clip path)"
    assert page.count('<section class="scenario"') == len(comparison.rows)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_headless_chromium_renders_two_timelines_per_scenario_with_every_turn_and_tool_call(
    comparison: Comparison, page: str, tmp_path: Path
) -> None:
    html_file = tmp_path / "compare.html"
    html_file.write_text(page, encoding="utf-8")
    screenshot = tmp_path / "compare.png"

    dumped = chromium(html_file, tmp_path / "profile-dom", "--dump-dom")
    shot = chromium(
        html_file, tmp_path / "profile-shot", f"--screenshot={screenshot}", "--window-size=1400,2600"
    )

    assert dumped.returncode == 0, dumped.stderr[-2000:]
    assert shot.returncode == 0 and screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", shot.stderr[-2000:]
    assert screenshot.stat().st_size > 50_000  # a rendered page, not a blank one

    dom = Entries()
    dom.feed(dumped.stdout)
    dom.close()
    assert dom.root.get("data-ready") == "true", "the page's script did not run to the end"
    assert set(dom.timelines) == {row.name for row in comparison.rows}
    for row in comparison.rows:
        assert dom.timelines[row.name] == ["handwritten", "sdk"]
        for impl, run in row.runs.items():
            count = {
                kind: dom.counts[row.name, impl, kind] for kind in ("model-turn", "tool-call", "guardrail")
            }
            assert count == {
                "model-turn": run.metrics["model_requests"],
                "tool-call": len(events(run.trace, "tool_call")),
                "guardrail": len(events(run.trace, "guardrail")),
            }, (row.name, impl)
            if charts.available():  # one bar per model turn and per tool call, one tick per guardrail
                drawn = {
                    kind: dom.counts[row.name, impl, f"chart-{kind}"]
                    for kind in ("turn", "call", "guardrail")
                }
                assert drawn == {
                    "turn": count["model-turn"],
                    "call": count["tool-call"],
                    "guardrail": count["guardrail"],
                }, (row.name, impl)
    if charts.available():  # the charts are drawn in each implementation's colour, not left blank
        assert colour_pixels(screenshot, charts.colour("handwritten")) > 500
        assert colour_pixels(screenshot, charts.colour("sdk")) > 500


def test_the_timelines_show_each_tool_outcome_and_guardrail(page: str) -> None:
    c10 = page[page.index('id="s-c10-mixed-round"') :]
    c10 = c10[: c10.index("</section>")]
    outcomes = Counter(re.findall(r'data-outcome="([a-z_]+)"', c10))

    # six calls per implementation: each outcome of the gateway (docs/design.md), once (twice for the two list_nodes)
    assert outcomes == {
        "unknown": 2,
        "invalid_json": 2,
        "invalid_args": 2,
        "executed": 2,
        "cached": 2,
        "failed": 2,
    }
    c4 = page[page.index('id="s-c4-duplicates"') :]
    assert c4[: c4.index("</section>")].count('data-guardrail="forced_summary"') == 2
    assert 'class="step differs"' not in page  # no turn's facts differ between the implementations


def test_the_page_opens_with_a_verdict_and_marks_only_behaviour(comparison: Comparison, page: str) -> None:
    runs = sum(len(row.runs) for row in comparison.rows)

    verdict = page[page.index('id="verdict"') :]
    assert f"{runs}/{runs} runs kept the contract" in verdict[: verdict.index("</p>")]
    # bytes and times differ between the implementations on every row: shown quietly, never yellow
    assert 'class="differs"' not in page
    assert page.count('class="expected varies"') >= len(comparison.rows)
    legend = page[page.index('id="legend"') :]
    for abbreviation in (
        "rejected u·i·d",
        "hw / sdk",
        "loop ms",
        "wall s",
        "prompt tok / completion tok",
        "bytes sent differs",
    ):
        assert f"<dt>{abbreviation}</dt>" in legend


def test_scenarios_that_look_odd_say_why(page: str) -> None:
    def section(name: str) -> str:
        found = page[page.index(f'id="s-{name}"') :]
        return found[: found.index("</section>")]

    for name in ("c5-invented-pods", "c12-unverified-kept"):
        assert 'data-note="grounding"' in section(name)
    assert 'data-note="call-order"' in section("c10-mixed-round")
    assert page.count('data-note="grounding"') == 2 and page.count('data-note="call-order"') == 1


def test_without_matplotlib_the_page_keeps_its_tables_and_says_how_to_get_charts(
    comparison: Comparison, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts, "available", lambda: False)

    page = render(comparison, "html")

    assert "<svg" not in page
    assert page.count(charts.NOTE) == 1
    assert '<table class="summary">' in page and page.count('<div class="timeline"') == 2 * len(
        comparison.rows
    )
