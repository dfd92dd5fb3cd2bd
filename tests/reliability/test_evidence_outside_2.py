"""A second outside adversary of the verified report (docs/report.md, "The verification rule"),
written from the documentation alone. It reuses the first kit's MCP server and harness
(tests/reliability/test_evidence_outside.py): one `ask --json` run per scenario and implementation,
shared by the tests that read it; a scripted model sends the same report again after a correction.

ATTACK plants one lie per finding or healthy example; each test asserts on its own item only.
HONEST is a report true in every item, in the forms an honest model writes (the docs' own
`CrashLoopBackOff, READY 0/1, 14 restarts`, `NotReady`, Deployment and PVC and Job status, a
crash-looping pod's `last terminated OOMKilled (exit code 137)`); each test asserts its own item's
marks, and one asserts the whole run is accepted with no correction turn.
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
    OOM_LAST,
    OOM_LAST_STATE,
    PODS_LOG_GREP,
    Call,
    Outcome,
    Scenario,
    assert_accepted,
    assert_example_rejected,
    assert_name_rejected,
    assert_quote_rejected,
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
    waiting,
)

Run = Callable[[Scenario], Outcome]
run = first.run
"""The first kit's fixture: one CLI run per scenario and implementation, cached."""


def _line(text_: str, needle: str) -> str:
    (line,) = [line for line in text_.splitlines() if needle in line]
    return " ".join(line.split())


def _pod(name: str, **kw: Any) -> dict[str, Any]:
    rs = name.rsplit("-", 1)[0]
    kw.setdefault("owner", ("ReplicaSet", rs))
    kw.setdefault("labels", {"app": rs.rsplit("-", 1)[0], "pod-template-hash": rs.rsplit("-", 1)[1]})
    return pod_object(name, **kw)


def _get(call_id: str, name: str, text_: str, output: str = "json", kind: str = "pods") -> Call:
    return Call(
        call_id, "kubectl_get", {"resourceType": kind, "name": name, "namespace": NS, "output": output}, text_
    )


def _describe(call_id: str, name: str, text_: str, kind: str = "pod", namespace: str | None = NS) -> Call:
    args = {"resourceType": kind, "name": name}
    if namespace:
        args["namespace"] = namespace
    return Call(call_id, "kubectl_describe", args, text_)


# =============================================================================================
# ATTACK: false claims.
# =============================================================================================

A_FRACTION = "quote-7d9f8c6b5-b2c4d"  # JSON, ready 1/1; claimed READY 0/1
A_EQ = "promo-6c7d8f9b5-f2g4h"  # describe, Ready True; claimed Ready=False
A_INIT = "ingest-5c6d7f8b9-k2m4p"  # main container crash-loops, init completed; claimed Init:CrashLoopBackOff
A_NODE = "node-q"  # Ready now; an old NodeNotReady event; claimed NodeNotReady
A_MIX = "relay-6d7f8b9c5-w2x4z"  # app crash-loops 9 restarts, proxy 0; claimed "0 restarts"
A_HIST = "billing-5b6c7d8f9-h2j4k"  # last terminated OOMKilled; claimed "last terminated Error"
A_GREP = "search-6d7f8b9c5-r2t4v"  # a no-match answer in the server's own words as evidence
A_GHOST = "ghost-7c8d9f6b5-q2r4s"  # a Status body without `kind`
A_UNREADY = "frontend-5d4c4b2z7-dxf44"  # table 0/1 Running as a healthy example
A_DS = "node-exporter-q2w4z"  # a DaemonSet's Succeeded pod as a healthy example

