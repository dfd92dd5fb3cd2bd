"""Grounding: pod, node and namespace names in a report must appear in some tool result."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from k8s_agent_harness.evidence.grounding import (
    NAMESPACE,
    NODE,
    POD,
    Evidence,
    Mention,
    invented_names,
    mentions,
)


def evidence(*texts: str, question: str = "") -> Evidence:
    found = Evidence(question)
    for text in texts:
        found.add(text)
    return found


def test_names_absent_from_every_result_are_invented() -> None:
    seen = evidence("production   payment-service-6f7b8d9c8-ghj56   0/1   CrashLoopBackOff")

    answer = "payment-service-6f7b8d9c8-ghj56 crashes; billing-api-7d8f9c6b5-xk2lm and cache-0-a too."

    assert invented_names(answer, seen) == ["billing-api-7d8f9c6b5-xk2lm", "cache-0-a"]


def test_short_names_and_names_derived_from_evidence_are_accepted() -> None:
    seen = evidence("pod payment-service-6f7b8d9c8-ghj56 on worker-node-1")

    answer = "Roll out deployment payment-service (replicaset payment-service-6f7b8d9c8) on worker-node-1."

    assert invented_names(answer, seen) == []


def test_the_question_counts_as_evidence_and_common_english_is_not_a_name() -> None:
    seen = evidence(question="Why is web-frontend-abc12-xyz9 slow?")

    assert invented_names("web-frontend-abc12-xyz9 is out-of-memory, an up-to-date image helps.", seen) == []


def test_repeated_names_are_reported_once() -> None:
    assert invented_names("ghost-pod-1 and ghost-pod-1 again", evidence("nothing")) == ["ghost-pod-1"]


# -- nodes -----------------------------------------------------------------------------------------

EKS_NODE = "ip-10-0-1-23.eu-west-1.compute.internal"
GKE_NODE = "gke-prod-default-pool-1a2b3c4d-x9z8"
NODES = f"NAME STATUS\n{EKS_NODE} Ready\n{GKE_NODE} Ready\nkind-control-plane Ready\nkind-worker NotReady"


@pytest.mark.parametrize(
    "answer",
    [
        f"Node {EKS_NODE} has DiskPressure.",
        f"{EKS_NODE} has DiskPressure.",
        f"The pods run on {GKE_NODE}.",
        "The kind-control-plane node is tainted; node/kind-worker is NotReady.",
        "**Node:** `kind-worker`",
        "Nodes kind-worker and kind-control-plane are fine.",
    ],
)
def test_real_node_names_from_the_evidence_are_grounded(answer: str) -> None:
    assert invented_names(answer, evidence(NODES)) == []


@pytest.mark.parametrize(
    ("answer", "invented"),
    [
        (
            "Node ip-10-0-9-99.eu-west-1.compute.internal is NotReady.",
            "ip-10-0-9-99.eu-west-1.compute.internal",
        ),
        (
            "ip-10-0-9-99.eu-west-1.compute.internal reports MemoryPressure.",
            "ip-10-0-9-99.eu-west-1.compute.internal",
        ),
        ("The kind-worker2 node is NotReady.", "kind-worker2"),
        ("Drain node/kind-worker3 first.", "kind-worker3"),
        ("Node: worker-7", "worker-7"),
        ("Evict it from node `minikube`.", "minikube"),
        ("gke-prod-default-pool-9f9f9f9f-zzzz is out of disk.", "gke-prod-default-pool-9f9f9f9f-zzzz"),
    ],
)
def test_invented_node_names_are_caught_whole(answer: str, invented: str) -> None:
    assert invented_names(answer, evidence(NODES)) == [invented]


def test_a_node_name_inside_a_longer_one_is_not_grounded_by_it() -> None:
    seen = evidence("node-10   Ready")

    assert invented_names("node node-1 is NotReady", seen) == ["node-1"]
    assert invented_names("node node-10 is Ready", seen) == []


# -- namespaces ------------------------------------------------------------------------------------

PODS = "NAMESPACE   NAME                     READY\nshop        checkout-7d9f8c-x1z2    0/1\nmonitoring  prometheus-0   1/1"


@pytest.mark.parametrize(
    "answer",
    [
        "In the shop namespace, checkout-7d9f8c-x1z2 crashes.",
        "namespace shop: checkout-7d9f8c-x1z2 crashes.",
        "shop/checkout-7d9f8c-x1z2 crashes.",
        "Namespaces shop and monitoring were checked.",
        "Run `kubectl -n shop logs checkout-7d9f8c-x1z2 --previous`.",
        "kubectl get pods --namespace=monitoring",
        "Namespace: `shop`",
        "Nothing in the kube-system or default namespaces.",
        "The shop namespace exists and looks healthy; the monitoring namespace contains prometheus-0.",
    ],
)
def test_namespaces_from_the_evidence_are_grounded(answer: str) -> None:
    assert invented_names(answer, evidence(PODS)) == []


@pytest.mark.parametrize(
    ("answer", "invented"),
    [
        ("In the payments namespace, checkout-7d9f8c-x1z2 crashes.", ["payments"]),
        ("namespace payments has one crashing pod.", ["payments"]),
        ("payments/checkout-7d9f8c-x1z2 crashes.", ["payments"]),
        ("payments/billing-5f6d7c-q8w9 crashes.", ["billing-5f6d7c-q8w9", "payments"]),
        ("The shop and staging namespaces are degraded.", ["staging"]),
        ("Run `kubectl logs checkout-7d9f8c-x1z2 -n payments`.", ["payments"]),
        ("kubectl get events --namespace=payments", ["payments"]),
        ("The `payments` namespace is empty.", ["payments"]),
        ("**Namespace:** payments", ["payments"]),
    ],
)
def test_invented_namespaces_are_caught(answer: str, invented: list[str]) -> None:
    assert invented_names(answer, evidence(PODS)) == invented


def test_a_namespace_must_be_a_whole_word_of_the_evidence() -> None:
    seen = evidence("shopping-cart-6c7d8e-a1b2 Running")

    assert invented_names("in the shop namespace", seen) == ["shop"]


def test_markdown_tables_name_namespaces_and_nodes_in_their_columns() -> None:
    answer = (
        "| Namespace | Pod | Node | Status |\n"
        "|---|---|:---:|---|\n"
        "| `shop` | checkout-7d9f8c-x1z2 | kind-worker | CrashLoopBackOff |\n"
        "| payments | api-1 | kind-worker9 | Pending |\n"
        "| n/a | - | - | - |\n"
    )

    assert invented_names(answer, evidence(PODS, NODES)) == ["kind-worker9", "payments"]


# -- ordinary English ------------------------------------------------------------------------------

ENGLISH_REPORT = """\
Summary: 2 of 5 pods are unhealthy. All namespaces were checked; each namespace contains its own pods,
and the namespace quota is not exceeded. Pods across namespaces look fine. The namespace isn't the
problem, and this namespace has no events.

