"""What a tool result shows and what a quote in it is about (provenance.py), on the outputs of the
mock cluster and of the two real Kubernetes MCP servers (kubernetes-mcp-server 0.0.67 and
mcp-server-kubernetes 4.1.7, as they answered the integration tests' fake API)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from k8s_agent_harness.evidence import provenance
from k8s_agent_harness.evidence.grounding import ToolText
from k8s_agent_harness.evidence.provenance import (
    Owners,
    Resource,
    Source,
    Subject,
    normalised,
    sources_of,
    span_about,
    span_subject,
)
from k8s_agent_harness.evidence.shapes.naming import owners
from k8s_agent_mock_cluster.cluster import Cluster
from k8s_agent_mock_cluster.fixture import load_fixture

CRASHING = "checkout-7d9f8c-x1z2"

KUBERNETES_MCP_SERVER_PODS = """\
NAMESPACE   APIVERSION   KIND   NAME                     READY   STATUS             RESTARTS   AGE   IP            NODE          NOMINATED NODE   READINESS GATES   LABELS
shop        v1           Pod    checkout-7d9f8c-x1z2     0/1     CrashLoopBackOff   9          60m   10.244.0.10   kind-worker   <none>           <none>            app=checkout
shop        v1           Pod    web-5c6b4d-k8m2n         1/1     Running            0          60m   10.244.0.10   kind-worker   <none>           <none>            app=web
"""
KUBERNETES_MCP_SERVER_POD = """\
apiVersion: v1
kind: Pod
metadata:
  labels:
    app: checkout
  name: checkout-7d9f8c-x1z2
  namespace: shop
spec:
  containers:
  - image: nginx:1.27
    name: app
status:
  containerStatuses:
  - name: app
    ready: false
    restartCount: 9
    state:
      waiting:
        reason: CrashLoopBackOff
  phase: Running
"""
KUBERNETES_MCP_SERVER_EVENTS = """\
# The following events (YAML format) were found:
- InvolvedObject:
    Kind: Pod
    Name: checkout-7d9f8c-x1z2
    apiVersion: v1
  Message: Back-off restarting failed container app in pod checkout-7d9f8c-x1z2
  Namespace: shop
  Reason: BackOff
  Type: Warning
- InvolvedObject:
    Kind: ReplicaSet
    Name: web-5c6b4d
    apiVersion: apps/v1
  Message: 'Error creating: pods "web-5c6b4d-zz" is forbidden: exceeded quota: compute'
  Namespace: shop
  Reason: FailedCreate
  Type: Warning
"""
MCP_SERVER_KUBERNETES_PODS = {
    "items": [
        {"name": CRASHING, "namespace": "shop", "kind": "Pod", "status": "CrashLoopBackOff"},
        {"name": "web-5c6b4d-k8m2n", "namespace": "shop", "kind": "Pod", "status": "Running"},
    ]
}
MCP_SERVER_KUBERNETES_EVENTS = {
    "events": [
        {
            "type": "Warning",
            "reason": "BackOff",
            "message": f"Back-off restarting failed container app in pod {CRASHING}",
            "involvedObject": {"kind": "Pod", "name": CRASHING, "namespace": "shop"},
        }
    ]
}
MCP_SERVER_KUBERNETES_DESCRIBE = f"""\
Name:             {CRASHING}
Namespace:        shop
Node:             kind-worker/172.18.0.2
Status:           Running
Containers:
  app:
    State:          Waiting
      Reason:       CrashLoopBackOff
    Restart Count:  9
Events:
  Type     Reason   Age   From     Message
  ----     ------   ----  ----     -------
  Warning  BackOff  63s   kubelet  Back-off restarting failed container app in pod {CRASHING}
