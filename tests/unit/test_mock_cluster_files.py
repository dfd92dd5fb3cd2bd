"""The mock cluster's input files: fixtures and fault plans are checked against their schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k8s_agent_mock_cluster import Cluster, FixtureError, load_fixture
from k8s_agent_mock_cluster.faults import FaultPlan, FaultPlanError


def test_a_fault_plan_that_breaks_its_schema_is_named_by_path(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"faults": [{"tool": "x", "action": "explode"}]}))

    with pytest.raises(FaultPlanError, match=r"faults\[0\]\.action: 'explode' is not one of"):
        FaultPlan.load(plan)


def test_a_fault_plan_with_an_unknown_field_is_refused(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"faults": [{"tool": "x", "sleep": 3}]}))

    with pytest.raises(FaultPlanError, match="Additional properties are not allowed"):
        FaultPlan.load(plan)


def test_a_missing_fixture_and_a_namespace_without_pods_say_what_exists(tmp_path: Path) -> None:
    with pytest.raises(FixtureError, match="cluster fixture not found"):
        load_fixture(tmp_path / "nope.json")

    answer = Cluster(load_fixture()).list_pods("prod")

    assert (
        answer
        == "No pods found in namespace prod. Namespaces with pods: batch, kube-system, production, staging."
    )
