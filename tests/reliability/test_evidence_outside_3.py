"""A third outside adversary of the verified report (docs/report.md, "The verification rule"),
written from the documentation alone. It reuses the first kit's MCP server, harness and run cache
(tests/reliability/test_evidence_outside.py): one `ask --json` run per scenario and implementation,
shared by the tests that read it; a scripted model sends the same report again after a correction.

HONEST3 is a report true in every item, with status fields and quotes written the way real models
write them ("CrashLoopBackOff (9 restarts)", "Running but not ready (0/1)", "restarts: 9",
"Pending: Unschedulable", "Terminated: OOMKilled (exit 137)", "NotReady (Ready=Unknown)"), a
StatefulSet and a Deployment resting on their pods' evidence, a quote from `kubectl get events -o
wide`. Each test asserts its own item's marks; one asserts the whole run is accepted as it is.

ATTACK3 plants one false status per finding, each in a phrasing whose every word is true of some
field of the resource ("restarts: 9" where 9 is the exit code, "exit 0" where 0 is the restart
count, "Ready: True" where True is DiskPressure's, "Init:0/1" where 0/1 is READY, "not Running").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.reliability import test_evidence_outside as first
from tests.reliability.test_evidence_outside import (
    CRASHLOOP_STATE,
    FLUX,
    KUBECTL_DESCRIBE,
    KUBECTL_GET,
    NS,
    Call,
    Outcome,
    Scenario,
    assert_accepted,
    assert_example_rejected,
    assert_status_rejected,
    describe_node,
    describe_pod,
    finding,
    kubectl_table,
    pod_object,
    pretty,
    quote,
    report,
    row,
)
from tests.reliability.test_evidence_outside_2 import assert_finding_ok

Run = Callable[[Scenario], Outcome]
run = first.run
"""The first kit's fixture: one CLI run per scenario and implementation, cached."""


def _get(call_id: str, name: str, text_: str, kind: str = "pods") -> Call:
    return Call(
        call_id, "kubectl_get", {"resourceType": kind, "name": name, "namespace": NS, "output": "json"}, text_
    )


def _describe(call_id: str, name: str, text_: str, kind: str = "pod", namespace: str | None = NS) -> Call:
    args = {"resourceType": kind, "name": name}
    if namespace:
        args["namespace"] = namespace
    return Call(call_id, "kubectl_describe", args, text_)


def _terminated(reason: str, code: int) -> tuple[str, ...]:
    return (
        "State:          Terminated",
        f"  Reason:       {reason}",
        f"  Exit Code:    {code}",
        "  Started:      Sun, 30 Nov 2026 04:00:00 +0000",
        "  Finished:     Sun, 30 Nov 2026 04:09:12 +0000",
    )


def _job_pod_describe(name: str, job: str, container: str, reason: str, code: int) -> str:
    return describe_pod(
        name,
        container=container,
        phase="Failed",
        controlled_by=f"Job/{job}",
        labels=[f"batch.kubernetes.io/job-name={job}", f"job-name={job}"],
        state=_terminated(reason, code),
        ready="False",
        restarts=0,
    )


def _job_pod_json(
    name: str, job: str, container: str, reason: str, code: int, message: str
) -> dict[str, Any]:
    return pod_object(
        name,
        owner=("Job", job),
        container=container,
        phase="Failed",
        ready=False,
        restarts=0,
        labels={"job-name": job, "batch.kubernetes.io/job-name": job},
        state={
            "terminated": {
                "exitCode": code,
                "reason": reason,
                "message": message,
                "startedAt": "2026-11-30T04:00:00Z",
                "finishedAt": "2026-11-30T04:09:12Z",
            }
        },
    )


# =============================================================================================
# HONEST3: true claims, phrased as models phrase them.
# =============================================================================================