"""


def source(tool: str, text: str, ok: bool = True, **arguments: Any) -> Source:
    """A result of a call whose tool declares the arguments it was given."""
    return Source("call_1", tool, text, arguments, ok, parameters=tuple(arguments))


def shown(result: Source) -> set[Resource]:
    return {record.resource for record in result.records}


def about(result: Source, quote: str, name: str, kind: str = "pod") -> bool:
    """Whether some occurrence of the quote in the result is about the resource (by the record that
    holds it, or, free text, by what the call named)."""
    text = normalised(quote)
    subject = Subject(kind, name, None)
    return any(
        span_about(result, reading, start, end, subject, Owners([result]))
        for reading in result.readings
        for start, end in reading.occurrences(text)
    )


@pytest.fixture(scope="module")
def mock() -> Cluster:
    return Cluster(load_fixture())


# -- what a result shows ----------------------------------------------------------------------------


def test_the_mock_cluster_s_listings_show_pods_and_nodes_as_resources_with_their_rows(mock: Cluster) -> None:
    pods = source("list_pods", mock.list_pods("production"), namespace="production")
    nodes = source("list_nodes", mock.list_nodes())

    payment = Resource("pod", "payment-service-6f7b8d9c8-ghj56", "production")
    assert payment in shown(pods)
    [row] = [record for record in pods.records if record.resource == payment]
    assert {("STATUS", "CrashLoopBackOff"), ("RESTARTS", "14"), ("READY", "0/1")} <= set(row.status)
    assert "NODE" not in dict(row.status)  # where it runs is no status
    assert {r.kind for r in shown(nodes)} == {"node"} and len(shown(nodes)) == len(mock.nodes)
    assert all(r.namespace == "production" for r in shown(pods))  # the summary line is no resource


def test_the_mock_cluster_s_describe_events_and_node_show_what_they_are_about(mock: Cluster) -> None:
    pod = mock.pods[0]
    described = source(
        "describe_pod",
        mock.describe_pod(pod["name"], pod["namespace"]),
        name=pod["name"],
        namespace=pod["namespace"],
    )
    events = source("get_events", mock.get_events("production"), namespace="production")
    node = mock.nodes[0]["name"]
    node_described = source("describe_node", mock.describe_node(node), name=node)

    assert shown(described) == {Resource("pod", pod["name"], pod["namespace"])}
    objects = {(r.kind, r.name) for r in shown(events)}
    assert objects == {
        (e["object"].split("/")[0], e["object"].split("/")[1])
        for e in mock.events
        if e["namespace"] == "production"
    }
    on_node = {r for r in shown(node_described) if r.kind == "pod"}
    assert Resource("node", node, None) in shown(node_described)
    assert on_node == {
        Resource("pod", p["name"], p["namespace"])
        for p in mock.pods
        if p.get("node") == node and p["status"] not in ("Completed", "Succeeded")
    }


def test_a_failed_call_and_a_prose_answer_show_no_resource(mock: Cluster) -> None:
    failure = source("get_pod_logs", 'pods "ghost-7d9f8-x2x" not found in namespace "production"', ok=False)
    empty = source("list_pods", mock.list_pods("made-up-namespace"), namespace="made-up-namespace")

    assert shown(failure) == set() and shown(empty) == set()


def test_kubernetes_mcp_server_s_table_yaml_object_and_yaml_events() -> None:
    table = source("pods_list_in_namespace", KUBERNETES_MCP_SERVER_PODS, namespace="shop")
    pod = source("pods_get", KUBERNETES_MCP_SERVER_POD, name=CRASHING, namespace="shop")
    events = source("events_list", KUBERNETES_MCP_SERVER_EVENTS, namespace="shop")

    assert shown(table) == {Resource("pod", CRASHING, "shop"), Resource("pod", "web-5c6b4d-k8m2n", "shop")}
    assert shown(pod) == {Resource("pod", CRASHING, "shop")}
    (record,) = pod.records
    assert {("reason", "CrashLoopBackOff"), ("restartCount", "9"), ("ready", "false")} <= set(record.status)
    assert shown(events) == {Resource("pod", CRASHING, "shop"), Resource("replicaset", "web-5c6b4d", "shop")}


def test_mcp_server_kubernetes_s_json_items_json_events_and_describe() -> None:
    pods = source("kubectl_get", json.dumps(MCP_SERVER_KUBERNETES_PODS, indent=2), resourceType="pods")
    events = source("kubectl_get", json.dumps(MCP_SERVER_KUBERNETES_EVENTS, indent=2), resourceType="events")
    described = source(
        "kubectl_describe",
        MCP_SERVER_KUBERNETES_DESCRIBE,
        resourceType="pod",
        name=CRASHING,
        namespace="shop",
    )

    assert shown(pods) == {Resource("pod", CRASHING, "shop"), Resource("pod", "web-5c6b4d-k8m2n", "shop")}
    assert Resource("pod", CRASHING, "shop") in shown(events)
    assert shown(described) == {Resource("pod", CRASHING, "shop")}


@pytest.mark.parametrize("layout", ["compact", "indented", "after blank lines"])
def test_an_object_that_leaves_out_its_kind_and_namespace_is_of_the_call_s(layout: str) -> None:
    """A server may print an object without `kind` or `metadata.namespace` (a bare `get` of one pod):
    the call's kind and namespace are the object's, in JSON however it is laid out and in YAML."""
    value = {"metadata": {"name": CRASHING}, "status": {"phase": "Failed", "reason": "Evicted"}}
    text = {
        "compact": json.dumps(value),
        "indented": json.dumps(value, indent=2),
        "after blank lines": "\n\n  " + json.dumps(value, indent=2) + "\n",
    }[layout]
    as_json = source("pods_get", text, name=CRASHING, namespace="shop")
    as_yaml = source(
        "pods_get", "metadata:\n  name: checkout-7d9f8c-x1z2\nstatus:\n  phase: Failed\n", namespace="shop"
    )

    for result in (as_json, as_yaml):
        assert shown(result) == {Resource("pod", CRASHING, "shop")}
        assert about(result, "Failed", CRASHING)


# -- what a quote is about --------------------------------------------------------------------------


def test_a_row_is_about_the_resource_it_names_not_the_node_it_runs_on() -> None:
    table = source("pods_list_in_namespace", KUBERNETES_MCP_SERVER_PODS, namespace="shop")

    assert about(table, "CrashLoopBackOff   9", CRASHING)
    assert not about(table, "CrashLoopBackOff   9", "web-5c6b4d-k8m2n")
    assert not about(table, "CrashLoopBackOff   9", "kind-worker", kind="node")


def test_a_yaml_event_is_about_its_object_and_a_replicaset_event_about_the_replicaset_s_pods() -> None:
    events = source("events_list", KUBERNETES_MCP_SERVER_EVENTS, namespace="shop")

    assert about(events, "Reason: BackOff", CRASHING)
    assert not about(events, "Reason: BackOff", "web-5c6b4d-k8m2n")
    assert about(events, "exceeded quota: compute", "web-5c6b4d-k8m2n")  # its ReplicaSet's event
    assert not about(events, "exceeded quota: compute", CRASHING)


def test_an_event_line_with_no_header_is_about_its_object_and_a_sentence_is_no_event() -> None:
    lines = (
        "12m   Warning   BackoffLimitExceeded   job/importer         Job has reached the specified backoff limit\n"
        "batch   3m (x4 over 9m)   Warning   BackOff   pod/worker-0   Back-off restarting failed container\n"
        "The operator saw Warning BackOff pod/checkout-7d9f8c-x1z2 yesterday\n"
    )
    events = source("kubectl_get_events", lines, namespace="shop")

    assert shown(events) == {Resource("job", "importer", "shop"), Resource("pod", "worker-0", "batch")}
    assert all(record.event for record in events.records)  # what happened, not how it is
    assert not about(events, "Warning BackOff pod/checkout-7d9f8c-x1z2", CRASHING)
    # In a pod's own log the same lines are the workload's words: no event, no other resource.
    log = source("pods_log", lines, name=CRASHING, namespace="shop")
    assert shown(log) == set()


def test_a_json_item_is_about_what_it_is() -> None:
    events = source("kubectl_get", json.dumps(MCP_SERVER_KUBERNETES_EVENTS), resourceType="events")

    assert about(events, "Back-off restarting failed container app", CRASHING)
    assert not about(events, "Back-off restarting failed container app", "web-5c6b4d-k8m2n")


def test_a_describe_block_is_about_its_header_not_the_pods_it_lists(mock: Cluster) -> None:
    node = next(n["name"] for n in mock.nodes if any(p.get("node") == n["name"] for p in mock.pods))
    described = source("describe_node", mock.describe_node(node))  # no name argument: by the block alone
    pod = next(p["name"] for p in mock.pods if p.get("node") == node)

    assert about(described, "Allocated resources (requests):", node, kind="node")
    assert not about(described, "Allocated resources (requests):", pod)


def test_owners_are_what_kubernetes_generates_never_a_cut_of_name_parts() -> None:
    assert owners("web-5c6b4d-k8m2n") == [
        ("replicaset", "web-5c6b4d"),
        ("deployment", "web"),
        ("job", "web-5c6b4d"),
        ("daemonset", "web-5c6b4d"),
    ]
    assert ("cronjob", "nightly-etl") in owners("nightly-etl-29948485-jsgmc")
    assert owners("payments-db-0") == [("statefulset", "payments-db")]
    # `worker` has vowels: no pod-template hash; `x7k2p` a Job's or a DaemonSet's pod's suffix.
    assert ("deployment", "checkout") not in owners("checkout-worker-x7k2p")
    assert ("job", "checkout-worker") in owners("checkout-worker-x7k2p")
    # A vowel or a 0, 1 or 3 is never generated.
    assert owners("billing-6f7b8d9c0-ghi56") == []
    # What a result shows of its owners is what they are.
    assert owners("api-x7k2p", [("replicaset", "api-7d9f8")], "7d9f8") == [
        ("replicaset", "api-7d9f8"),
        ("deployment", "api"),
    ]


def pod_got(
    name: str, namespace: str, owner: tuple[str, str] | None, template_hash: str | None = None
) -> Source:
    """A pod as `pods_get` prints it (YAML), with the (kind, name) its `ownerReferences` names, if any,
    and its `pod-template-hash` label, if any."""
    labels = f"  labels:\n    pod-template-hash: {template_hash}\n" if template_hash else ""
    references = (
        f"  ownerReferences:\n  - apiVersion: apps/v1\n    controller: true\n    kind: {owner[0]}\n"
        f"    name: {owner[1]}\n"
        if owner
        else ""
    )
    text = (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n{labels}  name: {name}\n  namespace: {namespace}\n"
        f"{references}status:\n  phase: Running\n"
    )
    return source("pods_get", text, name=name, namespace=namespace)


def test_a_replicaset_s_shown_owner_replaces_the_deployment_its_name_says() -> None:
    """An Argo Rollout's ReplicaSet is named like a Deployment's: when a result shows the ReplicaSet's
    own owner, the pod belongs to that, and to no Deployment of the name's first part."""
    pod_name = "checkout-7d9f8c6b5-x1z2q"
    pod = pod_got(pod_name, "shop", ("ReplicaSet", "checkout-7d9f8c6b5"), "7d9f8c6b5")
    replicaset = source(
        "resources_get",
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: checkout-7d9f8c6b5\n  namespace: shop\n"
        "  ownerReferences:\n  - apiVersion: argoproj.io/v1alpha1\n    kind: Rollout\n    name: checkout\n",
        kind="ReplicaSet",
        name="checkout-7d9f8c6b5",
        namespace="shop",
    )
    subject = Subject("pod", pod_name, "shop")

    alone = Owners([pod])
    assert alone.of(pod_name, "shop") == [("replicaset", "checkout-7d9f8c6b5"), ("deployment", "checkout")]
    known = Owners([pod, replicaset])
    assert known.of(pod_name, "shop") == [("replicaset", "checkout-7d9f8c6b5"), ("rollout", "checkout")]
    assert provenance.about(Resource("replicaset", "checkout-7d9f8c6b5", "shop"), subject, known)
    assert not provenance.about(Resource("deployment", "checkout", "shop"), subject, known)
    assert known.pod_of(pod_name, "shop", Subject("other", "checkout", "shop"))
    assert not known.pod_of(pod_name, "shop", Subject("deployment", "checkout", "shop"))


