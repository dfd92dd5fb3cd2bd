"""A smoke test of `k8s-agent bench --quick`: every figure is measured and printed (no timing asserted)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from tests.processes import k8s_agent


def test_bench_quick_prints_every_figure(tmp_path: Path) -> None:
    (tmp_path / "tmp").mkdir()
    done = k8s_agent("bench", "--quick", "--json", cwd=tmp_path, env={"TMPDIR": str(tmp_path / "tmp")})

    figures = json.loads(done.stdout)
    assert done.returncode == (0 if all(figures["targets_met"].values()) else 8), done.stderr[-2000:]
    assert list((tmp_path / "tmp").iterdir()) == []  # no traces or folders left behind
    assert set(figures["per_turn"]) == {
        "floor (bare loop)",
        "hand-written agent",
        "SDK port",
        "plain SDK (native MCP)",
    }
    # A turn's cost is a slope between two runs: on a busy machine noise can make a quick one's median
    # zero or below. What is asserted is that each was measured, not how fast the machine was.
    assert all(row["n"] >= 2 and math.isfinite(row["median"]) for row in figures["per_turn"].values())
    assert figures["per_call"]["gateway"]["median"] > 0 and figures["per_call"]["round_trip"]["median"] > 0
    assert {"wall_floor", "wall_handwritten", "wall_sdk", "rss_handwritten"} <= set(figures["startup"])
    assert figures["investigation"]["handwritten"]["model_requests"] == 4
    assert figures["imports_agents"] == {"handwritten": False, "sdk": True}
    assert set(figures["targets_met"]) >= {"gateway_share_of_round_trip", "handwritten_never_imports_agents"}


def test_bench_scale_quick_measures_both_implementations_with_and_without_the_budget(tmp_path: Path) -> None:
    done = k8s_agent("bench", "--scale", "--quick", "--json", cwd=tmp_path)

    figures = json.loads(done.stdout)
    assert done.returncode == (0 if all(figures["targets_met"].values()) else 8), done.stderr[-2000:]
    rows = {(row["pods"], row["impl"], row["budget"]) for row in figures["rows"]}
    assert rows == {
        (pods, impl, budget)
        for pods in (50, 500)
        for impl in ("handwritten", "sdk")
        for budget in (32_000, 0)
    }
    assert all(row["found"] == 5 for row in figures["rows"])
    # Measured, so not asserted: a busy machine may miss it.
    timed = {"wall_time_grows_no_faster_than_the_cluster"}
    assert set(figures["targets_met"]) > timed
    assert all(met for name, met in figures["targets_met"].items() if name not in timed)
    with_budget = [row for row in figures["rows"] if row["budget"] and row["pods"] == 500]
    without = [row for row in figures["rows"] if not row["budget"] and row["pods"] == 500]
    assert max(r["largest_request_bytes"] for r in with_budget) < min(
        r["largest_request_bytes"] for r in without
    )


def test_bench_eval_measures_memory_descriptors_children_and_both_throughputs(tmp_path: Path) -> None:
    done = k8s_agent(
        "bench", "--eval", "6", "--concurrency", "3", "--baseline-runs", "2", "--json", cwd=tmp_path
    )

    figures = json.loads(done.stdout)
    inside, outside = figures["in_process"], figures["process_per_run"]
    assert inside["runs"] == 6 and inside["errors"] == 0 and outside["runs"] == 2 and outside["errors"] == 0
    assert inside["children_left"] == [] and inside["fds_after"] <= inside["fds_before"] + 2
    assert inside["rss_end_mb"] > 0 and figures["throughput_ratio"] > 0
    assert done.returncode == (8 if figures["missed"] else 0), done.stderr[-2000:]


def test_bench_verify_quick_checks_a_report_against_every_shape_of_a_listing(tmp_path: Path) -> None:
    done = k8s_agent("bench", "--verify", "--quick", "--json", cwd=tmp_path)

    figures = json.loads(done.stdout)
    assert done.returncode == (0 if figures["met"] else 8), done.stderr[-2000:]
    assert figures["pods"] == 500
    assert set(figures["shapes"]) == {
        "kubectl table",
        "JSON list, indented",
        "JSON list, one line",
        "YAML stream",
    }
    assert all(shape["verified"] and shape["seconds"]["median"] > 0 for shape in figures["shapes"].values())


def test_bench_otel_quick_measures_both_implementations_with_and_without_export(tmp_path: Path) -> None:
    done = k8s_agent(
        "bench", "--otel", "--quick", "--json", cwd=tmp_path, env={"TMPDIR": str(tmp_path / "tmp")}
    )
    figures = json.loads(done.stdout)
    assert done.returncode == (0 if figures["met"] else 8), done.stderr[-2000:]
    assert figures["receiver"] == "a minimal OTLP/HTTP receiver on loopback"
    assert set(figures["runs"]) == {"handwritten", "sdk"}
    for runs in figures["runs"].values():
        for name in ("wall off", "wall on", "cpu off", "cpu on"):
            assert runs[name]["n"] == figures["rounds"]
        assert runs["spans"]["min"] > 0  # every run with export on was sent (a failure raises)
        assert isinstance(runs["cost"], float)
    assert figures["met"] == all(runs["cost"] < figures["target"] for runs in figures["runs"].values())