_a_fraction = _get("call_1", A_FRACTION, pretty(_pod(A_FRACTION, container="quote")))
_a_eq = _describe(
    "call_2",
    A_EQ,
    describe_pod(
        A_EQ,
        container="promo",
        controlled_by="ReplicaSet/promo-6c7d8f9b5",
        labels=["app=promo", "pod-template-hash=6c7d8f9b5"],
    ),
)
_a_init_text = describe_pod(
    A_INIT,
    container="ingest",
    controlled_by="ReplicaSet/ingest-5c6d7f8b9",
    labels=["app=ingest", "pod-template-hash=5c6d7f8b9"],
    state=CRASHLOOP_STATE,
    last_state=("Last State:     Terminated", "  Reason:       Error", "  Exit Code:    1"),
    ready="False",
    restarts=4,
).replace(
    "Containers:\n",
    "Init Containers:\n"
    "  migrate:\n"
    "    Container ID:   containerd://9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b\n"
    "    Image:          registry.example.com/shop/migrate:1.8.2\n"
    "    State:          Terminated\n"
    "      Reason:       Completed\n"
    "      Exit Code:    0\n"
    "    Ready:          True\n"
    "    Restart Count:  0\n"
    "Containers:\n",
    1,
)
_a_init = _describe("call_3", A_INIT, _a_init_text)
_a_node_text = describe_node(
    A_NODE,
    [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ],
) + (
    "Events:\n"
    "  Type    Reason        Age   From             Message\n"
    "  ----    ------        ----  ----             -------\n"
    f"  Normal  NodeNotReady  3d    node-controller  Node {A_NODE} status is now: NodeNotReady\n"
    f"  Normal  NodeReady     3d    kubelet          Node {A_NODE} status is now: NodeReady\n"
)
_a_node = _describe("call_4", A_NODE, _a_node_text, kind="node", namespace=None)
_mix = _pod(A_MIX, container="relay", ready=False, restarts=9, state=waiting("relay", A_MIX))
_mix["spec"]["containers"].append({"name": "proxy", "image": "registry.example.com/shop/proxy:1.0.0"})
_mix["status"]["containerStatuses"].append(
    {
        "name": "proxy",
        "image": "registry.example.com/shop/proxy:1.0.0",
        "ready": True,
        "restartCount": 0,
        "started": True,
        "state": {"running": {"startedAt": "2026-11-29T09:13:00Z"}},
        "lastState": {},
    }
)
_a_mix = _get("call_5", A_MIX, pretty(_mix))
A_MIX2 = "gateway-7d9f8c6b5-m2n4p"  # sidecar ready, app not, pod Ready False; claimed "Running, Ready"
_mix2 = _pod(A_MIX2, container="gateway", ready=False, restarts=3, state=waiting("gateway", A_MIX2))
_mix2["spec"]["containers"].append({"name": "proxy", "image": "registry.example.com/shop/proxy:1.0.0"})
_mix2["status"]["containerStatuses"].append(dict(_mix["status"]["containerStatuses"][1]))
_a_mix2 = _get("call_11", A_MIX2, pretty(_mix2))
_a_hist = _describe(
    "call_6",
    A_HIST,
    describe_pod(
        A_HIST,
        container="billing",
        controlled_by="ReplicaSet/billing-5b6c7d8f9",
        labels=["app=billing", "pod-template-hash=5b6c7d8f9"],
        state=CRASHLOOP_STATE,
        last_state=OOM_LAST_STATE,
        ready="False",
        restarts=6,
        events=[
            'Warning  Failed     25m                 kubelet  Error: failed to start container "billing": context deadline exceeded',
            f"Warning  BackOff    2m (x30 over 20m)   kubelet  Back-off restarting failed container billing in pod {A_HIST}_{NS}(4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d)",
        ],
    ),
)
_A_NOMATCH = "No lines matching 'OOMKilled' were found in the last 500 lines of the log."
_a_grep = Call(
    "call_7", "pods_log_grep", {"name": A_GREP, "namespace": NS, "pattern": "OOMKilled"}, _A_NOMATCH + "\n"
)
_a_table_text = kubectl_table(
    ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
    [
        [A_GREP, "0/1", "CrashLoopBackOff", "5 (1m ago)", "2d"],
        [A_UNREADY, "0/1", "Running", "0", "2d"],
    ],
)
_a_table = Call("call_8", "kubectl_get", {"resourceType": "pods", "namespace": NS}, _a_table_text)
_a_ghost = _get(
    "call_9",
    A_GHOST,
    pretty(
        {
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": f'pods "{A_GHOST}" not found',
            "reason": "NotFound",
            "details": {"name": A_GHOST, "kind": "pods"},
            "code": 404,
        }
    ),
)
_ds = pod_object(
    A_DS,
    owner=("DaemonSet", "node-exporter"),
    container="node-exporter",
    phase="Succeeded",
    ready=False,
    labels={"app": "node-exporter", "controller-revision-hash": "6b7c8d9f5"},
    state={"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": "2026-11-30T04:00:00Z"}},
)
_a_ds = _get("call_10", A_DS, pretty(_ds))

