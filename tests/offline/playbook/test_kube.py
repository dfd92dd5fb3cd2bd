"""The offline playbook offered kubernetes-mcp-server's tools: it calls them, reads their tables, YAML and
logs, and quotes lines they returned. The results here are in the Go server's formats (as its tools
print a pod listing, a Pod, events); tests/integration/test_kube_surface.py runs it against the server."""

from __future__ import annotations

import json
from typing import Any

from k8s_agent_scripted_llm import Reply, offline_model

KUBE_TOOLS = (
    "pods_list",
    "pods_list_in_namespace",
    "pods_get",
    "pods_log",
    "events_list",
    "resources_list",
    "resources_get",
    "namespaces_list",
)
QUESTION = "Which pods in the shop namespace are unhealthy, and why?"
LISTING = """\
NAMESPACE   APIVERSION   KIND   NAME                    READY   STATUS             RESTARTS   AGE   IP            NODE     NOMINATED NODE   READINESS GATES   LABELS
shop        v1           Pod    cart-7d9f8c6b5-x7z2q    1/2     CrashLoopBackOff   7          2h    10.244.0.10   node-a   <none>           <none>            app=cart
shop        v1           Pod    web-5c6b4d8f9-k8m2n     1/1     Running            0          3d    10.244.0.11   node-b   <none>           <none>            app=web
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: cart-7d9f8c6b5-x7z2q
  namespace: shop
spec:
  containers:
  - image: ghcr.io/acme/cart:1.0
    name: cart
    resources:
      limits:
        memory: 256Mi
  - image: fluent/fluent-bit:3.0
    name: log-shipper
  nodeName: node-a
status:
  containerStatuses:
  - image: ghcr.io/acme/cart:1.0
    lastState:
      terminated:
        exitCode: 137
        reason: OOMKilled
    name: cart
    ready: false
    restartCount: 7
    state:
      waiting:
        reason: CrashLoopBackOff
  - image: fluent/fluent-bit:3.0
    lastState: {}
    name: log-shipper
    ready: true
    restartCount: 0
    state:
      running:
        startedAt: "2026-12-01T04:00:00Z"
  phase: Running
"""
EVENTS = """\
# The following events (YAML format) were found:
- InvolvedObject:
    Kind: Pod
    Name: cart-7d9f8c6b5-x7z2q
    apiVersion: v1
  Message: Back-off restarting failed container cart in pod cart-7d9f8c6b5-x7z2q_shop(0f3c88ff)
  Namespace: shop
  Reason: BackOff
  Timestamp: 2026-12-01 05:59:00 +0000 UTC
  Type: Warning
"""
CHOOSE = "Tool call failed (pods_log): failed to get pod cart-7d9f8c6b5-x7z2q log in namespace shop: a container name must be specified for pod cart-7d9f8c6b5-x7z2q, choose one of: [cart log-shipper]"


class Conversation:
    """A conversation with the playbook: its calls, answered from a table of results."""

    def __init__(self, tools: tuple[str, ...] = KUBE_TOOLS) -> None:
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
        self.tools = [{"type": "function", "function": {"name": name, "parameters": {}}} for name in tools]
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def step(self, answer: Any) -> Reply:
        """The playbook's next move; `answer(tool, arguments)` gives the result of each call it makes."""
        reply = offline_model(
            {"messages": self.messages, "tools": self.tools, "response_format": {"type": "json_schema"}}
        )
        assert isinstance(reply, Reply)
        if reply.tool_calls:
            ids = [f"call_{len(self.calls) + n}" for n in range(len(reply.tool_calls))]
            self.messages.append(
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                        for i, c in zip(ids, reply.tool_calls, strict=True)
                    ],
                }
            )
            for i, c in zip(ids, reply.tool_calls, strict=True):
                arguments = json.loads(c.arguments)
                self.calls.append((c.name, arguments))
                self.messages.append(
                    {"role": "tool", "tool_call_id": i, "content": answer(c.name, arguments)}
                )
        return reply


def answer(tool: str, arguments: dict[str, Any]) -> str:
    if tool == "pods_list_in_namespace":
        return LISTING
    if tool == "pods_get":
        return POD
    if tool == "events_list":
        return EVENTS
    if tool == "pods_log" and not arguments.get("container"):
        return CHOOSE
    if tool == "pods_log" and arguments.get("previous"):
        return "loading catalogue\nallocating 2048MB index buffer\n"
    return "serving on :8080\n"


def test_offered_the_go_servers_tools_it_lists_the_namespace_with_them() -> None:
    chat = Conversation()

    reply = chat.step(answer)

    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("pods_list_in_namespace", {"namespace": "shop"})
    ]


def test_offered_the_mock_clusters_tools_it_still_uses_them() -> None:
    chat = Conversation(("list_pods", "describe_pod", "get_pod_logs", "get_events", *KUBE_TOOLS))

    reply = chat.step(answer)

    assert [c.name for c in reply.tool_calls] == ["list_pods"]


def test_it_reads_the_go_servers_table_and_investigates_the_pod_that_is_not_ready() -> None:
    chat = Conversation()
    chat.step(answer)

    reply = chat.step(answer)

    called = [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]
    assert ("pods_get", {"name": "cart-7d9f8c6b5-x7z2q", "namespace": "shop"}) in called
    assert ("events_list", {"namespace": "shop"}) in called
    assert {name for name, _ in called} == {"pods_get", "events_list", "pods_log"}
    assert all(arguments.get("name") != "web-5c6b4d8f9-k8m2n" for _, arguments in called)


