"""The HTML report: one self-contained file whose timelines a real browser renders, offline.

Chromium (Debian's `chromium`) runs headless with a fresh profile and background networking off;
the test reads the DOM it produced (after the page's script ran) and takes a screenshot.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

import pytest

from k8s_agent.compare import render
from k8s_agent.compare_report import Comparison
from k8s_agent_harness.events import Event

CHROMIUM = shutil.which("chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
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
        if tag not in VOID:
            self.stack.append(attributes)

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.stack:
            self.stack.pop()


def chromium(page: Path, profile: Path, *options: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *options, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def events(trace: Sequence[Event], kind: str) -> list[Event]:
    return [e for e in trace if e.kind == kind]


def test_the_html_report_is_one_self_contained_file(comparison: Comparison) -> None:
    page = render(comparison, "html")

    assert page.startswith("<!doctype html>")
    assert "<style>" in page and "<script>" in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page), "an external resource"
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert page.count('<section class="scenario"') == len(comparison.rows)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_headless_chromium_renders_two_timelines_per_scenario_with_every_turn_and_tool_call(
    comparison: Comparison, tmp_path: Path
) -> None:
    page = tmp_path / "compare.html"
    page.write_text(render(comparison, "html"), encoding="utf-8")
    screenshot = tmp_path / "compare.png"

    dumped = chromium(page, tmp_path / "profile-dom", "--dump-dom")
    shot = chromium(page, tmp_path / "profile-shot", f"--screenshot={screenshot}", "--window-size=1400,2600")

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


def test_the_timelines_show_each_tool_outcome_and_guardrail(comparison: Comparison) -> None:
    page = render(comparison, "html")
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