H_PAREN = "api-7d9f8c6b5-b2c4d"  # "CrashLoopBackOff (9 restarts)"
H_DASH = "cart-6c7d8f9b5-f2g4h"  # "CrashLoopBackOff - 9 restarts"
H_COLON = "auth-5c6d7f8b9-k2m4p"  # "CrashLoopBackOff, restarts: 9"
H_READYAFTER = "search-6d7f8b9c5-r2t4v"  # "CrashLoopBackOff, 0/1 ready"
H_AGE = "mail-5b6c7d8f9-h2j4k"  # "CrashLoopBackOff, 9 restarts in 41m"
H_WIDE = "orders-5c8d7f9b6-k2m4p"  # quote from `kubectl get events -o wide`
H_BUT = "web-5d4c4b2z7-dxf44"  # "Running but not ready (0/1)"
H_PENDING = "reports-6f7b8d9c8-ghj56"  # JSON: "Pending: Unschedulable"
H_ERROR = "sync-29948485-q2w4z"  # JSON: "Error (exit code 1)"
H_OOM = "thumbs-29948485-x2z4q"  # describe: "Terminated: OOMKilled (exit 137)"
H_STS = "db"  # StatefulSet, kind other, resting on db-0's describe
H_STS_POD = "db-0"
H_DEP = "api"  # Deployment resting on its pod's row
H_NODE_UNKNOWN = "node-u"  # describe: "NotReady (Ready=Unknown)"
H_NODE_FALSE = "node-y"  # describe: "NotReady"
H_NODE_CORDON = "node-v"  # table: "Ready,SchedulingDisabled"
H_OK = "checkout-7f6d5c4b4-zbc72"

_CL = ["0/1", "CrashLoopBackOff", "9 (2m ago)", "41m"]
_h_pods_text = kubectl_table(
    ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
    [
        [H_PAREN, *_CL],
        [H_DASH, *_CL],
        [H_COLON, *_CL],
        [H_READYAFTER, *_CL],
        [H_AGE, *_CL],
        [H_WIDE, *_CL],
        [H_BUT, "0/1", "Running", "0", "3d"],
        [H_PENDING, "0/1", "Pending", "0", "10m"],
        [H_ERROR, "0/1", "Error", "0", "10m"],
        [H_OOM, "0/1", "OOMKilled", "0", "10m"],
        [H_STS_POD, "0/1", "CrashLoopBackOff", "4 (1m ago)", "10m"],
        [H_OK, "1/1", "Running", "0", "3d"],
    ],
)
_h_pods = Call("call_1", "kubectl_get", {"resourceType": "pods", "namespace": NS}, _h_pods_text)

_WIDE_MSG = (
    f"Back-off restarting failed container orders in pod {H_WIDE}_{NS}(5d2e3f4a-6b7c-4d8e-9f0a-1b2c3d4e5f6a)"
)
_h_events_text = kubectl_table(
    [
        "LAST SEEN",
        "TYPE",
        "REASON",
        "OBJECT",
        "SUBOBJECT",
        "SOURCE",
        "MESSAGE",
        "FIRST SEEN",
        "COUNT",
        "NAME",
    ],
    [
        [
            "2m",
            "Warning",
            "BackOff",
            f"pod/{H_WIDE}",
            "spec.containers{orders}",
            "kubelet, node-a",
            _WIDE_MSG,
            "41m",
            "180",
            f"{H_WIDE}.187a3b4c5d6e7f80",
        ],
        [
            "41m",
            "Normal",
            "Scheduled",
            f"pod/{H_WIDE}",
            "",
            "default-scheduler",
            f"Successfully assigned {NS}/{H_WIDE} to node-a",
            "41m",
            "1",
            f"{H_WIDE}.187a3b4c5d6e1a2b",
        ],
    ],
)
_h_events = Call(
    "call_2", "kubectl_get", {"resourceType": "events", "namespace": NS, "output": "wide"}, _h_events_text
)

_UNSCHED = (
    "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: "
    "3 No preemption victims found for incoming pod."
)
_pending = pod_object(
    H_PENDING,
    owner=("ReplicaSet", "reports-6f7b8d9c8"),
    labels={"app": "reports", "pod-template-hash": "6f7b8d9c8"},
    container="reports",
    phase="Pending",
    ready=False,
)
_pending["spec"].pop("nodeName")
_pending["status"] = {
    "phase": "Pending",
    "qosClass": "Burstable",
    "conditions": [
        {
            "type": "PodScheduled",
            "status": "False",
            "reason": "Unschedulable",
            "message": _UNSCHED,
            "lastProbeTime": None,
            "lastTransitionTime": "2026-11-30T04:10:00Z",
        }
    ],
}
_h_pending = _get("call_3", H_PENDING, pretty(_pending))

