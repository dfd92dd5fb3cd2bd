"""Nodes behind pods (playbook/nodes.py, taxonomy.py, questions.py): a taint the kubelet or the node
controller put on a node for its condition tells that condition; a question naming a pod is about
the pod even when it mentions its node."""

from __future__ import annotations

import pytest

from k8s_agent_scripted_llm.playbook.questions import names_a_node
from tests.offline.playbook.cluster import causes, cluster, container, event, pod, quotes, report_on

NAME = "batch-runner-6d7c8b9f5-w2x4z"


@pytest.mark.parametrize(
    ("taint", "cause"),
    [
        ("node.kubernetes.io/disk-pressure", "node_pressure"),
        ("node.kubernetes.io/memory-pressure", "node_pressure"),
        ("node.kubernetes.io/unreachable", "node_not_ready"),
    ],
)
def test_a_nodes_condition_taint_named_by_the_scheduler_tells_the_nodes_condition(
    taint: str, cause: str
) -> None:
    message = (
        f"0/3 nodes are available: 1 node(s) had untolerated taint {{{taint}: }}, "
        "2 node(s) didn't match Pod's node affinity/selector."
    )
    fixture = cluster(
        [pod(NAME, "jobs", "Pending", container("runner"), node=None, age="20m")],
        [event("jobs", f"pod/{NAME}", "FailedScheduling", message)],
    )

    report, _ = report_on(fixture, "Why are the jobs pods pending in the jobs namespace?")

    assert causes(report) == {f"pod/{NAME}": cause}
    assert quotes(report, NAME)[0] == message


def test_a_question_naming_a_pod_that_mentions_its_node_is_about_the_pod() -> None:
    missing = 'Error: secret "runner-token" not found'
    waiting = container("runner", state={"waiting": {"reason": "CreateContainerConfigError"}})
    fixture = cluster(
        [
            pod("batch-runner-0", "jobs", "CreateContainerConfigError", waiting),
            pod("queue-0", "jobs", "Running"),
        ],
        [event("jobs", "pod/batch-runner-0", "Failed", missing)],
    )

    report, calls = report_on(fixture, "batch-runner-0 did not come back after its node was rebooted. Why?")

    assert causes(report) == {"pod/batch-runner-0": "missing_config_reference"}
    assert not any(tool == "describe_node" for tool, _ in calls)


def test_a_name_said_to_be_a_node_is_a_node() -> None:
    """Rule `names_a_node`: a name is a node's only when the question says so ('node X', 'X node')."""
    assert names_a_node("Is node ip-10-0-3-7 healthy?", "ip-10-0-3-7")
    assert names_a_node("why is the ip-10-0-3-7 node NotReady", "ip-10-0-3-7")
    assert not names_a_node("batch-runner-0 died after its node rebooted", "batch-runner-0")


def test_a_workload_named_in_a_question_about_which_pods_are_affected_does_not_narrow_the_scope() -> None:
    """A question about nodes and the pods they affect is about every pod: a workload it names (here
    the one that noticed) does not narrow it, and the pods a node cut off elsewhere are reported."""
    cut_off = {
        "search-indexer-0": "search",
        "thumbs-5f6d7c8b9-k2l4m": "media",
    }
    down = {"name": "worker-3", "status": "NotReady", "conditions": {"Ready": "Unknown"}}
    ready = {"Ready": "True", "MemoryPressure": "False", "DiskPressure": "False", "PIDPressure": "False"}
    nodes = [{"name": f"worker-{n}", "status": "Ready", "conditions": dict(ready)} for n in (1, 2)] + [down]
    pods = [
        pod(name, namespace, "Running", container(name.split("-")[0]), node="worker-3", ready=False)
        for name, namespace in cut_off.items()
    ]
    pods.append(pod("uptime-probe-7c8d9b6f5-q2w4e", "ops", "Running", container("probe"), node="worker-1"))
    events = [event(ns, f"pod/{name}", "NodeNotReady", "Node is not ready") for name, ns in cut_off.items()]
    events.append(
        event("default", "node/worker-3", "NodeNotReady", "Node worker-3 status is now: NodeNotReady")
    )
    fixture = cluster(pods, events, nodes)

    report, _ = report_on(
        fixture, "uptime-probe alerts on half its targets. Are the nodes fine, and which pods are affected?"
    )

    assert causes(report) == {
        "node/worker-3": "node_not_ready",
        "pod/search-indexer-0": "node_not_ready",
        "pod/thumbs-5f6d7c8b9-k2l4m": "node_not_ready",
    }


CUT_OFF = "ledger-api-7f8c9d6b5-h3j5k"


def test_a_pod_whose_events_say_its_node_is_not_ready_is_cut_off_by_its_node() -> None:
    """Cause rule `cut_off_by_its_node`: a pod whose own events say its node is not ready is
    node_not_ready, quoted from that event, in a question about its namespace."""
    lost = "Node is not ready"
    fixture = cluster(
        [
            pod(CUT_OFF, "ledger", "Running", container("ledger-api"), node="worker-2", ready=False),
            pod("ledger-web-5b6c7d8f9-p2q4r", "ledger", "Running", node="worker-1"),
        ],
        [event("ledger", f"pod/{CUT_OFF}", "NodeNotReady", lost)],
    )

    report, _ = report_on(fixture, "What is wrong in the ledger namespace?")

    assert causes(report) == {f"pod/{CUT_OFF}": "node_not_ready"}
    assert quotes(report, CUT_OFF)[0] == lost
    assert "worker-2" in report.findings[0].explanation


EVICTED = "image-cache-6c7d8e9f5-t2v4x"
LOW_ON_DISK = (
    "The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 512Mi. "
    "Container image-cache was using 6Gi, request is 0, has larger consumption of ephemeral-storage."
)
OVER_ITS_LIMIT = "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi."


@pytest.mark.parametrize(("message", "cause"), [(LOW_ON_DISK, "node_pressure"), (OVER_ITS_LIMIT, "evicted")])
def test_a_pod_the_kubelet_evicted_is_told_by_its_eviction(message: str, cause: str) -> None:
    """Cause rule `evicted_by_the_kubelet`: an evicted pod is node_pressure when its eviction says
    the node ran low on a resource, else evicted; quoted from the eviction."""
    gone = container(
        "image-cache", ready=False, state={"terminated": {"reason": "Evicted", "exit_code": 137}}
    )
    fixture = cluster(
        [
            pod(EVICTED, "media", "Evicted", gone, phase="Failed"),
            pod("image-cache-6c7d8e9f5-b8n6m", "media", "Running"),
        ],
        [event("media", f"pod/{EVICTED}", "Evicted", message)],
    )

    report, _ = report_on(fixture, "What is wrong in the media namespace?")

    assert causes(report) == {f"pod/{EVICTED}": cause}
    assert quotes(report, EVICTED)[0] == message