def test_logs_of_a_pod_of_two_containers_are_asked_again_for_the_one_that_restarted() -> None:
    chat = Conversation()
    chat.step(answer)
    chat.step(answer)

    reply = chat.step(answer)

    assert {json.loads(c.arguments).get("container") for c in reply.tool_calls} == {"cart"}
    assert all(c.name == "pods_log" for c in reply.tool_calls)


def test_its_report_quotes_the_line_the_pod_yaml_holds_not_the_describe_text_it_reasoned_on() -> None:
    chat = Conversation()
    reply = chat.step(answer)
    while reply.tool_calls:
        reply = chat.step(answer)

    report = json.loads(reply.content or "")
    [finding] = report["findings"]
    assert (finding["name"], finding["namespace"], finding["cause"]) == (
        "cart-7d9f8c6b5-x7z2q",
        "shop",
        "oom_killed",
    )
    quotes = {(q["tool"], q["text"]) for q in finding["evidence"]}
    assert ("pods_get", "reason: OOMKilled") in quotes
    results = {m["tool_call_id"]: m["content"] for m in chat.messages if m["role"] == "tool"}
    for quote in finding["evidence"]:
        assert " ".join(quote["text"].split()) in " ".join(results[quote["call_id"]].split())


PENDING_LISTING = """\
NAMESPACE   APIVERSION   KIND   NAME                     READY   STATUS    RESTARTS   AGE   IP       NODE     NOMINATED NODE   READINESS GATES   LABELS
shop        v1           Pod    search-6d8c7b9f5-q2w4e   0/1     Pending   0          40m   <none>   <none>   <none>           <none>            app=search
"""
PENDING_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: search-6d8c7b9f5-q2w4e
  namespace: shop
spec:
  containers:
  - image: ghcr.io/acme/search:2.0
    name: search
status:
  phase: Pending
"""
EARLIER = "0/3 nodes are available: 3 Insufficient cpu."
NOW = "0/3 nodes are available: 3 node(s) had untolerated taint {dedicated: search}."
TWO_SCHEDULING_FAILURES = f"""\
# The following events (YAML format) were found:
- InvolvedObject:
    Kind: Pod
    Name: search-6d8c7b9f5-q2w4e
    apiVersion: v1
  Message: '{EARLIER}'
  Namespace: shop
  Reason: FailedScheduling
  Timestamp: 2026-12-01 05:20:00 +0000 UTC
  Type: Warning
- InvolvedObject:
    Kind: Pod
    Name: search-6d8c7b9f5-q2w4e
    apiVersion: v1
  Message: '{NOW}'
  Namespace: shop
  Reason: FailedScheduling
  Timestamp: 2026-12-01 05:58:00 +0000 UTC
  Type: Warning
"""


def test_of_the_go_servers_events_the_one_with_the_latest_timestamp_tells_the_state_now() -> None:
    def pending(tool: str, arguments: dict[str, Any]) -> str:
        return {"pods_list_in_namespace": PENDING_LISTING, "pods_get": PENDING_POD}.get(
            tool, TWO_SCHEDULING_FAILURES
        )

    chat = Conversation()
    reply = chat.step(pending)
    while reply.tool_calls:
        reply = chat.step(pending)

    [finding] = json.loads(reply.content or "")["findings"]
    assert finding["cause"] == "untolerated_taint"
    assert NOW in finding["evidence"][0]["text"]


LOOPING_LISTING = """\
NAMESPACE   APIVERSION   KIND   NAME                      READY   STATUS             RESTARTS   AGE   IP            NODE     NOMINATED NODE   READINESS GATES   LABELS
shop        v1           Pod    pricer-5b7c9d8f6-h4j6k    0/1     CrashLoopBackOff   14         1h    10.244.0.12   node-a   <none>           <none>            app=pricer
"""
LOOPING_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: pricer-5b7c9d8f6-h4j6k
  namespace: shop
spec:
  containers:
  - image: ghcr.io/acme/pricer:3.1
    name: pricer
  nodeName: node-a
status:
  containerStatuses:
  - image: ghcr.io/acme/pricer:3.1
    lastState:
      terminated:
        exitCode: 1
        reason: Error
    name: pricer
    ready: false
    restartCount: 14
    state:
      waiting:
        reason: CrashLoopBackOff
  phase: Running
"""
LOOPING_CRASH = "ERROR currency table /data/fx.csv: permission denied"


def test_a_pod_the_go_server_says_has_not_logged_yet_is_read_again_for_its_previous_instance() -> None:
    def looping(tool: str, arguments: dict[str, Any]) -> str:
        if tool == "pods_list_in_namespace":
            return LOOPING_LISTING
        if tool == "pods_get":
            return LOOPING_POD
        if tool == "events_list":
            return "# No events found"
        if arguments.get("previous"):
            return f"INFO pricer 3.1 starting\n{LOOPING_CRASH}\nINFO exiting\n"
        return f"The pod {arguments['name']} in namespace shop has not logged any message yet"

    chat = Conversation()
    reply = chat.step(looping)
    while reply.tool_calls:
        reply = chat.step(looping)

    logs = [arguments for tool, arguments in chat.calls if tool == "pods_log"]
    assert [bool(arguments.get("previous")) for arguments in logs] == [False, True]
    [finding] = json.loads(reply.content or "")["findings"]
    assert finding["evidence"][0]["text"] == LOOPING_CRASH