_h_error = _get(
    "call_4",
    H_ERROR,
    pretty(_job_pod_json(H_ERROR, "sync-29948485", "sync", "Error", 1, "sync failed: upstream returned 503")),
)
_h_oom_text = _job_pod_describe(H_OOM, "thumbs-29948485", "thumbs", "OOMKilled", 137)
_h_oom = _describe("call_5", H_OOM, _h_oom_text)

_STS_MSG = f"Back-off restarting failed container postgres in pod {H_STS_POD}_{NS}(7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b)"
_h_sts_pod = _describe(
    "call_6",
    H_STS_POD,
    describe_pod(
        H_STS_POD,
        container="postgres",
        controlled_by=f"StatefulSet/{H_STS}",
        labels=[f"app={H_STS}", f"statefulset.kubernetes.io/pod-name={H_STS_POD}"],
        state=CRASHLOOP_STATE,
        ready="False",
        restarts=4,
        events=[f"Warning  BackOff    1m (x20 over 10m)   kubelet  {_STS_MSG}"],
    ),
)
_h_sts_text = kubectl_table(["NAME", "READY", "AGE"], [[H_STS, "0/1", "10m"]])
_h_sts = Call("call_7", "kubectl_get", {"resourceType": "statefulsets", "namespace": NS}, _h_sts_text)
_h_deps_text = kubectl_table(
    ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
    [[H_DEP, "0/1", "1", "0", "41m"], ["checkout", "1/1", "1", "1", "3d"]],
)
_h_deps = Call("call_8", "kubectl_get", {"resourceType": "deployments", "namespace": NS}, _h_deps_text)