Evidence: 0/3 nodes are available: 3 Insufficient memory. No node has enough free memory for the
pod's requests; every node has a taint the pod does not tolerate. The crash-looping pod restarts.
Fix: lower the requests/limits, free capacity on the nodes, or add a node (or let the autoscaler);
fix the selector/affinity or label a node; check node affinity and pod anti-affinity. A worker node,
the control-plane node, the 2nd node and the m5.xlarge nodes are fine; the v1.28.3-eks-5e0fdde nodes
run read/write volumes and/or caches. See https://kubernetes.io/docs/tasks/debug/debug-application/debug-running-pod/
and run `kubectl logs --previous --max-log-requests=10 --all-namespaces`. The node's kubelet is
up-to-date; kube-dns.kube-system.svc.cluster.local resolves; node.kubernetes.io/not-ready is tolerated.
"""


def test_ordinary_english_about_namespaces_nodes_and_pods_names_nothing() -> None:
    assert mentions(ENGLISH_REPORT) == []


def test_mentions_say_which_kind_each_name_is() -> None:
    found = mentions("payments/checkout-7d9f8c-x1z2 runs on node kind-worker2 in namespace payments.")

    assert set(found) == {
        Mention("payments", NAMESPACE),
        Mention("checkout-7d9f8c-x1z2", POD),
        Mention("kind-worker2", NODE),
    }


_NAMES = st.from_regex(r"[a-z][a-z0-9]{1,8}(?:-[a-z0-9]{1,6}){0,3}", fullmatch=True)
_SENTENCES = (
    "In the {} namespace two pods crash.",
    "namespace {} has one crashing pod.",
    "Node {} is NotReady.",
    "Run kubectl get pods -n {}.",
    "{}/web-7d9f8c-x1z2 crashes.",
)


@given(name=_NAMES, sentence=st.sampled_from(_SENTENCES))
def test_a_name_the_tools_returned_is_never_invented(name: str, sentence: str) -> None:
    seen = evidence(f"NAME {name} web-7d9f8c-x1z2")

    assert invented_names(sentence.format(name), seen) == []


# English compounds (per-team, non-prod, multi-zone, ...) are never names; anything else with a
# dash and a digit looks like one.
_NAME_SHAPED = _NAMES.filter(
    lambda name: (
        any(c.isdigit() for c in name)
        and "-" in name
        and not name.startswith(
            ("per-", "non-", "multi-", "single-", "cross-", "self-", "well-", "high-", "low-")
        )
    )
)


@given(name=_NAME_SHAPED)
def test_a_name_shaped_word_next_to_a_kind_is_checked(name: str) -> None:
    for sentence in ("In the {} namespace two pods crash.", "Node {} is NotReady.", "The {} pod restarts."):
        assert invented_names(sentence.format(name), evidence("nothing")) == [name]