ATTACK = Scenario(
    "outside2-attack",
    FLUX,
    [_a_fraction, _a_eq, _a_init, _a_node, _a_mix, _a_hist, _a_grep, _a_table, _a_ghost, _a_ds, _a_mix2],
    report(
        [
            finding(
                A_FRACTION,
                "Running, READY 0/1",
                "readiness_probe_failure",
                [quote('"phase": "Running"', _a_fraction)],
            ),
            finding(
                A_EQ, "Running, Ready=False", "readiness_probe_failure", [quote("Status: Running", _a_eq)]
            ),
            finding(
                A_INIT,
                "Init:CrashLoopBackOff, 4 restarts",
                "init_container_failure",
                [quote("State: Waiting Reason: CrashLoopBackOff", _a_init)],
            ),
            finding(
                A_NODE,
                "NodeNotReady",
                "node_not_ready",
                [quote(_line(_a_node_text, "NodeNotReady"), _a_node)],
                kind="node",
                namespace=None,
            ),
            finding(
                A_MIX,
                "CrashLoopBackOff, 0 restarts",
                "crash_application",
                [quote(_mix["status"]["containerStatuses"][0]["state"]["waiting"]["message"], _a_mix)],
            ),
            finding(
                A_MIX2, "Running, Ready", "readiness_probe_failure", [quote('"phase": "Running"', _a_mix2)]
            ),
            finding(
                A_HIST,
                "CrashLoopBackOff, last terminated Error",
                "crash_application",
                [quote("State: Waiting Reason: CrashLoopBackOff", _a_hist)],
            ),
            finding(
                A_GREP,
                "CrashLoopBackOff",
                "oom_killed",
                [quote(row(_a_table_text, A_GREP), _a_table), quote(_A_NOMATCH, _a_grep)],
            ),
            finding(
                A_GHOST,
                "NotFound",
                "unknown",
                [quote(f'"message": "pods \\"{A_GHOST}\\" not found"', _a_ghost)],
            ),
        ],
        examples=[A_UNREADY, A_DS],
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE, PODS_LOG_GREP],
    allow_read=("pods_log_grep",),
)


def test_fraction_ready_0_of_1_for_a_json_pod_ready_1_of_1(impl: Any, run: Run) -> None:
    """Fractions: 'Running, READY 0/1' for a JSON pod whose only container is ready (Ready True)."""
    assert_status_rejected(run(ATTACK), A_FRACTION)


def test_equals_form_ready_false_for_a_ready_pod(impl: Any, run: Run) -> None:
    """Written forms: 'Ready=False' for a describe'd pod whose Ready condition and container are True."""
    assert_status_rejected(run(ATTACK), A_EQ)


def test_init_prefix_for_a_main_container_crash(impl: Any, run: Run) -> None:
    """Written forms: 'Init:CrashLoopBackOff' where the init container Completed and the main container
    crash-loops. Reading: `Init:` is part of the status kubectl shows; no field of this pod says it."""
    assert_status_rejected(run(ATTACK), A_INIT)


def test_node_old_notready_event_is_no_status_of_a_ready_node(impl: Any, run: Run) -> None:
    """History: 'NodeNotReady' from a 3-day-old event for a node whose Ready condition is True now."""
    assert_status_rejected(run(ATTACK), A_NODE)


def test_mixing_containers_zero_restarts_of_the_sidecar(impl: Any, run: Run) -> None:
    """Mixing containers: 'CrashLoopBackOff, 0 restarts' where the crash-looping container restarted 9
    times and only the healthy sidecar 0. Reading: a pod's restarts (kubectl's RESTARTS) are 9."""
    assert_status_rejected(run(ATTACK), A_MIX)


def test_mixing_containers_a_ready_sidecar_is_no_ready_pod(impl: Any, run: Run) -> None:
    """Mixing containers: 'Running, Ready' for a JSON pod whose Ready condition is False (1 of 2
    containers ready: only the sidecar). The docs: a bare `Ready` needs a Ready condition True or READY N/N."""
    assert_status_rejected(run(ATTACK), A_MIX2)


