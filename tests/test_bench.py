"""A smoke test of `k8s-agent bench --quick`: every figure is measured and printed (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_bench_quick_prints_every_figure(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "k8s_agent", "bench", "--quick", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout)
    assert set(figures["per_turn"]) == {
        "floor (bare loop)",
        "hand-written agent",
        "SDK port",
        "plain SDK (native MCP)",
    }
    assert all(row["n"] >= 2 and row["median"] > 0 for row in figures["per_turn"].values())
    assert figures["per_call"]["gateway"]["median"] > 0 and figures["per_call"]["round_trip"]["median"] > 0
    assert {"wall_floor", "wall_handwritten", "wall_sdk", "rss_handwritten"} <= set(figures["startup"])
    assert figures["investigation"]["handwritten"]["model_requests"] == 3
    assert figures["imports_agents"] == {"handwritten": False, "sdk": True}
    assert set(figures["targets_met"]) >= {"gateway_share_of_round_trip", "handwritten_never_imports_agents"}
