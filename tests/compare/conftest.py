"""The whole built-in comparison runs once per test session; every test of this folder reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent import scenarios
from k8s_agent.compare import render
from k8s_agent.compare_report import Comparison
from k8s_agent.compare_runs import builtin_cases, run_comparison
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS
from tests.conftest import run_scenario

ON_RESPONSES = (scenarios.C10, scenarios.C7)
"""Scenarios recorded on the Responses API: one round of every guard, and a forced summary."""


@pytest.fixture(scope="session")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    """Every built-in scenario on both implementations (about 15 s on two cores)."""
    return run_comparison(builtin_cases(), tmp_path_factory.mktemp("compare") / "runs", jobs=2)


@pytest.fixture(scope="session")
def report(comparison: Comparison) -> dict[str, Any]:
    """The comparison as `compare --format json` prints it."""
    return json.loads(render(comparison, "json"))  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def recorded(comparison: Comparison) -> dict[tuple[str, str], Path]:
    """The trace file of each (scenario, implementation) run of the comparison."""
    return {
        (row.name, impl): Path(run.metrics["trace"])
        for row in comparison.rows
        for impl, run in row.runs.items()
    }


@pytest.fixture(scope="session")
def recorded_responses(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """The trace file of each (scenario, implementation) of ON_RESPONSES, run on the Responses API
    (about 2 s)."""
    folder = tmp_path_factory.mktemp("responses")
    traces: dict[tuple[str, str], Path] = {}
    for scenario in ON_RESPONSES:
        for impl in IMPLEMENTATIONS:
            run = run_scenario(impl, scenario, folder / f"{scenario.name}-{impl}", api="responses")
            assert run.trace_path is not None and run.wires and set(run.wires) == {"responses"}
            traces[scenario.name, impl] = run.trace_path
    return traces