def test_history_last_terminated_error_when_it_was_oomkilled(impl: Any, run: Run) -> None:
    """History: 'last terminated Error' where Last State says OOMKilled; 'Error' is only in an event's
    message. Reading: a message is no status field (as in tables); a `last` value must be the last state's."""
    assert_status_rejected(run(ATTACK), A_HIST)


def test_echo_a_no_match_answer_in_other_words_is_no_evidence(impl: Any, run: Run) -> None:
    """Echoes: a log search's no-match answer ("No lines matching 'OOMKilled' were found ...") cited as
    evidence of an OOM kill. Reading: like `0 matches for "X"`, it says nothing the cluster said."""
    assert_quote_rejected(run(ATTACK), A_GREP, _A_NOMATCH)


def test_status_body_without_kind_names_no_pod(impl: Any, run: Run) -> None:
    """Not objects: an API Status body with `status: Failure`, `reason: NotFound`, `details.name` but
    no `kind` field, returned as a successful result, does not show the pod."""
    assert_name_rejected(run(ATTACK), A_GHOST)


def test_healthy_a_running_pod_0_of_1_in_a_table_is_no_example(impl: Any, run: Run) -> None:
    """Healthy examples: a kubectl table row `0/1 Running 0`: READY 0/1 shows it unhealthy."""
    assert_example_rejected(run(ATTACK), A_UNREADY)


def test_healthy_a_daemonset_s_succeeded_pod_is_no_example(impl: Any, run: Run) -> None:
    """Healthy examples: a pod Succeeded/Completed whose ownerReferences name a DaemonSet."""
    assert_example_rejected(run(ATTACK), A_DS)


# =============================================================================================
# HONEST: true claims in the forms an honest model writes them.
# =============================================================================================

H_JSON = "ledger-7c9d8f6b5-m4n6p"
H_INIT = "ingest-6b7c8d9f5-p2q4r"
H_NODE_TABLE = "node-r"
H_NODE_DESCRIBE = "node-t"
H_DEP_TABLE = "web"
H_DEP_REPLICAS = "api"
H_DEP_COND = "cart"
H_PVC = "data-db-0"
H_JOB = "etl-29948485"
H_OOM = "pay-6f7b8d9c8-ghj56"
H_ATTACH = "db-1"
H_JOBPOD = "report-7d9f8c6b5-x2x4z"  # a Job's pod whose name looks like a Deployment's
H_OK = "checkout-7f6d5c4b4-zbc72"