def test_a_pod_s_shown_owners_are_its_own_in_its_namespace_and_found_by_name_without_one() -> None:
    """Two pods of one name in two namespaces, one a Job's and one a Deployment's: each is looked up
    in its own namespace; a finding with no namespace finds the pod of its name, not the first pod
    shown."""
    name = "web-7d9f8c6b5-x1z2q"  # a Deployment's pod's name, whoever owns it
    batch = pod_got(name, "batch", ("Job", "web-import"))
    shop = pod_got(name, "shop", ("ReplicaSet", "web-7d9f8c6b5"), "7d9f8c6b5")
    reporter = pod_got("reporter", "ops", ("Job", "nightly-report"))
    known = Owners([batch, shop, reporter])

    assert known.of(name, "batch") == [("job", "web-import")]
    assert known.of(name, "shop") == [("replicaset", "web-7d9f8c6b5"), ("deployment", "web")]
    assert not known.long_running(name, "batch")  # a Job's pod finishes
    assert known.long_running(name, "shop")
    assert known.pod_of(name, "batch", Subject("job", "web-import", "batch"))
    assert not known.pod_of(name, "shop", Subject("job", "web-import", "shop"))
    assert known.pod_of(name, "shop", Subject("deployment", "web", "shop"))
    assert not known.pod_of(name, "batch", Subject("deployment", "web", "batch"))
    # Without a namespace: the pod of that name, never another pod's owners.
    assert not provenance.about(Resource("job", "web-import", "shop"), Subject("pod", name, "shop"), known)
    assert provenance.about(Resource("job", "web-import", "batch"), Subject("pod", name, "batch"), known)
    assert not provenance.about(Resource("pod", name, "shop"), Subject("job", "web-import", "shop"), known)
    assert provenance.about(Resource("pod", name, "batch"), Subject("job", "web-import", "batch"), known)
    assert known.of("reporter", None) == [("job", "nightly-report")]
    assert not known.long_running("reporter", None)
    assert known.of("payments-db-0", None) == [("statefulset", "payments-db")]  # shown nowhere: by its name
    # Two results of one pod, one with its owner and one with only a label: both kept, in any order.
    labelled = pod_got(name, "batch", None, "7d9f8c6b5")
    assert Owners([labelled]).of(name, "batch") == [("replicaset", "web-7d9f8c6b5"), ("deployment", "web")]
    for results in ([batch, labelled], [labelled, batch]):
        assert Owners(results).of(name, "batch") == [("job", "web-import")]


