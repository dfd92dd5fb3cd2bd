"""Whether a pod the listing shows broken is unhealthy (playbook/pods.py): a pod on its way up with
no Warning event is starting while it is young, and not after."""

from __future__ import annotations

import pytest

from tests.offline.playbook.cluster import causes, cluster, container, pod, report_on

NAMESPACE = "reports"
NAME = "pdf-renderer-7b9c8d6f5-w3x8k"


@pytest.mark.parametrize(
    ("status", "age", "starting"),
    [
        ("ContainerCreating", "40s", True),
        ("ContainerCreating", "25m", False),
        ("PodInitializing", "3m", True),
        ("PodInitializing", "2h", False),
        ("Pending", "5s", True),
        ("Pending", "10m", False),
    ],
)
def test_a_pod_on_its_way_up_with_no_warning_is_starting_only_while_young(
    status: str, age: str, starting: bool
) -> None:
    """Rule `is_starting`: a pod on its way up with no Warning event is starting while it is young, and
    unhealthy after."""
    waiting = container("pdf-renderer", state={"waiting": {"reason": status}}, ready=False)
    scheduled = status != "Pending"
    fixture = cluster(
        [
            pod(NAME, NAMESPACE, status, waiting, age=age, node="worker-1" if scheduled else None),
            pod("report-api-6c8d7f9b5-h4j2k", NAMESPACE, "Running"),
        ]
    )

    report, _ = report_on(fixture, "Is the reports namespace healthy?")

    assert (report.findings == []) is starting
    if not starting:
        assert list(causes(report)) == [f"pod/{NAME}"]