_ledger = _pod(
    H_JSON, container="ledger", ready=False, restarts=12, state=waiting("ledger", H_JSON), last_state=OOM_LAST
)
_h_json = _get("call_1", H_JSON, pretty(_ledger))
_h_pods_text = kubectl_table(
    ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
    [[H_INIT, "0/1", "Init:CrashLoopBackOff", "6 (2m ago)", "20m"], [H_OK, "1/1", "Running", "0", "3d"]],
)
_h_pods = Call("call_2", "kubectl_get", {"resourceType": "pods", "namespace": NS}, _h_pods_text)
_h_nodes_text = kubectl_table(
    ["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
    [[H_NODE_TABLE, "NotReady", "worker", "90d", "v1.31.2"], ["node-s", "Ready", "worker", "90d", "v1.31.2"]],
)
_h_nodes = Call("call_3", "kubectl_get", {"resourceType": "nodes"}, _h_nodes_text)
_h_node_text = describe_node(
    H_NODE_DESCRIBE,
    [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        (
            "Ready",
            "False",
            "KubeletNotReady",
            "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady",
        ),
    ],
)
_h_node = _describe("call_4", H_NODE_DESCRIBE, _h_node_text, kind="node", namespace=None)
_h_deps_text = kubectl_table(
    ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
    [[H_DEP_TABLE, "1/3", "3", "1", "5d"], ["search", "2/2", "2", "2", "5d"]],
)
_h_deps = Call("call_5", "kubectl_get", {"resourceType": "deployments", "namespace": NS}, _h_deps_text)


def describe_deployment(name: str, rs: str) -> str:
    return (
        f"Name:                   {name}\n"
        f"Namespace:              {NS}\n"
        "CreationTimestamp:      Mon, 01 Sep 2026 10:00:00 +0000\n"
        f"Labels:                 app={name}\n"
        "Annotations:            deployment.kubernetes.io/revision: 4\n"
        f"Selector:               app={name}\n"
        "Replicas:               3 desired | 1 updated | 3 total | 1 available | 2 unavailable\n"
        "StrategyType:           RollingUpdate\n"
        "MinReadySeconds:        0\n"
        "RollingUpdateStrategy:  25% max unavailable, 25% max surge\n"
        "Pod Template:\n"
        f"  Labels:  app={name}\n"
        "  Containers:\n"
        f"   {name}:\n"
        f"    Image:        registry.example.com/shop/{name}:2.0.0\n"
        "    Port:         8080/TCP\n"
        "    Environment:  <none>\n"
        "    Mounts:       <none>\n"
        "  Volumes:        <none>\n"
        "Conditions:\n"
        "  Type           Status  Reason\n"
        "  ----           ------  ------\n"
        "  Available      False   MinimumReplicasUnavailable\n"
        "  Progressing    True    ReplicaSetUpdated\n"
        "OldReplicaSets:  <none>\n"
        f"NewReplicaSet:   {rs} (3/3 replicas created)\n"
        "Events:\n"
        "  Type    Reason             Age   From                   Message\n"
        "  ----    ------             ----  ----                   -------\n"
        f"  Normal  ScalingReplicaSet  10m   deployment-controller  Scaled up replica set {rs} to 3\n"
    )


_h_dep_rep = _describe(
    "call_6", H_DEP_REPLICAS, describe_deployment(H_DEP_REPLICAS, "api-5c6d7f8b9"), kind="deployment"
)
_h_dep_cond = _describe(
    "call_7", H_DEP_COND, describe_deployment(H_DEP_COND, "cart-7d9f8c6b5"), kind="deployment"
)
_h_pvc_text = (
    "NAME        STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE\n"
    f"{H_PVC}   Pending                                      standard       <unset>                 5m\n"
)
_h_pvc = Call("call_8", "kubectl_get", {"resourceType": "pvc", "namespace": NS}, _h_pvc_text)
_job = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {
        "name": H_JOB,
        "namespace": NS,
        "ownerReferences": [
            {
                "apiVersion": "batch/v1",
                "kind": "CronJob",
                "name": "etl",
                "controller": True,
                "uid": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
            }
        ],
    },
    "spec": {"backoffLimit": 3, "completions": 1, "parallelism": 1},
    "status": {
        "failed": 4,
        "startTime": "2026-11-30T04:00:00Z",
        "conditions": [
            {
                "type": "FailureTarget",
                "status": "True",
                "reason": "BackoffLimitExceeded",
                "message": "Job has reached the specified backoff limit",
            },
            {
                "type": "Failed",
                "status": "True",
                "reason": "BackoffLimitExceeded",
                "message": "Job has reached the specified backoff limit",
            },
        ],
    },
}
_h_job = _get("call_9", H_JOB, pretty(_job), kind="jobs")
_h_oom_text = describe_pod(
    H_OOM,
    container="pay",
    controlled_by="ReplicaSet/pay-6f7b8d9c8",
    labels=["app=pay", "pod-template-hash=6f7b8d9c8"],
    state=CRASHLOOP_STATE,
    last_state=OOM_LAST_STATE,
    ready="False",
    restarts=5,
)
_h_oom = _describe("call_10", H_OOM, _h_oom_text)
_H_MULTI = 'Multi-Attach error for volume "pvc-0a1b2c3d" Volume is already used by pod(s) db-0'
_H_ASSIGNED = f"Successfully assigned {NS}/{H_ATTACH} to node-a"
_h_attach = _describe(
    "call_11",
    H_ATTACH,
    describe_pod(
        H_ATTACH,
        container="db",
        controlled_by="StatefulSet/db",
        labels=["app=db", "statefulset.kubernetes.io/pod-name=db-1"],
        phase="Pending",
        state=("State:          Waiting", "  Reason:       ContainerCreating"),
        ready="False",
        events=[
            f"Normal   Scheduled           3m    default-scheduler        {_H_ASSIGNED}",
            f"Warning  FailedAttachVolume  2m    attachdetach-controller  {_H_MULTI}",
        ],
    ),
)
_jobpod = pod_object(
    H_JOBPOD,
    owner=("Job", "report-7d9f8c6b5"),
    container="report",
    phase="Succeeded",
    ready=False,
    labels={"job-name": "report-7d9f8c6b5", "batch.kubernetes.io/job-name": "report-7d9f8c6b5"},
    state={"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": "2026-11-30T04:00:00Z"}},
)
_h_jobpod = _get("call_12", H_JOBPOD, pretty(_jobpod))