API_POD = "api-7d9f8c6b5-x2x4z"
OTHER_POD = "web-5c6b4d-k8m2n"  # a name a controller generated: a pod's, shown by no result
DEPLOYMENTS = """\
NAMESPACE   APIVERSION   KIND         NAME       READY   UP-TO-DATE   AVAILABLE   AGE
shop        apps/v1      Deployment   checkout   0/3     3            0           9m
shop        apps/v1      Deployment   payments   3/3     3            3           9m
"""


def subjects(result: Source, quote: str, *others: Source) -> set[str | None]:
    """What each occurrence of the quote in the result is said to be about."""
    known = Owners([result, *others])
    return {
        span_subject(result, reading, start, end, known)
        for reading in result.readings
        for start, end in reading.occurrences(normalised(quote))
    }


def another(kind: str, other: str, called: str) -> str:
    return f"{kind} {other} (a line of a result about {kind} {called} in namespace shop that names it)"


@pytest.mark.parametrize(
    "text",
    [
        "status of {called}: Running\nnote: {other} restarted 9 times, OOMKilled\n",
        "{other} restarted 9 times",  # the name first in the text
        "restarted 9 times: {other}",  # and last, with no line break after it
        "fine\nrestarted 9 times: {other}",
        '{{"{other}": "restarted 9 times"}}',  # a map's key, decoded apart from its value
        "{called}: fine\n{other}: restarted 9 times\n",
        "{called}: fine\nchecked:\n  {other}:\n    events: restarted 9 times\n",
    ],
)
@pytest.mark.parametrize("kind", ["pod", "deployment"])
def test_a_line_of_a_call_s_free_text_that_names_another_of_its_kind_is_about_that_one(
    text: str, kind: str
) -> None:
    called, other = (API_POD, OTHER_POD) if kind == "pod" else ("checkout", "payments")
    result = source(
        f"get_{kind}_status", text.format(called=called, other=other), name=called, namespace="shop"
    )
    listing = source("resources_list", DEPLOYMENTS, kind="Deployment", namespace="shop")

    assert subjects(result, "restarted 9 times", listing) == {another(kind, other, called)}
    subject = Subject(kind, called, "shop")
    known = Owners([result, listing])
    assert not any(
        span_about(result, reading, start, end, subject, known)
        for reading in result.readings
        for start, end in reading.occurrences("restarted 9 times")
    )


