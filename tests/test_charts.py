"""The charts module: lazily imported matplotlib, self-contained SVG that follows the page's colour,
one mark per data point, and the bench --scale curve as Chromium draws it."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from k8s_agent import charts
from k8s_agent.bench import scale
from k8s_agent.cli import main
from tests.browser import CHROMIUM, colour_pixels, screenshot
from tests.processes import HANG_SECONDS

SVG = "{http://www.w3.org/2000/svg}"
ROWS = [
    {"pods": pods, "impl": impl, "budget": budget, "largest_request_bytes": big, "bytes_sent": 2 * big}
    for pods in (50, 500, 5000)
    for budget, big in ((32_000, 30_000), (0, pods * 100))
    for impl in ("handwritten", "sdk")
]

needs_matplotlib = pytest.mark.skipif(not charts.available(), reason=charts.NOTE)


def test_importing_the_cli_and_the_charts_module_does_not_import_matplotlib() -> None:
    script = (
        "import sys\nimport k8s_agent.charts, k8s_agent.compare_html, k8s_agent.eval.report\n"
        "from k8s_agent.cli import build_parser\nbuild_parser()\nprint('matplotlib' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_SECONDS, check=False
    )

    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


def test_the_environment_variable_turns_the_charts_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(charts.DISABLE, "1")

    assert charts.available() is False


@needs_matplotlib
def test_a_chart_is_inline_svg_in_the_pages_colour_with_nothing_fetched() -> None:
    svg = charts.scale_chart(ROWS, scale.TARGETS)

    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "currentColor" in svg and "#000000" not in svg and charts.INK not in svg
    assert "<image" not in svg and "@import" not in svg and "url(#" in svg
    assert all(ref.startswith("#") for ref in svg.split("url(")[1:])  # only the chart's own clip paths
    assert charts.standalone(svg).count("prefers-color-scheme: dark") == 1


@needs_matplotlib
def test_the_scale_curve_has_one_marker_per_size_for_each_series() -> None:
    root = ET.fromstring(charts.scale_chart(ROWS, scale.TARGETS))
    series = {
        element.get("id", "").split("series-", 1)[1]: len(element.findall(f".//{SVG}use"))
        for element in root.iter()
        if "series-" in element.get("id", "")
    }

    assert series == {
        f"{impl}-{budget}-{key}": 3
        for impl in ("handwritten", "sdk")
        for budget in ("budget", "none")
        for key in ("largest_request_bytes", "bytes_sent")
    }


@needs_matplotlib
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_chromium_draws_the_scale_curve_in_both_colours_on_a_dark_page(tmp_path: Path) -> None:
    page = tmp_path / "scale.html"
    svg = charts.scale_chart(ROWS, scale.TARGETS)
    page.write_text(
        f"<!doctype html><body style='margin:0;background:#0d1117;color:#e6edf3'>{svg}</body>",
        encoding="utf-8",
    )

    shot = screenshot(page, tmp_path)

    assert colour_pixels(shot, charts.colour("handwritten")) > 50
    assert colour_pixels(shot, charts.colour("sdk")) > 200
    assert colour_pixels(shot, "#e6edf3", tolerance=60) > 300  # text and axes in the page's (light) colour


def test_bench_chart_goes_with_scale(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--chart", "x.svg"]) == 2

    assert "--chart goes with --scale" in capsys.readouterr().err


def test_bench_scale_chart_without_matplotlib_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(charts.DISABLE, "1")

    assert main(["bench", "--scale", "--sizes", "50", "--chart", str(tmp_path / "x.svg")]) == 2

    assert "pip install 'k8s-agent[charts]'" in capsys.readouterr().err
    assert not (tmp_path / "x.svg").exists()