_STOPPED = "Kubelet stopped posting node status."
_h_node_u = _describe(
    "call_9",
    H_NODE_UNKNOWN,
    describe_node(
        H_NODE_UNKNOWN,
        [
            ("MemoryPressure", "Unknown", "NodeStatusUnknown", _STOPPED),
            ("DiskPressure", "Unknown", "NodeStatusUnknown", _STOPPED),
            ("PIDPressure", "Unknown", "NodeStatusUnknown", _STOPPED),
            ("Ready", "Unknown", "NodeStatusUnknown", _STOPPED),
        ],
    ),
    kind="node",
    namespace=None,
)
_CNI = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady"
_h_node_y = _describe(
    "call_10",
    H_NODE_FALSE,
    describe_node(
        H_NODE_FALSE,
        [
            (
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            ("Ready", "False", "KubeletNotReady", _CNI),
        ],
    ),
    kind="node",
    namespace=None,
)
_h_nodes_text = kubectl_table(
    ["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
    [
        [H_NODE_CORDON, "Ready,SchedulingDisabled", "worker", "90d", "v1.31.2"],
        ["node-s", "Ready", "worker", "90d", "v1.31.2"],
    ],
)
_h_nodes = Call("call_11", "kubectl_get", {"resourceType": "nodes"}, _h_nodes_text)


def _pod_row(name: str) -> dict[str, Any]:
    return quote(row(_h_pods_text, name), _h_pods)


HONEST3 = Scenario(
    "outside3-honest",
    FLUX,
    [
        _h_pods,
        _h_events,
        _h_pending,
        _h_error,
        _h_oom,
        _h_sts_pod,
        _h_sts,
        _h_deps,
        _h_node_u,
        _h_node_y,
        _h_nodes,
    ],
    report(
        [
            finding(H_PAREN, "CrashLoopBackOff (9 restarts)", "unknown", [_pod_row(H_PAREN)]),
            finding(H_DASH, "CrashLoopBackOff - 9 restarts", "unknown", [_pod_row(H_DASH)]),
            finding(H_COLON, "CrashLoopBackOff, restarts: 9", "unknown", [_pod_row(H_COLON)]),
            finding(H_READYAFTER, "CrashLoopBackOff, 0/1 ready", "unknown", [_pod_row(H_READYAFTER)]),
            finding(H_AGE, "CrashLoopBackOff, 9 restarts in 41m", "unknown", [_pod_row(H_AGE)]),
            finding(
                H_WIDE, "CrashLoopBackOff, READY 0/1, 9 restarts", "unknown", [quote(_WIDE_MSG, _h_events)]
            ),
            finding(H_BUT, "Running but not ready (0/1)", "readiness_probe_failure", [_pod_row(H_BUT)]),
            finding(
                H_PENDING,
                "Pending: Unschedulable",
                "insufficient_resources",
                [quote('"reason": "Unschedulable"', _h_pending), quote(_UNSCHED, _h_pending)],
            ),
            finding(H_ERROR, "Error (exit code 1)", "crash_application", [_pod_row(H_ERROR)]),
            finding(
                H_OOM,
                "Terminated: OOMKilled (exit 137)",
                "oom_killed",
                [quote("State: Terminated Reason: OOMKilled Exit Code: 137", _h_oom)],
            ),
            finding(H_STS, "READY 0/1", "unknown", [quote(_STS_MSG, _h_sts_pod)], kind="other"),
            finding(H_DEP, "READY 0/1, 0 available", "unknown", [_pod_row(H_PAREN)], kind="deployment"),
            finding(
                H_NODE_UNKNOWN,
                "NotReady (Ready=Unknown)",
                "node_not_ready",
                [quote(_STOPPED, _h_node_u)],
                kind="node",
                namespace=None,
            ),
            finding(
                H_NODE_FALSE,
                "NotReady",
                "node_not_ready",
                [quote(_CNI, _h_node_y)],
                kind="node",
                namespace=None,
            ),
            finding(
                H_NODE_CORDON,
                "Ready,SchedulingDisabled",
                "unschedulable",
                [quote(row(_h_nodes_text, H_NODE_CORDON), _h_nodes)],
                kind="node",
                namespace=None,
            ),
        ],
        examples=[H_OK],
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)


def test_honest_restarts_in_parentheses(impl: Any, run: Run) -> None:
    """False alarm: 'CrashLoopBackOff (9 restarts)' from a row `0/1 CrashLoopBackOff 9 (2m ago)`."""
    assert_finding_ok(run(HONEST3), H_PAREN)


def test_honest_restarts_after_a_dash(impl: Any, run: Run) -> None:
    """False alarm: 'CrashLoopBackOff - 9 restarts'. Reading: a lone '-' is punctuation (hyphens dropped)."""
    assert_finding_ok(run(HONEST3), H_DASH)


def test_honest_restarts_label_colon_value(impl: Any, run: Run) -> None:
    """False alarm: 'restarts: 9' (label, colon, value): the value right after the label is RESTARTS'."""
    assert_finding_ok(run(HONEST3), H_COLON)


def test_honest_ready_fraction_before_its_label(impl: Any, run: Run) -> None:
    """False alarm: '0/1 ready' (count before its name, as `2 restarts`, `2 unavailable`). Reading: this
    is READY 0/1, not a bare `Ready` label claimed to hold."""
    assert_finding_ok(run(HONEST3), H_READYAFTER)


def test_honest_restarts_in_age(impl: Any, run: Run) -> None:
    """False alarm: '9 restarts in 41m'. Reading: `in` is a joining word and AGE 41m is one of the row's
    other cells (not NODE, IP, LABELS, MESSAGE)."""
    assert_finding_ok(run(HONEST3), H_AGE)


def test_honest_quote_from_kubectl_get_events_wide(impl: Any, run: Run) -> None:
    """False alarm: a BackOff message quoted from `kubectl get events -o wide` (OBJECT pod/x; NAME holds the
    event's own name x.187...). Reading: an OBJECT pod/x row is an event about x."""
    assert_finding_ok(run(HONEST3), H_WIDE)


def test_honest_running_but_not_ready(impl: Any, run: Run) -> None:
    """False alarm: 'Running but not ready (0/1)' for a row `0/1 Running 0`. Reading: `but` joins as `and`."""
    assert_finding_ok(run(HONEST3), H_BUT)


def test_honest_pending_colon_unschedulable_json(impl: Any, run: Run) -> None:
    """False alarm: 'Pending: Unschedulable' for a JSON pod, phase Pending, PodScheduled False with reason
    Unschedulable; quotes `"reason": "Unschedulable"` and the condition's message."""
    assert_finding_ok(run(HONEST3), H_PENDING)


def test_honest_error_exit_code_in_parentheses_json(impl: Any, run: Run) -> None:
    """False alarm: 'Error (exit code 1)' for a Job's pod: table STATUS Error, JSON terminated exitCode 1."""
    assert_finding_ok(run(HONEST3), H_ERROR)


def test_honest_terminated_oomkilled_exit_137_describe(impl: Any, run: Run) -> None:
    """False alarm: 'Terminated: OOMKilled (exit 137)', describe State Terminated / OOMKilled / Exit Code 137.
    Reading: `exit` is the Exit Code label as models shorten it; the quote drops describe's indentation."""
    assert_finding_ok(run(HONEST3), H_OOM)


def test_honest_statefulset_as_other_resting_on_its_pod(impl: Any, run: Run) -> None:
    """False alarm: kind `other` StatefulSet `db` READY 0/1 (its own row), quoting its pod db-0's event
    (Controlled By: StatefulSet/db): for `other`, its pods' records count."""
    assert_finding_ok(run(HONEST3), H_STS)


def test_honest_deployment_resting_on_its_pod_s_row(impl: Any, run: Run) -> None:
    """False alarm: Deployment `api` 'READY 0/1, 0 available' (its row) quoting its pod's table row."""
    assert_finding_ok(run(HONEST3), H_DEP)


def test_honest_node_notready_with_ready_unknown(impl: Any, run: Run) -> None:
    """False alarm: node 'NotReady (Ready=Unknown)' from describe (Ready Unknown, NodeStatusUnknown)."""
    assert_finding_ok(run(HONEST3), H_NODE_UNKNOWN)


def test_honest_node_notready_from_describe_alone(impl: Any, run: Run) -> None:
    """False alarm: node 'NotReady' (the docs' own example) resting on describe alone, Ready False."""
    assert_finding_ok(run(HONEST3), H_NODE_FALSE)


def test_honest_cordoned_node_status_as_kubectl_prints_it(impl: Any, run: Run) -> None:
    """False alarm: node 'Ready,SchedulingDisabled' copied from its STATUS cell."""
    assert_finding_ok(run(HONEST3), H_NODE_CORDON)


def test_honest_whole_report_is_accepted_with_no_correction(impl: Any, run: Run) -> None:
    """False alarm: the honest report as a whole: exit 0, verified, no correction turn."""
    assert_accepted(run(HONEST3))


# =============================================================================================
# ATTACK3: false statuses whose every word is true of some field.
# =============================================================================================

A_RCOLON = "worker-29948485-b2c4d"  # describe: Exit Code 9, Restart Count 0; claimed "restarts: 9"
A_RTIMES = "export-29948485-f2g4h"  # JSON: exitCode 9, restartCount 0; claimed "restarted 9 times"
A_EXIT0 = "resize-29948485-k2m4p"  # describe: OOMKilled exit 137, Restart Count 0; claimed "exit 0"
A_NODE_TRUE = "node-p"  # describe: Ready False, DiskPressure True; claimed "Ready: True"
A_CORDON = "node-x"  # table: NotReady,SchedulingDisabled; claimed "Ready, SchedulingDisabled"
A_INIT = "migrate-7d9f8c6b5-m2n4p"  # table: READY 0/1, Init:1/2; claimed "Init:0/1"
A_NOTRUN = "idle-6c7d8f9b5-w2x4z"  # table: 1/1 Running 0; claimed "not Running"
A_EXAMPLE = "stats-5c6d7f8b9-q2r4s"  # table: 1/1 Running, describe Ready False; healthy example
A_ONEREADY = "promo-6c7d8f9b5-j2k4m"  # table: 0/1 Running 0; claimed "1 ready"
A_NORESTART = "quote-7d9f8c6b5-n2p4q"  # table: 0/1 CrashLoopBackOff 9 (2m ago); claimed "no restarts"
A_UNSCHED = "node-k"  # describe: Ready True, Unschedulable: false; claimed "Unschedulable"

_a_rcolon = _describe(
    "call_1", A_RCOLON, _job_pod_describe(A_RCOLON, "worker-29948485", "worker", "Error", 9)
)
_A_EXPORT_MSG = "export failed: upstream returned 503 for batch 7 of 12"
_a_rtimes = _get(
    "call_2",
    A_RTIMES,
    pretty(_job_pod_json(A_RTIMES, "export-29948485", "export", "Error", 9, _A_EXPORT_MSG)),
)
_a_exit0 = _describe(
    "call_3", A_EXIT0, _job_pod_describe(A_EXIT0, "resize-29948485", "resize", "OOMKilled", 137)
)
_A_DISK = "kubelet has disk pressure"
_a_node = _describe(
    "call_4",
    A_NODE_TRUE,
    describe_node(
        A_NODE_TRUE,
        [
            (
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            ("DiskPressure", "True", "KubeletHasDiskPressure", _A_DISK),
            ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            ("Ready", "False", "KubeletNotReady", "PLEG is not healthy: pleg was last seen active 3m0s ago"),
        ],
    ),
    kind="node",
    namespace=None,
)
_a_nodes_text = kubectl_table(
    ["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
    [
        [A_CORDON, "NotReady,SchedulingDisabled", "worker", "90d", "v1.31.2"],
        ["node-s", "Ready", "worker", "90d", "v1.31.2"],
    ],
)
_a_nodes = Call("call_5", "kubectl_get", {"resourceType": "nodes"}, _a_nodes_text)
_a_pods_text = kubectl_table(
    ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
    [
        [A_INIT, "0/1", "Init:1/2", "0", "2m"],
        [A_NOTRUN, "1/1", "Running", "0", "3d"],
        [A_EXAMPLE, "1/1", "Running", "0", "3d"],
        [A_ONEREADY, "0/1", "Running", "0", "3d"],
        [A_NORESTART, "0/1", "CrashLoopBackOff", "9 (2m ago)", "41m"],
    ],
)
_a_pods = Call("call_6", "kubectl_get", {"resourceType": "pods", "namespace": NS}, _a_pods_text)
_a_stats = _describe(
    "call_7",
    A_EXAMPLE,
    describe_pod(
        A_EXAMPLE,
        container="stats",
        controlled_by="ReplicaSet/stats-5c6d7f8b9",
        labels=["app=stats", "pod-template-hash=5c6d7f8b9"],
        ready="False",
        conditions=[
            ("PodReadyToStartContainers", "True"),
            ("Initialized", "True"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
            ("PodScheduled", "True"),
        ],
    ),
)

_A_POSTING = "kubelet is posting ready status"
_a_node_k = _describe(
    "call_8",
    A_UNSCHED,
    describe_node(
        A_UNSCHED,
        [
            (
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            ("Ready", "True", "KubeletReady", _A_POSTING),
        ],
    ),
    kind="node",
    namespace=None,
)

ATTACK3 = Scenario(
    "outside3-attack",
    FLUX,
    [_a_rcolon, _a_rtimes, _a_exit0, _a_node, _a_nodes, _a_pods, _a_stats, _a_node_k],
    report(
        [
            finding(
                A_RCOLON,
                "Error, restarts: 9",
                "crash_application",
                [quote("State: Terminated Reason: Error Exit Code: 9", _a_rcolon)],
            ),
            finding(
                A_RTIMES, "Error, restarted 9 times", "crash_application", [quote(_A_EXPORT_MSG, _a_rtimes)]
            ),
            finding(
                A_EXIT0,
                "Terminated: OOMKilled (exit 0)",
                "oom_killed",
                [quote("State: Terminated Reason: OOMKilled Exit Code: 137", _a_exit0)],
            ),
            finding(
                A_NODE_TRUE,
                "DiskPressure, Ready: True",
                "node_pressure",
                [quote(_A_DISK, _a_node)],
                kind="node",
                namespace=None,
            ),
            finding(
                A_CORDON,
                "Ready, SchedulingDisabled",
                "unschedulable",
                [quote(row(_a_nodes_text, A_CORDON), _a_nodes)],
                kind="node",
                namespace=None,
            ),
            finding(
                A_INIT, "Init:0/1", "init_container_failure", [quote(row(_a_pods_text, A_INIT), _a_pods)]
            ),
            finding(A_NOTRUN, "not Running", "unknown", [quote(row(_a_pods_text, A_NOTRUN), _a_pods)]),
            finding(
                A_ONEREADY, "Running, 1 ready", "unknown", [quote(row(_a_pods_text, A_ONEREADY), _a_pods)]
            ),
            finding(
                A_NORESTART,
                "CrashLoopBackOff, no restarts",
                "crash_config",
                [quote(row(_a_pods_text, A_NORESTART), _a_pods)],
            ),
            finding(
                A_UNSCHED,
                "Unschedulable",
                "unschedulable",
                [quote(_A_POSTING, _a_node_k)],
                kind="node",
                namespace=None,
            ),
        ],
        examples=[A_EXAMPLE],
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)


def test_number_restarts_colon_takes_the_exit_code(impl: Any, run: Run) -> None:
    """Numbers: 'Error, restarts: 9' for a describe'd pod with Exit Code 9 and Restart Count 0."""
    assert_status_rejected(run(ATTACK3), A_RCOLON)


def test_number_restarted_n_times_takes_the_exit_code(impl: Any, run: Run) -> None:
    """Numbers: 'Error, restarted 9 times' for a JSON pod with exitCode 9 and restartCount 0. Reading: a
    claim of 9 restarts in any wording is a claim about RESTARTS (or, unread, a word no field holds)."""
    assert_status_rejected(run(ATTACK3), A_RTIMES)


def test_number_exit_0_takes_the_restart_count(impl: Any, run: Run) -> None:
    """Numbers: 'Terminated: OOMKilled (exit 0)' where Exit Code is 137 and 0 is the Restart Count."""
    assert_status_rejected(run(ATTACK3), A_EXIT0)


def test_pairs_ready_colon_true_takes_disk_pressure_s_value(impl: Any, run: Run) -> None:
    """Pairs: 'DiskPressure, Ready: True' for a node whose Ready is False and DiskPressure True."""
    assert_status_rejected(run(ATTACK3), A_NODE_TRUE)


def test_meaning_ready_inside_a_notready_cell(impl: Any, run: Run) -> None:
    """Meaning: 'Ready, SchedulingDisabled' for a node whose STATUS cell is NotReady,SchedulingDisabled:
    `Ready` alone claims it holds; the cell says it does not."""
    assert_status_rejected(run(ATTACK3), A_CORDON)


def test_meaning_init_progress_taken_from_the_ready_column(impl: Any, run: Run) -> None:
    """Meaning: 'Init:0/1' for a pod whose STATUS is Init:1/2 (READY 0/1). Reading: `Init:N/M` is one
    value of STATUS, not an `Init` word beside a ready fraction."""
    assert_status_rejected(run(ATTACK3), A_INIT)


def test_meaning_not_before_a_value_negates_it(impl: Any, run: Run) -> None:
    """Meaning: 'not Running' for a row `1/1 Running 0`. Reading: `not` negates the value after it as it
    does a label (`not Ready`); the status must be what the tools showed."""
    assert_status_rejected(run(ATTACK3), A_NOTRUN)


def test_healthy_example_a_running_row_whose_describe_says_not_ready(impl: Any, run: Run) -> None:
    """Healthy examples: a row `1/1 Running 0` beside a describe block of the same pod with Ready False:
    a record that shows it unhealthy (`Ready False`) refuses it."""
    assert_example_rejected(run(ATTACK3), A_EXAMPLE)


def test_number_one_ready_against_a_ready_fraction_0_of_1(impl: Any, run: Run) -> None:
    """Numbers: 'Running, 1 ready' for a row `0/1 Running 0`: the number beside READY must be READY's
    (0 of 1 ready), not the fraction's denominator."""
    assert_status_rejected(run(ATTACK3), A_ONEREADY)


def test_meaning_no_restarts_for_a_pod_with_nine(impl: Any, run: Run) -> None:
    """Meaning: 'CrashLoopBackOff, no restarts' for a row with RESTARTS `9 (2m ago)`. Reading: `no restarts`
    is a claim of 0 restarts (as `0 restarts`), not two joining words."""
    assert_status_rejected(run(ATTACK3), A_NORESTART)


def test_meaning_unschedulable_for_a_schedulable_node(impl: Any, run: Run) -> None:
    """Meaning: 'Unschedulable' for a node whose describe says `Unschedulable: false`, Ready True: a label
    written alone claims it holds, and no field says this node is unschedulable."""
    assert_status_rejected(run(ATTACK3), A_UNSCHED)