def test_a_line_that_names_the_called_resource_too_or_a_name_of_no_such_kind_is_about_the_call() -> None:
    listing = source("resources_list", DEPLOYMENTS, kind="Deployment", namespace="shop")
    both = source(
        "get_pod_status", f"{API_POD} and {OTHER_POD} both restarted 9 times", name=API_POD, namespace="shop"
    )
    # `payments` is a Deployment's name, and a generated name is a pod's: neither is another pod, or
    # another Deployment, for a call about a pod or a Deployment of other names.
    pod_names_deployment = source(
        "get_pod_status", "payments restarted 9 times", name=API_POD, namespace="shop"
    )
    deployment_names_pod = source(
        "get_deployment_status", f"{OTHER_POD} restarted 9 times", name="checkout", namespace="shop"
    )
    # A pod's log prints what the workload writes: names in it are its words, about the pod.
    log = source("pods_log", f"note: {OTHER_POD} restarted 9 times\n", name=API_POD, namespace="shop")

    assert subjects(both, "restarted 9 times") == {f"pod {API_POD} in namespace shop"}
    assert subjects(pod_names_deployment, "restarted 9 times", listing) == {
        f"pod {API_POD} in namespace shop"
    }
    assert subjects(deployment_names_pod, "restarted 9 times", listing) == {
        "deployment checkout in namespace shop"
    }
    assert subjects(log, "restarted 9 times") == {f"pod {API_POD} in namespace shop"}
    assert about(log, "restarted 9 times", API_POD)
    assert about(deployment_names_pod, "restarted 9 times", "checkout", kind="deployment")