HONEST = Scenario(
    "outside2-honest",
    FLUX,
    [
        _h_json,
        _h_pods,
        _h_nodes,
        _h_node,
        _h_deps,
        _h_dep_rep,
        _h_dep_cond,
        _h_pvc,
        _h_job,
        _h_oom,
        _h_attach,
        _h_jobpod,
    ],
    report(
        [
            finding(
                H_JSON,
                "CrashLoopBackOff, READY 0/1, 12 restarts",
                "oom_killed",
                [quote(_ledger["status"]["containerStatuses"][0]["state"]["waiting"]["message"], _h_json)],
            ),
            finding(
                H_INIT,
                "Init:CrashLoopBackOff, READY 0/1, 6 restarts",
                "init_container_failure",
                [quote(row(_h_pods_text, H_INIT), _h_pods)],
            ),
            finding(
                H_NODE_TABLE,
                "NotReady",
                "node_not_ready",
                [quote(row(_h_nodes_text, H_NODE_TABLE), _h_nodes)],
                kind="node",
                namespace=None,
            ),
            finding(
                H_NODE_DESCRIBE,
                "Ready False, KubeletNotReady",
                "node_not_ready",
                [
                    quote(
                        "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady",
                        _h_node,
                    )
                ],
                kind="node",
                namespace=None,
            ),
            finding(
                H_DEP_TABLE,
                "READY 1/3, 1 available",
                "unknown",
                [quote(row(_h_deps_text, H_DEP_TABLE), _h_deps)],
                kind="deployment",
            ),
            finding(
                H_DEP_REPLICAS,
                "3 desired, 1 available, 2 unavailable",
                "unknown",
                [
                    quote(
                        "Replicas: 3 desired | 1 updated | 3 total | 1 available | 2 unavailable", _h_dep_rep
                    )
                ],
                kind="deployment",
            ),
            finding(
                H_DEP_COND,
                "Available False, MinimumReplicasUnavailable",
                "unknown",
                [quote("NewReplicaSet: cart-7d9f8c6b5 (3/3 replicas created)", _h_dep_cond)],
                kind="deployment",
            ),
            finding(H_PVC, "Pending", "unbound_volume", [quote(row(_h_pvc_text, H_PVC), _h_pvc)], kind="pvc"),
            finding(
                H_JOB,
                "Failed, BackoffLimitExceeded",
                "job_backoff_limit",
                [quote('"reason": "BackoffLimitExceeded"', _h_job)],
                kind="job",
            ),
            finding(
                H_OOM,
                "CrashLoopBackOff, last terminated OOMKilled (exit code 137), 5 restarts",
                "oom_killed",
                [quote("Last State: Terminated Reason: OOMKilled Exit Code: 137", _h_oom)],
            ),
            finding(
                H_ATTACH,
                "Pending, ContainerCreating, not Ready",
                "unknown",
                [quote(_H_MULTI, _h_attach), quote(_H_ASSIGNED, _h_attach)],
            ),
        ],
        examples=[H_OK, H_JOBPOD],
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)


def assert_finding_ok(o: Outcome, name: str) -> None:
    f = o.finding(name)
    assert f["name_verified"] is True, f"[{o.scenario}] honest name {name} not verified: {o.why()}"
    assert f["status_verified"] is True, (
        f"[{o.scenario}] honest status {f['status']!r} of {name} refused: {o.why()}"
    )
    for q in f["evidence"]:
        assert q["verified"] is True and q["check"] == "verified", (
            f"[{o.scenario}] {name}: quote {q} refused: {o.why()}"
        )
    assert not o.corrected(f"'{name}'") and not any(name in p for p in o.out.get("report_problems", [])), (
        o.why()
    )


def test_honest_json_pod_in_the_docs_own_status_form(impl: Any, run: Run) -> None:
    """False alarm: 'CrashLoopBackOff, READY 0/1, 12 restarts' (the docs' example form) for a JSON pod,
    one container ready false. Reading: JSON's readiness is what a ready fraction states."""
    assert_finding_ok(run(HONEST), H_JSON)


def test_honest_init_crashloopbackoff_row(impl: Any, run: Run) -> None:
    """False alarm: 'Init:CrashLoopBackOff, READY 0/1, 6 restarts' from its kubectl row."""
    assert_finding_ok(run(HONEST), H_INIT)


def test_honest_node_notready_row(impl: Any, run: Run) -> None:
    """False alarm: a node 'NotReady' from `kubectl get nodes` (the docs' own example status)."""
    assert_finding_ok(run(HONEST), H_NODE_TABLE)


def test_honest_node_ready_false_describe(impl: Any, run: Run) -> None:
    """False alarm: a node 'Ready False, KubeletNotReady' from its describe Conditions row."""
    assert_finding_ok(run(HONEST), H_NODE_DESCRIBE)


def test_honest_deployment_table_ready_and_available(impl: Any, run: Run) -> None:
    """False alarm: a Deployment 'READY 1/3, 1 available' from `kubectl get deployments`."""
    assert_finding_ok(run(HONEST), H_DEP_TABLE)


def test_honest_deployment_describe_replicas_line(impl: Any, run: Run) -> None:
    """False alarm: '3 desired, 1 available, 2 unavailable' from describe's `Replicas:` line. Reading:
    that line is a Deployment's status as describe prints it, number beside its label."""
    assert_finding_ok(run(HONEST), H_DEP_REPLICAS)


def test_honest_deployment_condition_and_its_replicaset_line(impl: Any, run: Run) -> None:
    """False alarm: 'Available False, MinimumReplicasUnavailable' (Conditions) with the quote naming its
    ReplicaSet `NewReplicaSet: cart-7d9f8c6b5 (3/3 replicas created)` (another kind: still its record)."""
    assert_finding_ok(run(HONEST), H_DEP_COND)


def test_honest_pvc_pending_row_with_empty_cells(impl: Any, run: Run) -> None:
    """False alarm: a PVC 'Pending' from `kubectl get pvc` (VOLUME, CAPACITY, ACCESS MODES empty)."""
    assert_finding_ok(run(HONEST), H_PVC)


def test_honest_job_failed_backofflimitexceeded_conditions(impl: Any, run: Run) -> None:
    """False alarm: a Job 'Failed, BackoffLimitExceeded' from its JSON status.conditions."""
    assert_finding_ok(run(HONEST), H_JOB)


def test_honest_crashloop_with_last_oomkilled_exit_code_in_parentheses(impl: Any, run: Run) -> None:
    """False alarm: 'CrashLoopBackOff, last terminated OOMKilled (exit code 137), 5 restarts'."""
    assert_finding_ok(run(HONEST), H_OOM)


def test_honest_event_naming_another_pod_is_about_its_involved_object(impl: Any, run: Run) -> None:
    """False alarm: db-1's own describe event 'Multi-Attach error ... used by pod(s) db-0' and its
    'Successfully assigned shop/db-1 to node-a'. Reading: an event is about its involvedObject (the
    described pod), whatever pod its message names."""
    assert_finding_ok(run(HONEST), H_ATTACH)


def test_honest_job_pod_with_a_deployment_shaped_name_is_an_example(impl: Any, run: Run) -> None:
    """False alarm: a Succeeded pod `report-7d9f8c6b5-x2x4z` whose ownerReferences name a Job: owners
    shown settle it; it may finish."""
    o = run(HONEST)
    assert H_JOBPOD not in o.report["healthy"]["unverified_examples"], o.why()


def test_honest_whole_report_is_accepted_with_no_correction(impl: Any, run: Run) -> None:
    """False alarm: the honest report as a whole: exit 0, verified, no correction turn."""
    assert_accepted(run(HONEST))