def test_structured_content_s_map_keys_name_what_their_values_are_about() -> None:
    """A result whose structured content maps names to states: a state under another pod's name is
    that pod's, though the call named one pod."""
    text = f"{API_POD}: Running"
    structured = {"pods": {API_POD: "Running", OTHER_POD: "CrashLoopBackOff"}}
    (result,) = sources_of(
        [
            ToolText(
                "c1",
                "get_pod_status",
                text,
                json.dumps({"name": API_POD, "namespace": "shop"}),
                structured=structured,
                parameters=("name", "namespace"),
            )
        ]
    )

    assert about(result, "Running", API_POD)
    assert not about(result, "CrashLoopBackOff", API_POD)
    assert subjects(result, "CrashLoopBackOff") == {another("pod", OTHER_POD, API_POD)}


def test_a_node_s_event_in_the_default_namespace_is_the_node_s_and_a_namespace_is_no_finding() -> None:
    """Kubernetes files a node's events in `default`; a report may give its node finding the
    namespace the question was about. A namespace's own record is never a finding's, even `other`."""
    events = source(
        "events_list",
        "NAMESPACE   LAST SEEN   TYPE      REASON                OBJECT                 MESSAGE\n"
        "default     2m          Warning   NodeHasDiskPressure   node/worker-c          Node worker-c is now:"
        " NodeHasDiskPressure\n"
        "shop        1m          Warning   BackOff               pod/web-5c6b4d-k8m2n   Back-off restarting failed"
        " container\n",
    )
    assert Resource("node", "worker-c", "default") in shown(events)
    known = Owners([events])
    quote = normalised("NodeHasDiskPressure")

    def about_subject(subject: Subject, text: str) -> bool:
        return any(
            span_about(events, reading, start, end, subject, known)
            for reading in events.readings
            for start, end in reading.occurrences(normalised(text))
        )

    assert about_subject(Subject("node", "worker-c", "production"), quote)
    assert not about_subject(Subject("pod", "web-5c6b4d-k8m2n", "production"), "Back-off restarting")
    assert about_subject(Subject("pod", "web-5c6b4d-k8m2n", "shop"), "Back-off restarting")
    namespace = Resource("namespace", "shop", None)
    for kind in ("other", "pod", "namespace"):
        assert not provenance.shows(namespace, Subject(kind, "shop", None))
    assert provenance.shows(Resource("deployment", "shop", None), Subject("other", "shop", None))


def test_what_a_call_s_list_argument_holds_is_its_own_words_given_back() -> None:
    """Strings inside a list argument (several patterns to search for) are the caller's words too."""
    asked = "payments database timeout"
    result = source("events_matching", f"no event matches: {asked}", patterns=["OOMKilled", asked])
    [reading] = result.readings

    assert reading.own_characters(0, len(reading.text)) == len("noeventmatches")


def test_a_result_of_a_call_whose_arguments_are_no_json_is_about_nothing_the_call_named() -> None:
    (failed,) = sources_of([ToolText("c1", "pods_get", "Error: arguments are not JSON", "{oops", ok=False)])
    (listed,) = sources_of(
        [ToolText("c2", "pods_get", f"{CRASHING} is Running", "{name: oops", parameters=("name",))]
    )

    assert failed.records == [] and failed.called is None
    assert listed.called is None and listed.named == []
    assert not about(listed, "is Running", CRASHING)


def test_a_quote_across_two_items_is_about_neither_and_not_the_call_s() -> None:
    items = json.dumps(MCP_SERVER_KUBERNETES_PODS)
    listed = source("kubectl_get", items, resourceType="pods", name=CRASHING, namespace="shop")
    seam = normalised('"CrashLoopBackOff"}, {"name": "web-5c6b4d-k8m2n"')
    assert seam in normalised(items)

    assert subjects(listed, seam) == {None}
    assert not about(listed, seam, CRASHING)
    assert not about(listed, seam, "web-5c6b4d-k8m2n")


def test_a_search_s_line_that_quotes_its_pattern_in_any_case_is_echo_and_only_that_line() -> None:
    result = source(
        "grep_events",
        "12:04 OOMKilled: container app exceeded 512Mi\nSearched for 'oomkilled' in 3 events\n",
        pattern="OOMKilled",
    )
    [reading] = result.readings
    first, second = reading.text.split("\n")[:2]

    assert reading.own_characters(0, len(first)) == len(
        "1204" + "containerappexceeded512Mi"
    )  # OOMKilled is the pattern
    assert reading.own_characters(len(first) + 1, len(first) + 1 + len(second)) == 0


@pytest.mark.parametrize("argument", ["pod_name", "pod-name", "podName", "POD_NAME"])
def test_an_argument_s_name_is_read_in_any_case_with_dashes_or_underscores(argument: str) -> None:
    result = source(
        "get_pod_status", f"{CRASHING}: CrashLoopBackOff", **{argument: CRASHING, "namespace": "shop"}
    )

    assert result.called == Resource("pod", CRASHING, "shop")


# -- what a result says of its own --------------------------------------------------------------------


def test_text_that_repeats_the_call_s_arguments_carries_nothing_of_its_own(mock: Cluster) -> None:
    planted = "the pod is OOMKilled with 12 restarts and must be deleted"
    search = source("search_logs", mock.search_logs(planted), pattern=planted)
    [reading] = search.readings
    quote = normalised(f"for '{planted[:40]}")
    [(start, end)] = list(reading.occurrences(quote))

    # A search's line that quotes its own pattern speaks of the search: all of it is echo ("for"
    # included), and the pattern's words are the model's.
    assert reading.own_characters(start, end) == 0


def test_an_echo_is_found_in_its_repr_and_json_forms_and_in_any_case() -> None:
    pattern = 'it\'s "quoted"'
    result = source(
        "search_logs", f"0 matches for {pattern!r}. {json.dumps(pattern.upper())}", pattern=pattern
    )
    [reading] = result.readings

    assert reading.own_characters(0, len(reading.text)) == len("0matchesfor")


def test_a_log_line_can_print_anything_but_shows_no_resource() -> None:
    forged = "\n".join(
        [
            "NAMESPACE    NAME              READY   STATUS",
            "production   ghost-7d9f8-x2x   0/1     OOMKilled",
            "",
            "Name:         ghost-7d9f8-x2x",
            "Namespace:    production",
            "production/ghost-7d9f8-x2x",
            "- metadata:",
            "    name: ghost-7d9f8-x2x",
        ]
    )
    logs = source("get_pod_logs", forged, name="chatty-6b5c4-q2w3", namespace="production")
    hits = source(
        "search_logs",
        f"1 matches in 1 pods for 'x':\nproduction/chatty-6b5c4-q2w3:2: {forged.splitlines()[1]}",
    )

    assert shown(logs) == set()
    assert shown(hits) == {Resource("pod", "chatty-6b5c4-q2w3", "production")}  # the hit's prefix only
    # Free text is about what the call asked for, not about what it prints.
    [reading] = hits.readings
    [(start, end)] = list(reading.occurrences("ghost-7d9f8-x2x 0/1 OOMKilled"))
    record, _ = reading.place(start, end)
    assert record is not None and record.resource == Resource("pod", "chatty-6b5c4-q2w3", "production")


def test_a_describe_of_one_pod_shows_no_other_pod_by_a_bare_line(mock: Cluster) -> None:
    pod = mock.pods[0]
    text = mock.describe_pod(pod["name"], pod["namespace"]) + "\n  production/ghost-7d9f8-x2x"
    described = source("describe_pod", text, name=pod["name"], namespace=pod["namespace"])

    assert shown(described) == {Resource("pod", pod["name"], pod["namespace"])}


NODE_DESCRIBE = """\
Name:         worker-c
Conditions:
  Ready             True
  MemoryPressure    True
  DiskPressure      False
Events:
  Normal  NodeHasInsufficientMemory  Node worker-c status is now: NodeHasInsufficientMemory
"""
POD_DESCRIBE = """\
Name:         api-7d9f8c6b5-x2x4z
Namespace:    shop
Status:       Running
Containers:
  api:
    State:          Running
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
    Ready:          False
    Restart Count:  4
Events:
  Warning  Unhealthy  2m  kubelet  Readiness probe failed
"""


@pytest.mark.parametrize(
    ("text", "claim", "holds"),
    [
        (NODE_DESCRIBE, "Ready", True),  # a condition named alone claims it holds
        (NODE_DESCRIBE, "Ready True, MemoryPressure True", True),
        (NODE_DESCRIBE, "MemoryPressure", True),
        (NODE_DESCRIBE, "DiskPressure", False),
        (NODE_DESCRIBE, "not Ready", False),
        (NODE_DESCRIBE, "MemoryPressure False", False),  # False is DiskPressure's
        (
            NODE_DESCRIBE,
            "NodeHasInsufficientMemory",
            False,
        ),  # an event alone says what happened, not how it is
        (NODE_DESCRIBE, "MemoryPressure True, NodeHasInsufficientMemory", True),  # beside how it is now
        (POD_DESCRIBE, "Running, 4 restarts, last terminated OOMKilled", True),
        (
            POD_DESCRIBE,
            "Running, not Ready, OOMKilled (exit code 137)",
            True,
        ),  # unhealthy now: its history beside
        (POD_DESCRIBE, "OOMKilled", False),  # history alone, for a pod that is Running
        (POD_DESCRIBE, "Running, 137 restarts", False),  # the exit code counts no restarts
        (POD_DESCRIBE, "Running, Ready", False),
        (POD_DESCRIBE, "Unhealthy", False),  # an event alone
    ],
)
def test_a_status_claim_is_checked_field_by_field(text: str, claim: str, holds: bool) -> None:
    from k8s_agent_harness.evidence.shapes.status import unshown

    kind = "node" if "worker-c" in text else "pod"
    result = source(f"describe_{kind}", text)
    checked = unshown(claim, result.records)
    assert (checked.stated and not checked.missing and not checked.past) is holds, checked


def _pod_object(name: str, reason: str | None) -> dict[str, Any]:
    state = {"waiting": {"reason": reason}} if reason else {"running": {}}
    status = {"name": "app", "ready": reason is None, "state": state}
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop"},
        "status": {"phase": "Running", "containerStatuses": [status]},
    }


def test_structured_content_is_set_aside_only_where_the_text_shows_the_same_resource_otherwise() -> None:
    header = "NAMESPACE   NAME            READY   STATUS             RESTARTS\n"
    running = "shop        web-5c6b4-k8m   1/1     Running            0\n"
    crashing = "shop        web-5c6b4-k8m   0/1     CrashLoopBackOff   7\n"
    # The structured content shows web as the text does, and another pod the text does not show.
    agreeing = {
        "items": [_pod_object("web-5c6b4-k8m", None), _pod_object("db-7f8d9-q2w", "CrashLoopBackOff")]
    }
    disagreeing = {"items": [_pod_object("web-5c6b4-k8m", None)]}

    (agree,) = sources_of([ToolText("c1", "pods_list", header + running, "{}", structured=agreeing)])
    (disagree,) = sources_of([ToolText("c2", "pods_list", header + crashing, "{}", structured=disagreeing)])

    assert agree.unread_records == []
    assert {record.resource.name for record in agree.records} == {"web-5c6b4-k8m", "db-7f8d9-q2w"}
    assert [record.resource.name for record in disagree.unread_records] == ["web-5c6b4-k8m"]
    assert all(not record.disputed for record in disagree.records)
    # A quote only the disputed structured content holds (its pod Running, which the text the model
    # read says is crash-looping) is about nothing.
    assert not about(disagree, "Running", "web-5c6b4-k8m")
    assert about(agree, "Running", "web-5c6b4-k8m")
