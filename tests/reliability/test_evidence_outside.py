"""Outside tests of the verified report (docs/report.md, "The verification rule"), written from the
documentation alone, for both implementations, by someone who had not read the code they attack.

Each scenario is one `k8s-agent ask --json` run: a scripted model calls tools of a stdio MCP server
of this file's own (a hand-written JSON-RPC loop serving canned results in the shapes real
Kubernetes MCP servers print: kubectl tables with and without headers, `kubectl describe`, JSON
pretty and compact, YAML, events lines, CSV, structured content beside the text, API Status
bodies), then writes a report, and sends the same report again if it is corrected. The assertions
are on the boundary: the report JSON the CLI printed (`report_verified`, each finding's
`name_verified` / `status_verified`, each quote's `verified` / `check`, `healthy.unverified_examples`),
the correction turn the model received (the scripted server's recorded requests), the exit code.

An attack run plants several lies at once (one per finding or per healthy example); each test
asserts on its own planted item only, so one hole does not hide another. An honest run must be
accepted as it is: exit 0, `report_verified` true, every mark true, and no correction turn.
Runs are shared between the tests that read them (one per scenario and implementation).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_scripted_llm import ScriptedModelServer, calls, text, tool
from tests.processes import k8s_agent

QUESTION = "Which pods in the shop namespace are unhealthy, and why?"
NS = "shop"

# ---------------------------------------------------------------------------------------------
# The MCP server: stdlib only, one JSON-RPC message per line. Config: {"name": serverInfo.name,
# "tools": [{"name", "properties", "required", "results": [{"when": {...}, "text", "structured",
# "error"}]}]}. A result matches a call whose declared arguments hold each `when` pair; the first
# match wins; no match is an error result.
# ---------------------------------------------------------------------------------------------

SERVER = r"""
import json, sys

config = json.load(open(sys.argv[1], encoding="utf-8"))
VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
TOOLS = {t["name"]: t for t in config["tools"]}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def listed(spec):
    schema = {"type": "object", "properties": spec.get("properties", {})}
    if spec.get("required"):
        schema["required"] = spec["required"]
    return {"name": spec["name"], "description": "The " + spec["name"] + " tool.", "inputSchema": schema,
            "annotations": {"readOnlyHint": True, "destructiveHint": False}}


def answer(spec, arguments):
    honoured = {k: v for k, v in arguments.items() if k in spec.get("properties", {})}
    for result in spec.get("results", []):
        if all(honoured.get(k) == v for k, v in result.get("when", {}).items()):
            return result
    return {"text": "no result for " + json.dumps(honoured, sort_keys=True), "error": True}


for line in sys.stdin:
    if not line.strip():
        continue
    try:
        message = json.loads(line)
    except ValueError:
        continue
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue
    if method == "initialize":
        asked = message.get("params", {}).get("protocolVersion")
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": config["name"], "version": "1.0.0"},
        }})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [listed(t) for t in config["tools"]]}})
    elif method == "tools/call":
        params = message.get("params", {})
        spec = TOOLS.get(params.get("name"))
        if spec is None:
            result = {"text": "no tool " + str(params.get("name")), "error": True}
        else:
            result = answer(spec, params.get("arguments") or {})
        body = {"content": [{"type": "text", "text": result["text"]}], "isError": bool(result.get("error"))}
        if result.get("structured") is not None:
            body["structuredContent"] = result["structured"]
        send({"jsonrpc": "2.0", "id": ident, "result": body})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no " + str(method)}})
"""


def _string(*names: str) -> dict[str, Any]:
    return {name: {"type": "string"} for name in names}


# The tools as the two known servers declare them (names in their vetted read tables).
FLUX = "kubernetes"  # Flux159/mcp-server-kubernetes
KMS = "kubernetes-mcp-server"  # containers/kubernetes-mcp-server
KUBECTL_GET = {
    "name": "kubectl_get",
    "properties": {
        **_string("resourceType", "name", "namespace", "output", "labelSelector"),
        "allNamespaces": {"type": "boolean"},
    },
    "required": ["resourceType"],
}
KUBECTL_DESCRIBE = {
    "name": "kubectl_describe",
    "properties": _string("resourceType", "name", "namespace"),
    "required": ["resourceType", "name"],
}
KUBECTL_LOGS = {
    "name": "kubectl_logs",
    "properties": _string("resourceType", "name", "namespace", "container"),
    "required": ["resourceType", "name", "namespace"],
}
PODS_LIST_IN_NAMESPACE = {
    "name": "pods_list_in_namespace",
    "properties": _string("namespace"),
    "required": ["namespace"],
}
PODS_GET = {"name": "pods_get", "properties": _string("name", "namespace"), "required": ["name"]}
PODS_TOP = {"name": "pods_top", "properties": _string("namespace", "name")}
RESOURCES_GET = {
    "name": "resources_get",
    "properties": _string("apiVersion", "kind", "name", "namespace"),
    "required": ["apiVersion", "kind", "name"],
}
# Tools no vetted table lists: offered by --allow-read.
RESOURCES_LOOKUP = {
    "name": "resources_lookup",
    "properties": _string("kind", "name", "namespace"),
    "required": ["name"],
}
PODS_EXPORT = {
    "name": "pods_export",
    "properties": _string("namespace", "name", "format"),
    "required": ["namespace"],
}
PODS_LOG_GREP = {
    "name": "pods_log_grep",
    "properties": _string("name", "namespace", "pattern"),
    "required": ["name", "pattern"],
}


# ---------------------------------------------------------------------------------------------
# Scenarios: what the server holds, what the model calls, the report it writes.
# ---------------------------------------------------------------------------------------------


@dataclass
class Call:
    call_id: str
    tool: str
    arguments: dict[str, Any]
    text: str
    structured: Any = None


@dataclass
class Scenario:
    name: str
    server: str
    calls: list[Call]
    report: dict[str, Any]
    tool_specs: list[dict[str, Any]]
    allow_read: tuple[str, ...] = ()

    def config(self) -> dict[str, Any]:
        tools = []
        for spec in self.tool_specs:
            declared = spec["properties"]
            results = [
                {
                    "when": {k: v for k, v in c.arguments.items() if k in declared},
                    "text": c.text,
                    "structured": c.structured,
                }
                for c in self.calls
                if c.tool == spec["name"]
            ]
            # The most specific first: a call matches the result of its own arguments, not one
            # whose arguments are a subset of them.
            results.sort(key=lambda r: -len(r["when"]))
            tools.append({**spec, "results": results})
        return {"name": self.server, "tools": tools}


def quote(text_: str, call: Call) -> dict[str, Any]:
    return {"text": text_, "call_id": call.call_id, "tool": call.tool}


def finding(
    name: str,
    status: str,
    cause: str,
    evidence: list[dict[str, Any]],
    *,
    kind: str = "pod",
    namespace: str | None = NS,
) -> dict[str, Any]:
    return {
        "kind": kind,
        "name": name,
        "namespace": namespace,
        "status": status,
        "cause": cause,
        "explanation": f"the tools show {name} as {status}",
        "evidence": evidence,
        "fix": "fix the cause the evidence shows and roll the workload out again",
    }


def report(
    findings: list[dict[str, Any]],
    examples: Iterable[str] = (),
    count: int | None = None,
    unchecked: Iterable[str] = (),
) -> dict[str, Any]:
    examples = list(examples)
    return {
        "scope": f"pods in namespace {NS}",
        "findings": findings,
        "healthy": {"count": len(examples) if count is None else count, "examples": examples},
        "unchecked": list(unchecked),
    }


# ---------------------------------------------------------------------------------------------
# Tool output builders, in the shapes the real tools print.
# ---------------------------------------------------------------------------------------------


def describe_pod(
    name: str,
    *,
    container: str = "app",
    phase: str = "Running",
    controlled_by: str | None = None,
    labels: Iterable[str] = (),
    state: Iterable[str] = ("State:          Running", "  Started:      Sun, 30 Nov 2026 04:20:00 +0000"),
    last_state: Iterable[str] = (),
    ready: str = "True",
    restarts: int = 0,
    conditions: Iterable[tuple[str, str]] | None = None,
    events: Iterable[str] = (),
    namespace: str = NS,
) -> str:
    if conditions is None:
        conditions = [
            ("PodReadyToStartContainers", "True"),
            ("Initialized", "True"),
            ("Ready", ready),
            ("ContainersReady", ready),
            ("PodScheduled", "True"),
        ]
    labels = list(labels) or [f"app={container}"]
    lines = [
        f"Name:             {name}",
        f"Namespace:        {namespace}",
        "Priority:         0",
        "Service Account:  default",
        "Node:             node-a/10.0.0.11",
        "Start Time:       Sat, 29 Nov 2026 09:12:44 +0000",
        f"Labels:           {labels[0]}",
        *[f"                  {label}" for label in labels[1:]],
        "Annotations:      <none>",
        f"Status:           {phase}",
        "IP:               10.0.1.9",
        "IPs:",
        "  IP:           10.0.1.9",
    ]
    if controlled_by:
        lines.append(f"Controlled By:  {controlled_by}")
    lines += [
        "Containers:",
        f"  {container}:",
        "    Container ID:   containerd://4f1c2a9e7d0b3c5a8e6f1d2b4c7a9e0f3d5b8c1a",
        f"    Image:          registry.example.com/shop/{container}:1.8.2",
        "    Port:           8080/TCP",
        "    Host Port:      0/TCP",
        *[f"    {line}" for line in state],
        *[f"    {line}" for line in last_state],
        f"    Ready:          {ready}",
        f"    Restart Count:  {restarts}",
        "    Limits:",
        "      memory:  512Mi",
        "    Requests:",
        "      cpu:        100m",
        "      memory:     256Mi",
        "    Environment:  <none>",
        "Conditions:",
        "  Type                        Status",
        *[f"  {kind:<28}{value}" for kind, value in conditions],
        "QoS Class:                   Burstable",
        "Node-Selectors:              <none>",
        "Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
    ]
    events = list(events)
    if events:
        lines += [
            "Events:",
            "  Type     Reason     Age                 From     Message",
            "  ----     ------     ----                ----     -------",
            *[f"  {event}" for event in events],
        ]
    else:
        lines.append("Events:                      <none>")
    return "\n".join(lines) + "\n"


OOM_LAST_STATE = (
    "Last State:     Terminated",
    "  Reason:       OOMKilled",
    "  Exit Code:    137",
    "  Started:      Sun, 30 Nov 2026 01:02:03 +0000",
    "  Finished:     Sun, 30 Nov 2026 04:19:58 +0000",
)
CRASHLOOP_STATE = ("State:          Waiting", "  Reason:       CrashLoopBackOff")


def describe_node(name: str, conditions: list[tuple[str, str, str, str]]) -> str:
    lines = [
        f"Name:               {name}",
        "Roles:              worker",
        f"Labels:             kubernetes.io/hostname={name}",
        "                    kubernetes.io/os=linux",
        "Annotations:        node.alpha.kubernetes.io/ttl: 0",
        "CreationTimestamp:  Mon, 01 Sep 2026 10:00:00 +0000",
        "Taints:             <none>",
        "Unschedulable:      false",
        "Conditions:",
        "  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message",
        "  ----             ------  -----------------                 ------------------                ------                       -------",
    ]
    for kind, status, reason, message in conditions:
        lines.append(
            f"  {kind:<17}{status:<8}Sun, 30 Nov 2026 04:20:00 +0000   Mon, 01 Sep 2026 10:00:00 +0000   {reason:<29}{message}"
        )
    lines += [
        "Addresses:",
        "  InternalIP:  10.0.0.11",
        f"  Hostname:    {name}",
        "Capacity:",
        "  cpu:                4",
        "  memory:             16393596Ki",
        "  pods:               110",
        "Non-terminated Pods:          (3 in total)",
    ]
    return "\n".join(lines) + "\n"


HEALTHY_NODE = [
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
]


def pod_object(
    name: str,
    *,
    owner: tuple[str, str] | None = None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    phase: str = "Running",
    ready: bool = True,
    restarts: int = 0,
    state: dict[str, Any] | None = None,
    last_state: dict[str, Any] | None = None,
    container: str = "app",
    namespace: str = NS,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "uid": "0c6c2a3e-1f5e-4f6a-9d49-7f0b2a1c9e11",
        "creationTimestamp": "2026-11-29T09:12:44Z",
        "labels": labels or {"app": container},
    }
    if annotations:
        metadata["annotations"] = annotations
    if owner:
        metadata["ownerReferences"] = [
            {
                "apiVersion": "batch/v1" if owner[0] == "Job" else "apps/v1",
                "kind": owner[0],
                "name": owner[1],
                "uid": "8a1d3c5e-7f9b-4d2a-b6c8-e0f1a2b3c4d5",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    flag = "True" if ready else "False"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {
            "containers": [{"name": container, "image": f"registry.example.com/shop/{container}:1.8.2"}],
            "nodeName": "node-a",
            "restartPolicy": "Never" if owner and owner[0] == "Job" else "Always",
        },
        "status": {
            "phase": phase,
            "conditions": [
                {"type": "Initialized", "status": "True"},
                {"type": "Ready", "status": flag},
                {"type": "ContainersReady", "status": flag},
                {"type": "PodScheduled", "status": "True"},
            ],
            "containerStatuses": [
                {
                    "name": container,
                    "image": f"registry.example.com/shop/{container}:1.8.2",
                    "ready": ready,
                    "restartCount": restarts,
                    "started": ready,
                    "state": state or {"running": {"startedAt": "2026-11-30T04:20:00Z"}},
                    "lastState": last_state or {},
                }
            ],
            "hostIP": "10.0.0.11",
            "podIP": "10.0.1.9",
            "startTime": "2026-11-29T09:12:44Z",
        },
    }


OOM_LAST = {
    "terminated": {
        "exitCode": 137,
        "reason": "OOMKilled",
        "startedAt": "2026-11-30T01:02:03Z",
        "finishedAt": "2026-11-30T04:19:58Z",
    }
}


def waiting(container: str, pod: str, delay: str = "5m0s") -> dict[str, Any]:
    return {
        "waiting": {
            "reason": "CrashLoopBackOff",
            "message": f"back-off {delay} restarting failed container={container} pod={pod}_{NS}(0c6c2a3e-1f5e-4f6a-9d49-7f0b2a1c9e11)",
        }
    }


def as_yaml(obj: Any) -> str:
    import yaml

    return str(yaml.safe_dump(obj, sort_keys=True, default_flow_style=False))


def pretty(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True)


def compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)


def kms_pod_table(rows: list[tuple[str, str, str, str, str]], namespace: str = NS) -> str:
    """kubernetes-mcp-server's pods_list_in_namespace: a table with NAMESPACE, APIVERSION, KIND and LABELS.
    Each row: (name, ready, status, restarts, labels)."""
    header = (
        f"{'NAMESPACE':<11}{'APIVERSION':<13}{'KIND':<6}{'NAME':<32}{'READY':<8}{'STATUS':<19}"
        f"{'RESTARTS':<15}{'AGE':<6}{'IP':<12}{'NODE':<9}{'NOMINATED NODE':<17}{'READINESS GATES':<18}LABELS"
    )
    lines = [header]
    for name, ready, status, restarts, labels in rows:
        lines.append(
            f"{namespace:<11}{'v1':<13}{'Pod':<6}{name:<32}{ready:<8}{status:<19}{restarts:<15}{'3d':<6}"
            f"{'10.0.1.21':<12}{'node-a':<9}{'<none>':<17}{'<none>':<18}{labels}"
        )
    return "\n".join(lines) + "\n"


def kubectl_table(header: list[str], rows: list[list[str]]) -> str:
    """`kubectl get` as it aligns its columns: each as wide as its widest cell, three spaces apart."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    out = [
        "   ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in [header, *rows]
    ]
    return "\n".join(out) + "\n"


def row(table: str, name: str) -> str:
    """The whole line of `table` that holds `name`, whitespace collapsed (as the model copies it)."""
    (line,) = [line for line in table.splitlines() if name in line.split()]
    return " ".join(line.split())


# ---------------------------------------------------------------------------------------------
# Running a scenario through the CLI, once per implementation, shared by the tests that read it.
# ---------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    scenario: str
    returncode: int
    out: dict[str, Any]
    stderr: str
    corrections: list[str] = field(default_factory=list)
    """The user messages the model received after the question: the correction turn(s)."""

    @property
    def report(self) -> dict[str, Any]:
        report_ = self.out.get("report")
        assert isinstance(report_, dict), f"[{self.scenario}] no report: {self.why()}"
        return report_

    def finding(self, name: str) -> dict[str, Any]:
        found: list[dict[str, Any]] = [f for f in self.report["findings"] if f["name"] == name]
        assert found, f"[{self.scenario}] no finding {name!r} in the printed report: {self.why()}"
        return found[0]

    def quote(self, name: str, text_: str) -> dict[str, Any]:
        found: list[dict[str, Any]] = [q for q in self.finding(name)["evidence"] if q["text"] == text_]
        assert found, f"[{self.scenario}] finding {name!r} has no quote {text_!r}: {self.finding(name)}"
        return found[0]

    def corrected(self, snippet: str) -> bool:
        return any(snippet in c for c in self.corrections)

    def why(self) -> str:
        return (
            f"exit {self.returncode}; report_verified={self.out.get('report_verified')}; "
            f"problems={self.out.get('report_problems')}; corrections={self.corrections}; "
            f"stderr tail={self.stderr[-600:]!r}"
        )


_RUNS: dict[tuple[str, str], Outcome] = {}


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _run(impl: str, scenario: Scenario, folder: Path) -> Outcome:
    server_script = folder / "server.py"
    server_script.write_text(SERVER, encoding="utf-8")
    config = folder / "server-config.json"
    config.write_text(json.dumps(scenario.config()), encoding="utf-8")
    turn = calls(*(tool(c.tool, _id=c.call_id, **c.arguments) for c in scenario.calls))
    answer = json.dumps(scenario.report)
    script = [turn, text(answer), text(answer), text(answer)]
    allow = [arg for name in scenario.allow_read for arg in ("--allow-read", name)]
    with ScriptedModelServer(script) as model:
        done = k8s_agent(
            "ask",
            QUESTION,
            *("--impl", impl, "--base-url", model.url, "--model", "scripted", "--api-key", "sk-test-1"),
            *("--report-format", "json_schema", "--json"),
            *("--mcp-command", f"{sys.executable} {server_script} {config}"),
            *allow,
            cwd=folder,
            env={"K8S_AGENT_TRACE_DIR": "traces"},
        )
        requests = list(model.requests)
    try:
        out = json.loads(done.stdout)
    except ValueError:
        out = {"unparsed_stdout": done.stdout[-2000:]}
    messages = requests[-1].get("messages", []) if requests else []
    users = [_content(m) for m in messages if m.get("role") == "user"]
    return Outcome(scenario.name, done.returncode, out, done.stderr, users[1:])


@pytest.fixture
def run(impl: Any, tmp_path_factory: pytest.TempPathFactory) -> Callable[[Scenario], Outcome]:
    def get(scenario: Scenario) -> Outcome:
        key = (str(impl), scenario.name)
        if key not in _RUNS:
            folder = tmp_path_factory.mktemp(f"{scenario.name}-{impl}")
            _RUNS[key] = _run(str(impl), scenario, folder)
        return _RUNS[key]

    return get


def assert_accepted(o: Outcome) -> None:
    """An honest report: no correction turn, exit 0, report_verified, every mark true."""
    assert o.corrections == [], f"[{o.scenario}] an honest report got a correction turn: {o.why()}"
    assert o.returncode == 0, o.why()
    assert o.out.get("report_verified") is True and o.out.get("report_problems") == [], o.why()
    for f in o.report["findings"]:
        assert f["name_verified"] is True, f"{f['name']}: name not verified: {o.why()}"
        assert f["status_verified"] is True, f"{f['name']}: status {f['status']!r} not verified: {o.why()}"
        for q in f["evidence"]:
            assert q["verified"] is True and q["check"] == "verified", f"{f['name']}: {q}: {o.why()}"
    assert o.report["healthy"]["unverified_examples"] == [], o.why()


def assert_status_rejected(o: Outcome, name: str) -> None:
    f = o.finding(name)
    assert f["status_verified"] is False, (
        f"[{o.scenario}] the status {f['status']!r} of {name} was verified: {o.why()}"
    )
    assert o.returncode == 6 and o.out.get("report_verified") is False, o.why()
    assert o.corrected(name), f"the correction turn does not name {name}: {o.corrections}"


def assert_name_rejected(o: Outcome, name: str) -> None:
    f = o.finding(name)
    assert f["name_verified"] is False, f"[{o.scenario}] the name {name} was verified: {o.why()}"
    assert o.returncode == 6 and o.out.get("report_verified") is False, o.why()
    assert o.corrected(name), f"the correction turn does not name {name}: {o.corrections}"


def assert_quote_rejected(o: Outcome, name: str, text_: str) -> None:
    q = o.quote(name, text_)
    assert q["verified"] is False and q["check"] != "verified", (
        f"[{o.scenario}] the quote {text_!r} was verified for {name}: {q}; {o.why()}"
    )
    assert o.returncode == 6 and o.out.get("report_verified") is False, o.why()
    assert o.corrected(text_[:20]), (
        f"the correction turn does not name the quote {text_[:20]!r}: {o.corrections}"
    )


def assert_example_rejected(o: Outcome, name: str) -> None:
    assert name in o.report["healthy"]["unverified_examples"], (
        f"[{o.scenario}] {name} was accepted as a healthy example: {o.report['healthy']}; {o.why()}"
    )
    assert o.returncode == 6 and o.out.get("report_verified") is False, o.why()
    assert o.corrected(name), f"the correction turn does not name {name}: {o.corrections}"


# =============================================================================================
# 1. Time: a pod Running and ready now, reported with the status of its last state.
# =============================================================================================

T_CART = "cart-7d9f8c6b5-x2x4z"
T_ORDERS = "orders-5c8d7f9b6-k2m4p"
T_SEARCH = "search-6d7f8b9c5-w2z4x"
T_MAIL = "mail-5b6c7d8f9-h2j4k"

_t_describe = Call(
    "call_1",
    "kubectl_describe",
    {"resourceType": "pod", "name": T_CART, "namespace": NS},
    describe_pod(
        T_CART,
        container="cart",
        controlled_by="ReplicaSet/cart-7d9f8c6b5",
        labels=["app=cart", "pod-template-hash=7d9f8c6b5"],
        last_state=OOM_LAST_STATE,
        restarts=1,
    ),
)
_t_yaml = Call(
    "call_2",
    "kubectl_get",
    {"resourceType": "pods", "name": T_ORDERS, "namespace": NS, "output": "yaml"},
    as_yaml(
        pod_object(
            T_ORDERS,
            owner=("ReplicaSet", "orders-5c8d7f9b6"),
            container="orders",
            restarts=3,
            labels={"app": "orders", "pod-template-hash": "5c8d7f9b6"},
            last_state=OOM_LAST,
        )
    ),
)
_t_json = Call(
    "call_3",
    "kubectl_get",
    {"resourceType": "pods", "name": T_SEARCH, "namespace": NS, "output": "json"},
    compact(
        pod_object(
            T_SEARCH,
            owner=("ReplicaSet", "search-6d7f8b9c5"),
            container="search",
            restarts=2,
            labels={"app": "search", "pod-template-hash": "6d7f8b9c5"},
            last_state=OOM_LAST,
        )
    ),
)
_t_events = Call(
    "call_4",
    "kubectl_describe",
    {"resourceType": "pod", "name": T_MAIL, "namespace": NS},
    describe_pod(
        T_MAIL,
        container="mail",
        controlled_by="ReplicaSet/mail-5b6c7d8f9",
        labels=["app=mail", "pod-template-hash=5b6c7d8f9"],
        events=[
            "Warning  Unhealthy  41m (x3 over 42m)  kubelet  Readiness probe failed: HTTP probe failed with statuscode: 503"
        ],
    ),
)
TIME_ATTACK = Scenario(
    "time-attack",
    FLUX,
    [_t_describe, _t_yaml, _t_json, _t_events],
    report(
        [
            finding(
                T_CART,
                "OOMKilled, Terminated",
                "oom_killed",
                [quote("Last State: Terminated Reason: OOMKilled Exit Code: 137", _t_describe)],
            ),
            finding(
                T_ORDERS,
                "OOMKilled, 3 restarts",
                "oom_killed",
                [quote("reason: OOMKilled", _t_yaml), quote("restartCount: 3", _t_yaml)],
            ),
            finding(
                T_SEARCH,
                "Terminated, OOMKilled",
                "oom_killed",
                [
                    quote(
                        '"lastState":{"terminated":{"exitCode":137,"finishedAt":"2026-11-30T04:19:58Z","reason":"OOMKilled"',
                        _t_json,
                    )
                ],
            ),
            finding(
                T_MAIL,
                "Warning Unhealthy",
                "readiness_probe_failure",
                [quote("Readiness probe failed: HTTP probe failed with statuscode: 503", _t_events)],
            ),
        ]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)

H_PAY = "pay-6f7b8d9c8-ghj56"
H_LEDGER = "ledger-7c9d8f6b5-m4n6p"
_th_describe = Call(
    "call_1",
    "kubectl_describe",
    {"resourceType": "pod", "name": H_PAY, "namespace": NS},
    describe_pod(
        H_PAY,
        container="pay",
        controlled_by="ReplicaSet/pay-6f7b8d9c8",
        labels=["app=pay", "pod-template-hash=6f7b8d9c8"],
        state=CRASHLOOP_STATE,
        last_state=OOM_LAST_STATE,
        ready="False",
        restarts=7,
        events=[
            f"Warning  BackOff    2m (x40 over 10m)   kubelet  Back-off restarting failed container pay in pod {H_PAY}_{NS}(4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d)"
        ],
    ),
)
_ledger = pod_object(
    H_LEDGER,
    owner=("ReplicaSet", "ledger-7c9d8f6b5"),
    container="ledger",
    ready=False,
    restarts=12,
    labels={"app": "ledger", "pod-template-hash": "7c9d8f6b5"},
    state=waiting("ledger", H_LEDGER),
    last_state=OOM_LAST,
)
_th_json = Call(
    "call_2",
    "kubectl_get",
    {"resourceType": "pods", "name": H_LEDGER, "namespace": NS, "output": "json"},
    pretty(_ledger),
)
TIME_HONEST = Scenario(
    "time-honest",
    FLUX,
    [_th_describe, _th_json],
    report(
        [
            finding(
                H_PAY,
                "CrashLoopBackOff, last state OOMKilled",
                "oom_killed",
                [quote("Last State: Terminated Reason: OOMKilled Exit Code: 137", _th_describe)],
            ),
            finding(
                H_LEDGER,
                "CrashLoopBackOff, 12 restarts, last state OOMKilled",
                "oom_killed",
                [
                    quote(_ledger["status"]["containerStatuses"][0]["state"]["waiting"]["message"], _th_json),
                    quote('"reason": "OOMKilled"', _th_json),
                ],
            ),
        ]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)


def test_time_describe_last_state_is_no_current_status(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Time: a Running, ready pod reported 'OOMKilled, Terminated' from its describe Last State."""
    assert_status_rejected(run(TIME_ATTACK), T_CART)


def test_time_yaml_last_state_is_no_current_status(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Time: a Running, ready pod (YAML) reported 'OOMKilled, 3 restarts' from its lastState."""
    assert_status_rejected(run(TIME_ATTACK), T_ORDERS)


def test_time_compact_json_last_state_is_no_current_status(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Time: a Running, ready pod (one-line JSON) reported 'Terminated, OOMKilled' from its lastState."""
    assert_status_rejected(run(TIME_ATTACK), T_SEARCH)


def test_time_old_events_are_no_current_status(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Time: a pod Running and ready now, reported 'Warning Unhealthy' from a 41-minute-old Events row.
    Reading: report.md calls events history ('events and a container's last state are history'), so
    a status made only of event words for a pod ready now gives history as its status."""
    assert_status_rejected(run(TIME_ATTACK), T_MAIL)


def test_time_honest_crashloop_with_last_state_oomkilled_is_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Time (honest): 'CrashLoopBackOff, last state OOMKilled' for pods crash-looping now (describe, JSON)."""
    assert_accepted(run(TIME_HONEST))


# =============================================================================================
# 2. Numbers without their label.
# =============================================================================================

N_MIGRATE = "migrate-db"
N_WEB = "web-7d9f8c6b5-x2x4z"
N_IMPORT = "import-29948485-z2x4w"
_n_describe = Call(
    "call_1",
    "kubectl_describe",
    {"resourceType": "pod", "name": N_MIGRATE, "namespace": NS},
    describe_pod(
        N_MIGRATE,
        container="migrate",
        phase="Failed",
        ready="False",
        restarts=0,
        state=(
            "State:          Terminated",
            "  Reason:       Error",
            "  Exit Code:    2",
            "  Started:      Sun, 30 Nov 2026 04:00:00 +0000",
            "  Finished:     Sun, 30 Nov 2026 04:00:09 +0000",
        ),
    ),
)
_wide_header = [
    "NAME",
    "READY",
    "STATUS",
    "RESTARTS",
    "AGE",
    "IP",
    "NODE",
    "NOMINATED NODE",
    "READINESS GATES",
]
_n_wide_text = kubectl_table(
    _wide_header,
    [
        [N_WEB, "0/1", "Running", "0", "3d", "10.0.1.12", "node-a", "<none>", "1/1"],
        ["api-6b7c8d9f5-p2q4r", "1/1", "Running", "0", "3d", "10.0.1.13", "node-a", "<none>", "<none>"],
    ],
)
_n_wide = Call(
    "call_2", "kubectl_get", {"resourceType": "pods", "namespace": NS, "output": "wide"}, _n_wide_text
)
_n_json = Call(
    "call_3",
    "kubectl_get",
    {"resourceType": "pods", "name": N_IMPORT, "namespace": NS, "output": "json"},
    pretty(
        pod_object(
            N_IMPORT,
            owner=("Job", "import-29948485"),
            container="import",
            phase="Failed",
            ready=False,
            labels={"job-name": "import-29948485", "batch.kubernetes.io/job-name": "import-29948485"},
            state={
                "terminated": {
                    "exitCode": 2,
                    "reason": "Error",
                    "startedAt": "2026-11-30T04:00:00Z",
                    "finishedAt": "2026-11-30T04:00:09Z",
                }
            },
        )
    ),
)
NUMBERS_ATTACK = Scenario(
    "numbers-attack",
    FLUX,
    [_n_describe, _n_wide, _n_json],
    report(
        [
            finding(
                N_MIGRATE,
                "Failed, Error, 2 restarts",
                "crash_application",
                [quote("State: Terminated Reason: Error Exit Code: 2", _n_describe)],
            ),
            finding(
                N_WEB,
                "Running, READY 1/1",
                "readiness_probe_failure",
                [quote(row(_n_wide_text, N_WEB), _n_wide)],
            ),
            finding(
                N_IMPORT,
                "Error, 2 restarts",
                "crash_application",
                [quote('"exitCode": 2, "finishedAt": "2026-11-30T04:00:09Z", "reason": "Error",', _n_json)],
            ),
        ]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)

NH_SEED = "seed-db"
NH_QUEUE = "queue-5f6d7c8b9-r2t4v"
_nh_describe = Call(
    "call_1",
    "kubectl_describe",
    {"resourceType": "pod", "name": NH_SEED, "namespace": NS},
    describe_pod(
        NH_SEED,
        container="seed",
        phase="Failed",
        ready="False",
        restarts=0,
        state=(
            "State:          Terminated",
            "  Reason:       Error",
            "  Exit Code:    2",
            "  Started:      Sun, 30 Nov 2026 04:00:00 +0000",
            "  Finished:     Sun, 30 Nov 2026 04:00:09 +0000",
        ),
    ),
)
_nh_wide_text = kubectl_table(
    _wide_header,
    [
        [
            NH_QUEUE,
            "0/1",
            "CrashLoopBackOff",
            "14 (3m12s ago)",
            "2d",
            "10.0.1.14",
            "node-b",
            "<none>",
            "<none>",
        ],
        ["api-6b7c8d9f5-p2q4r", "1/1", "Running", "0", "3d", "10.0.1.13", "node-a", "<none>", "1/1"],
    ],
)
_nh_wide = Call(
    "call_2", "kubectl_get", {"resourceType": "pods", "namespace": NS, "output": "wide"}, _nh_wide_text
)
NUMBERS_HONEST = Scenario(
    "numbers-honest",
    FLUX,
    [_nh_describe, _nh_wide],
    report(
        [
            finding(
                NH_SEED,
                "Failed, Error, Exit Code 2, 0 restarts",
                "crash_application",
                [quote("State: Terminated Reason: Error Exit Code: 2", _nh_describe)],
            ),
            finding(
                NH_QUEUE,
                "CrashLoopBackOff, READY 0/1, 14 restarts",
                "crash_application",
                [quote(row(_nh_wide_text, NH_QUEUE), _nh_wide)],
            ),
        ]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)


def test_numbers_exit_code_is_no_restart_count_in_describe(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Numbers: '2 restarts' where describe shows Exit Code: 2 and Restart Count: 0.
    Reading: `14 restarts` in report.md is the restart count; a number verifies with its own label,
    not with any field that happens to hold it ('restarts' is a joining word, not a licence)."""
    assert_status_rejected(run(NUMBERS_ATTACK), N_MIGRATE)


def test_numbers_readiness_gates_are_no_ready_column(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Numbers: 'READY 1/1' where the row says READY 0/1 and the 1/1 is its READINESS GATES cell."""
    assert_status_rejected(run(NUMBERS_ATTACK), N_WEB)


def test_numbers_exit_code_is_no_restart_count_in_json(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Numbers: 'Error, 2 restarts' where the JSON has exitCode 2 and restartCount 0."""
    assert_status_rejected(run(NUMBERS_ATTACK), N_IMPORT)


def test_numbers_honest_counts_with_their_labels_are_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Numbers (honest): 'Exit Code 2, 0 restarts' (describe) and '14 restarts' from `14 (3m12s ago)`."""
    assert_accepted(run(NUMBERS_HONEST))


# =============================================================================================
# 3. Pairs taken apart: a condition's type with another condition's status.
# =============================================================================================

P_NODE_A = "node-a"
P_NODE_B = "node-b"
P_REPORTS = "reports-7b8c9d6f5-t2v4w"
_p_describe = Call(
    "call_1",
    "kubectl_describe",
    {"resourceType": "node", "name": P_NODE_A},
    describe_node(P_NODE_A, HEALTHY_NODE),
)
_node_b = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": P_NODE_B, "labels": {"kubernetes.io/hostname": P_NODE_B}},
    "spec": {"podCIDR": "10.0.2.0/24"},
    "status": {
        "conditions": [
            {"type": c, "status": s, "reason": r, "message": m, "lastHeartbeatTime": "2026-11-30T04:20:00Z"}
            for c, s, r, m in HEALTHY_NODE
        ],
        "capacity": {"cpu": "4", "memory": "16393596Ki", "pods": "110"},
        "nodeInfo": {"kubeletVersion": "v1.30.4"},
    },
}
_p_json = Call(
    "call_2", "kubectl_get", {"resourceType": "nodes", "name": P_NODE_B, "output": "json"}, pretty(_node_b)
)
_p_pod = Call(
    "call_3",
    "kubectl_describe",
    {"resourceType": "pod", "name": P_REPORTS, "namespace": NS},
    describe_pod(
        P_REPORTS,
        container="reports",
        controlled_by="ReplicaSet/reports-7b8c9d6f5",
        labels=["app=reports", "pod-template-hash=7b8c9d6f5"],
        ready="False",
        restarts=0,
        state=("State:          Waiting", "  Reason:       ContainerCreating"),
        conditions=[
            ("PodReadyToStartContainers", "False"),
            ("Initialized", "True"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
            ("PodScheduled", "True"),
        ],
    ),
)
PAIRS_ATTACK = Scenario(
    "pairs-attack",
    FLUX,
    [_p_describe, _p_json, _p_pod],
    report(
        [
            finding(
                P_NODE_A,
                "MemoryPressure True",
                "node_pressure",
                [quote("KubeletHasSufficientMemory kubelet has sufficient memory available", _p_describe)],
                kind="node",
                namespace=None,
            ),
            finding(
                P_NODE_B,
                "DiskPressure True",
                "node_pressure",
                [quote('"reason": "KubeletHasNoDiskPressure"', _p_json)],
                kind="node",
                namespace=None,
            ),
            finding(
                P_REPORTS,
                "Pending, PodScheduled False",
                "unschedulable",
                [quote("State: Waiting Reason: ContainerCreating", _p_pod)],
            ),
        ]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)

PH_NODE_C = "node-c"
PH_NODE_D = "node-d"
PH_BATCH = "batch-5c6d7f8b9-q2r4s"
_ph_describe = Call(
    "call_1",
    "kubectl_describe",
    {"resourceType": "node", "name": PH_NODE_C},
    describe_node(
        PH_NODE_C,
        [
            (
                "MemoryPressure",
                "True",
                "KubeletHasInsufficientMemory",
                "kubelet has insufficient memory available",
            ),
            ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
    ),
)
_ph_nodes_text = kubectl_table(
    ["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
    [
        [PH_NODE_C, "Ready", "worker", "90d", "v1.30.4"],
        [PH_NODE_D, "NotReady", "worker", "90d", "v1.30.4"],
    ],
)
_ph_nodes = Call("call_2", "kubectl_get", {"resourceType": "nodes"}, _ph_nodes_text)
_ph_pod = Call(
    "call_3",
    "kubectl_describe",
    {"resourceType": "pod", "name": PH_BATCH, "namespace": NS},
    describe_pod(
        PH_BATCH,
        container="batch",
        phase="Pending",
        controlled_by="ReplicaSet/batch-5c6d7f8b9",
        labels=["app=batch", "pod-template-hash=5c6d7f8b9"],
        ready="False",
        state=("State:          Waiting", "  Reason:       ContainerCreating"),
        conditions=[("PodScheduled", "False")],
        events=[
            "Warning  FailedScheduling  2m   default-scheduler  0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
        ],
    ),
)
PAIRS_HONEST = Scenario(
    "pairs-honest",
    FLUX,
    [_ph_describe, _ph_nodes, _ph_pod],
    report(
        [
            finding(
                PH_NODE_C,
                "MemoryPressure True",
                "node_pressure",
                [
                    quote(
                        "KubeletHasInsufficientMemory kubelet has insufficient memory available", _ph_describe
                    )
                ],
                kind="node",
                namespace=None,
            ),
            finding(
                PH_NODE_D,
                "NotReady",
                "node_not_ready",
                [quote(row(_ph_nodes_text, PH_NODE_D), _ph_nodes)],
                kind="node",
                namespace=None,
            ),
            finding(
                PH_BATCH,
                "Pending, PodScheduled False",
                "insufficient_resources",
                [quote("0/3 nodes are available: 3 Insufficient memory.", _ph_pod)],
            ),
        ]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)


def test_pairs_describe_condition_status_belongs_to_its_type(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Pairs: node 'MemoryPressure True' where describe shows MemoryPressure False and Ready True."""
    assert_status_rejected(run(PAIRS_ATTACK), P_NODE_A)


def test_pairs_json_condition_status_belongs_to_its_type(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Pairs: node 'DiskPressure True' where the JSON conditions say DiskPressure False, Ready True."""
    assert_status_rejected(run(PAIRS_ATTACK), P_NODE_B)


def test_pairs_pod_condition_status_belongs_to_its_type(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Pairs: pod 'Pending, PodScheduled False' where it is scheduled (PodScheduled True) and Ready
    False; 'Pending' is in none of its fields either."""
    assert_status_rejected(run(PAIRS_ATTACK), P_REPORTS)


def test_pairs_honest_conditions_are_accepted(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Pairs (honest): 'MemoryPressure True' (describe), 'NotReady' (table), 'Pending, PodScheduled False'."""
    assert_accepted(run(PAIRS_HONEST))


# =============================================================================================
# 4. Things that are not objects.
# =============================================================================================

O_GHOST = "ghost-7d9f8c6b5-q2w4z"
O_PHANTOM = "phantom-5c8d7f9b6-w2x4z"
O_CONTAINER = "payments-worker"
O_CHECKOUT = "checkout-6b7c8d9f5-x2x4z"
O_FRAUD = "fraud-7d9f8c6b5-z2x4q"
_status_body = pretty(
    {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'pods "{O_GHOST}" not found',
        "reason": "NotFound",
        "details": {"name": O_GHOST, "kind": "pods"},
        "code": 404,
    }
)
_o_status = Call(
    "call_1",
    "resources_get",
    {"apiVersion": "v1", "kind": "Pod", "name": O_GHOST, "namespace": NS},
    _status_body,
)
_o_lookup = Call(
    "call_2",
    "resources_lookup",
    {"kind": "Pod", "name": O_PHANTOM, "namespace": NS},
    compact({"kind": "Pod", "name": O_PHANTOM, "namespace": NS, "found": False}),
)
_top_text = kubectl_table(
    ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"],
    [
        [O_CHECKOUT, "checkout", "12m", "120Mi"],
        [O_CHECKOUT, O_CONTAINER, "950m", "1020Mi"],
        [O_FRAUD, "fraud", "3m", "64Mi"],
    ],
)
_o_top = Call("call_3", "pods_top", {"namespace": NS}, _top_text)
_o_table_text = kms_pod_table(
    [
        (O_CHECKOUT, "2/2", "Running", "0", "app=checkout,pod-template-hash=6b7c8d9f5"),
        (O_FRAUD, "0/1", "CrashLoopBackOff", "6 (1m ago)", "app=fraud,pod-template-hash=7d9f8c6b5"),
    ]
)
_o_table = Call("call_4", "pods_list_in_namespace", {"namespace": NS}, _o_table_text)
NOT_OBJECTS_ATTACK = Scenario(
    "not-objects-attack",
    KMS,
    [_o_status, _o_lookup, _o_top],
    report(
        [
            finding(O_GHOST, "NotFound", "unknown", [quote('"reason": "NotFound"', _o_status)]),
            finding(
                O_PHANTOM, "Pending", "unknown", [quote(f'"kind":"Pod","name":"{O_PHANTOM}"', _o_lookup)]
            ),
            finding(O_CONTAINER, "Running", "oom_killed", [quote(row(_top_text, O_CONTAINER), _o_top)]),
        ]
    ),
    [RESOURCES_GET, RESOURCES_LOOKUP, PODS_TOP],
    allow_read=("resources_lookup",),
)
NOT_OBJECTS_HONEST = Scenario(
    "not-objects-honest",
    KMS,
    [_o_table, _o_status, _o_top],
    report(
        [
            finding(
                O_FRAUD,
                "CrashLoopBackOff, READY 0/1, 6 restarts",
                "crash_application",
                [quote(row(_o_table_text, O_FRAUD), _o_table)],
            )
        ],
        examples=[O_CHECKOUT],
        unchecked=[f"pod {O_GHOST}: the API answered NotFound"],
    ),
    [PODS_LIST_IN_NAMESPACE, RESOURCES_GET, PODS_TOP],
)


def test_not_objects_an_api_status_body_names_no_pod(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Not objects: a successful result that is an API Status (kind Status, reason NotFound,
    details.name X, details.kind pods) does not show pod X."""
    assert_name_rejected(run(NOT_OBJECTS_ATTACK), O_GHOST)


def test_not_objects_a_lookup_answer_echoing_its_argument_names_no_pod(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Not objects: {kind: Pod, name: X, found: false}, X the call's own argument, does not show pod X."""
    assert_name_rejected(run(NOT_OBJECTS_ATTACK), O_PHANTOM)


def test_not_objects_top_containers_name_column_holds_no_pods(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Not objects: `kubectl top pod --containers` (POD, NAME columns): a container name in NAME is no pod."""
    assert_name_rejected(run(NOT_OBJECTS_ATTACK), O_CONTAINER)


def test_not_objects_honest_report_beside_a_status_body_and_top_is_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Not objects (honest): a real pod's row quoted, a NotFound Status body and a top table in the
    same run, the lookup's miss put in `unchecked`."""
    assert_accepted(run(NOT_OBJECTS_HONEST))


# =============================================================================================
# 5. Two views: structuredContent beside a text that says otherwise.
# =============================================================================================

V_CACHE = "cache-5f6d7c8b9-r2t4v"
V_SEARCH = "search-8c9d7f6b5-n2p4q"
V_RECS = "recs-6f7c8d9b5-j2k4m"
V_AUTH = "auth-5d6f7c8b9-n2p4q"
_cache_text_obj = pod_object(
    V_CACHE,
    owner=("ReplicaSet", "cache-5f6d7c8b9"),
    container="cache",
    labels={"app": "cache", "pod-template-hash": "5f6d7c8b9"},
)
_cache_struct = pod_object(
    V_CACHE,
    owner=("ReplicaSet", "cache-5f6d7c8b9"),
    container="cache",
    ready=False,
    restarts=9,
    labels={"app": "cache", "pod-template-hash": "5f6d7c8b9"},
    state=waiting("cache", V_CACHE),
)
_v_get = Call(
    "call_1", "pods_get", {"name": V_CACHE, "namespace": NS}, as_yaml(_cache_text_obj), _cache_struct
)
_search_text = kms_pod_table([(V_SEARCH, "1/1", "Running", "0", "app=search,pod-template-hash=8c9d7f6b5")])
_search_struct = {
    "items": [
        pod_object(
            V_SEARCH,
            owner=("ReplicaSet", "search-8c9d7f6b5"),
            container="search",
            ready=False,
            restarts=4,
            labels={"app": "search", "pod-template-hash": "8c9d7f6b5"},
            state=waiting("search", V_SEARCH, "1m20s"),
        )
    ]
}
_v_list = Call("call_2", "pods_list_in_namespace", {"namespace": NS}, _search_text, _search_struct)
TWO_VIEWS_ATTACK = Scenario(
    "two-views-attack",
    KMS,
    [_v_get, _v_list],
    report(
        [
            finding(
                V_CACHE,
                "CrashLoopBackOff, 9 restarts",
                "crash_application",
                [
                    quote(
                        _cache_struct["status"]["containerStatuses"][0]["state"]["waiting"]["message"], _v_get
                    )
                ],
            ),
            finding(
                V_SEARCH,
                "CrashLoopBackOff",
                "crash_application",
                [quote(row(_search_text, V_SEARCH), _v_list)],
            ),
        ]
    ),
    [PODS_GET, PODS_LIST_IN_NAMESPACE],
)
_recs_text = kms_pod_table(
    [(V_RECS, "0/1", "CrashLoopBackOff", "4 (40s ago)", "app=recs,pod-template-hash=6f7c8d9b5")]
)
_recs_struct = {
    "items": [
        pod_object(
            V_RECS,
            owner=("ReplicaSet", "recs-6f7c8d9b5"),
            container="recs",
            ready=False,
            restarts=4,
            labels={"app": "recs", "pod-template-hash": "6f7c8d9b5"},
            state=waiting("recs", V_RECS, "1m20s"),
        )
    ]
}
_vh_list = Call("call_1", "pods_list_in_namespace", {"namespace": NS}, _recs_text, _recs_struct)
_auth = pod_object(
    V_AUTH,
    owner=("ReplicaSet", "auth-5d6f7c8b9"),
    container="auth",
    ready=False,
    restarts=9,
    labels={"app": "auth", "pod-template-hash": "5d6f7c8b9"},
    state=waiting("auth", V_AUTH),
)
_vh_get = Call("call_2", "pods_get", {"name": V_AUTH, "namespace": NS}, as_yaml(_auth), _auth)
TWO_VIEWS_HONEST = Scenario(
    "two-views-honest",
    KMS,
    [_vh_list, _vh_get],
    report(
        [
            finding(
                V_RECS,
                "CrashLoopBackOff, READY 0/1, 4 restarts",
                "crash_application",
                [
                    quote(row(_recs_text, V_RECS), _vh_list),
                    quote(
                        _recs_struct["items"][0]["status"]["containerStatuses"][0]["state"]["waiting"][
                            "message"
                        ],
                        _vh_list,
                    ),
                ],
            ),
            finding(
                V_AUTH,
                "CrashLoopBackOff, 9 restarts",
                "crash_application",
                [quote("reason: CrashLoopBackOff", _vh_get)],
            ),
        ]
    ),
    [PODS_GET, PODS_LIST_IN_NAMESPACE],
)


def test_two_views_structured_crashloop_against_yaml_running(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Two views: pods_get's YAML text says Running, ready, 0 restarts; its structuredContent says
    CrashLoopBackOff, 9 restarts. Reading: report.md reads structured content for quotes, but a
    status the result's own two views contradict is not 'what the tools showed' for that pod."""
    assert_status_rejected(run(TWO_VIEWS_ATTACK), V_CACHE)


def test_two_views_structured_list_against_table_running(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Two views: a table row Running 1/1 beside structuredContent items saying CrashLoopBackOff."""
    assert_status_rejected(run(TWO_VIEWS_ATTACK), V_SEARCH)


def test_two_views_honest_agreeing_views_are_accepted(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Two views (honest): text and structuredContent agree; a quote only in the structured message verifies."""
    assert_accepted(run(TWO_VIEWS_HONEST))


# =============================================================================================
# 6. Rows and parts: a CSV listing of other pods under a call naming A; an annotation in A naming B.
# =============================================================================================

R_A = "inventory-7d9f8c6b5-b2c4d"
R_B = "shipping-6c7d8f9b5-f2g4h"
_csv_text = (
    "namespace,name,ready,status,restarts,age\n"
    f"{NS},{R_B},0/1,CrashLoopBackOff,14,2d\n"
    f"{NS},notify-5b6c7d8f9-h2j4k,1/1,Running,0,2d\n"
)
_r_csv = Call("call_1", "pods_export", {"namespace": NS, "name": R_A, "format": "csv"}, _csv_text)
_b_note = f"pod {R_B} OOMKilled at 04:12Z and has been crash-looping since"
_r_a = Call(
    "call_2",
    "pods_get",
    {"name": R_A, "namespace": NS},
    pretty(
        pod_object(
            R_A,
            owner=("ReplicaSet", "inventory-7d9f8c6b5"),
            container="inventory",
            labels={"app": "inventory", "pod-template-hash": "7d9f8c6b5"},
            annotations={"ops.example.com/upstream-incident": _b_note},
        )
    ),
)
ROWS_ATTACK = Scenario(
    "rows-attack",
    KMS,
    [_r_csv, _r_a],
    report(
        [
            finding(
                R_A,
                "CrashLoopBackOff",
                "crash_application",
                [quote(f"{NS},{R_B},0/1,CrashLoopBackOff,14,2d", _r_csv)],
            ),
            finding(R_B, "CrashLoopBackOff", "oom_killed", [quote(_b_note, _r_a)]),
        ]
    ),
    [PODS_EXPORT, PODS_GET],
    allow_read=("pods_export",),
)
RH_A = "inventory-7d9f8c6b5-c2d4f"
RH_B = "shipping-6c7d8f9b5-g2h4j"
_rh_csv_text = (
    "namespace,name,ready,status,restarts,age\n"
    f"{NS},{RH_A},0/1,CrashLoopBackOff,5,2d\n"
    f"{NS},notify-5b6c7d8f9-h2j4k,1/1,Running,0,2d\n"
)
_rh_csv = Call("call_1", "pods_export", {"namespace": NS, "name": RH_A, "format": "csv"}, _rh_csv_text)
_a_note = "heap exhausted during the nightly reindex; limit raised to 2Gi in change CHG-4411"
_rh_a = Call(
    "call_2",
    "pods_get",
    {"name": RH_A, "namespace": NS},
    pretty(
        pod_object(
            RH_A,
            owner=("ReplicaSet", "inventory-7d9f8c6b5"),
            container="inventory",
            ready=False,
            restarts=5,
            labels={"app": "inventory", "pod-template-hash": "7d9f8c6b5"},
            annotations={"ops.example.com/last-incident": _a_note},
            state=waiting("inventory", RH_A),
        )
    ),
)
_rh_table_text = kms_pod_table(
    [(RH_B, "0/1", "CrashLoopBackOff", "3 (20s ago)", "app=shipping,pod-template-hash=6c7d8f9b5")]
)
_rh_table = Call("call_3", "pods_list_in_namespace", {"namespace": NS}, _rh_table_text)
ROWS_HONEST = Scenario(
    "rows-honest",
    KMS,
    [_rh_csv, _rh_a, _rh_table],
    report(
        [
            finding(
                RH_A,
                "CrashLoopBackOff, 5 restarts",
                "oom_killed",
                [quote(_a_note, _rh_a), quote(f"{NS},{RH_A},0/1,CrashLoopBackOff,5,2d", _rh_csv)],
            ),
            finding(
                RH_B,
                "CrashLoopBackOff, READY 0/1, 3 restarts",
                "crash_application",
                [quote(row(_rh_table_text, RH_B), _rh_table)],
            ),
        ]
    ),
    [PODS_EXPORT, PODS_GET, PODS_LIST_IN_NAMESPACE],
    allow_read=("pods_export",),
)


def test_rows_a_csv_row_of_another_pod_is_not_about_the_pod_the_call_named(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Rows: pods_export(name=A) returns CSV rows of other pods; B's row is no evidence for A.
    Reading: the row names its pod (its `name` cell); a declared name argument says what FREE text
    is about, and a row that names another pod is about that pod, not about A."""
    assert_quote_rejected(run(ROWS_ATTACK), R_A, f"{NS},{R_B},0/1,CrashLoopBackOff,14,2d")


def test_rows_an_annotation_in_a_s_object_is_not_evidence_about_b(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Parts: an annotation inside pod A's object that names pod B's crash is about A, never about B."""
    assert_quote_rejected(run(ROWS_ATTACK), R_B, _b_note)


def test_rows_honest_own_row_and_own_annotation_are_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Rows (honest): A's own CSV row and own annotation quoted for A; B's own table row for B."""
    assert_accepted(run(ROWS_HONEST))


# =============================================================================================
# 7. Owners: the pods of an Argo Rollout are not the pods of a Deployment of the same name.
# =============================================================================================

W_RS = "checkout-6b7c8d9f5"
W_POD1 = "checkout-6b7c8d9f5-x2x4z"
W_POD2 = "checkout-6b7c8d9f5-m4n6p"
_w_deploy_text = kubectl_table(
    ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], [["checkout", "0/0", "0", "0", "90d"]]
)
_w_deploy = Call("call_1", "kubectl_get", {"resourceType": "deployments", "namespace": NS}, _w_deploy_text)
_w_rs = Call(
    "call_2",
    "kubectl_get",
    {"resourceType": "replicasets", "name": W_RS, "namespace": NS, "output": "yaml"},
    as_yaml(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": W_RS,
                "namespace": NS,
                "labels": {"app": "checkout", "rollouts-pod-template-hash": "6b7c8d9f5"},
                "ownerReferences": [
                    {
                        "apiVersion": "argoproj.io/v1alpha1",
                        "kind": "Rollout",
                        "name": "checkout",
                        "uid": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "spec": {"replicas": 2},
            "status": {"replicas": 2, "readyReplicas": 0, "availableReplicas": 0, "observedGeneration": 4},
        }
    ),
)
_w_backoff = (
    f"Back-off restarting failed container checkout in pod {W_POD1}_{NS}"
    "(9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d)"
)
_w_describe = Call(
    "call_3",
    "kubectl_describe",
    {"resourceType": "pod", "name": W_POD1, "namespace": NS},
    describe_pod(
        W_POD1,
        container="checkout",
        controlled_by=f"ReplicaSet/{W_RS}",
        labels=["app=checkout", "rollouts-pod-template-hash=6b7c8d9f5"],
        state=CRASHLOOP_STATE,
        ready="False",
        restarts=11,
        events=[f"Warning  BackOff    2m (x40 over 10m)   kubelet  {_w_backoff}"],
    ),
)
_w_pod2 = pod_object(
    W_POD2,
    owner=("ReplicaSet", W_RS),
    container="checkout",
    ready=False,
    restarts=11,
    labels={"app": "checkout", "rollouts-pod-template-hash": "6b7c8d9f5"},
    state=waiting("checkout", W_POD2),
)
_w_json = Call(
    "call_4",
    "kubectl_get",
    {"resourceType": "pods", "name": W_POD2, "namespace": NS, "output": "json"},
    pretty(_w_pod2),
)
_w_pod2_message = _w_pod2["status"]["containerStatuses"][0]["state"]["waiting"]["message"]
OWNERS_ATTACK = Scenario(
    "owners-attack",
    FLUX,
    [_w_deploy, _w_rs, _w_describe, _w_json],
    report(
        [
            finding(
                "checkout",
                "READY 0/0",
                "crash_application",
                [quote(_w_backoff, _w_describe), quote(_w_pod2_message, _w_json)],
                kind="deployment",
            ),
        ]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)
_w_rollout = Call(
    "call_5",
    "kubectl_get",
    {"resourceType": "rollouts", "name": "checkout", "namespace": NS, "output": "yaml"},
    as_yaml(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Rollout",
            "metadata": {"name": "checkout", "namespace": NS},
            "spec": {"replicas": 2, "strategy": {"canary": {"steps": [{"setWeight": 20}]}}},
            "status": {
                "phase": "Degraded",
                "message": "ProgressDeadlineExceeded: ReplicaSet has timed out progressing.",
                "replicas": 2,
                "readyReplicas": 0,
                "currentPodHash": "6b7c8d9f5",
            },
        }
    ),
)
OWNERS_HONEST = Scenario(
    "owners-honest",
    FLUX,
    [_w_deploy, _w_rs, _w_describe, _w_json, _w_rollout],
    report(
        [
            finding(
                "checkout",
                "Degraded",
                "crash_application",
                [quote(_w_backoff, _w_describe), quote(_w_pod2_message, _w_json)],
                kind="other",
            ),
            finding(
                W_POD1, "CrashLoopBackOff, 11 restarts", "crash_application", [quote(_w_backoff, _w_describe)]
            ),
        ]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)


def test_owners_a_rollout_s_pod_describe_is_no_evidence_for_the_deployment(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Owners: a pod Controlled By ReplicaSet/checkout-6b7c8d9f5, whose ownerReferences name Rollout
    checkout, is not a pod of Deployment checkout (the results settle it, not the name)."""
    assert_quote_rejected(run(OWNERS_ATTACK), "checkout", _w_backoff)


def test_owners_a_rollout_s_pod_json_is_no_evidence_for_the_deployment(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Owners: the same for a pod shown as JSON with ownerReferences to that ReplicaSet."""
    assert_quote_rejected(run(OWNERS_ATTACK), "checkout", _w_pod2_message)


def test_owners_honest_rollout_and_its_pods_are_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Owners (honest): finding `other` checkout (the Rollout) quoting its pods (pod -> ReplicaSet ->
    Rollout, as the results show it), and the pod itself. Reading: report.md's owner rule lets a
    workload of kind `other` rest on its pods' records, through the ReplicaSet as a Deployment does."""
    assert_accepted(run(OWNERS_HONEST))


# =============================================================================================
# 8. Echoes: the server repeats the model's argument, transformed.
# =============================================================================================

E_PAY = "payments-api-7d9f8c6b5-x2x4z"
E_LONG = "OOMKilled: container payments-api exceeded its memory limit of 512Mi"
# (`password=` itself is not used: the harness redacts `password=...` in the model's own quote, which
# then matches nothing; a server masks a secret in other spellings too.)
E_SECRET = "connect failed passwd hunter2 user payments host db.shop.svc"
E_REDACTED = "connect failed passwd ******* user payments host db.shop.svc"
_e_table_text = kms_pod_table(
    [(E_PAY, "0/1", "CrashLoopBackOff", "8 (2m ago)", "app=payments-api,pod-template-hash=7d9f8c6b5")]
)
_e_table = Call("call_1", "pods_list_in_namespace", {"namespace": NS}, _e_table_text)
_e_cut = Call(
    "call_2",
    "pods_log_grep",
    {"name": E_PAY, "namespace": NS, "pattern": E_LONG},
    f'0 matches for "{E_LONG[:40]}" in the log of pod {E_PAY} (pattern cut at 40 characters)\n',
)
_e_redact = Call(
    "call_3",
    "pods_log_grep",
    {"name": E_PAY, "namespace": NS, "pattern": E_SECRET},
    f'0 matches for "{E_REDACTED}" in the log of pod {E_PAY}\n',
)
ECHO_ATTACK = Scenario(
    "echo-attack",
    KMS,
    [_e_table, _e_cut, _e_redact],
    report(
        [
            finding(
                E_PAY,
                "CrashLoopBackOff",
                "oom_killed",
                [quote(E_LONG[:40], _e_cut), quote(E_REDACTED, _e_redact)],
            ),
        ]
    ),
    [PODS_LIST_IN_NAMESPACE, PODS_LOG_GREP],
    allow_read=("pods_log_grep",),
)
_e_line = "2026-11-30T04:12:02Z FATAL OOM: heap limit exceeded while allocating a 64Mi buffer"
_eh_grep = Call(
    "call_2",
    "pods_log_grep",
    {"name": E_PAY, "namespace": NS, "pattern": "OOM"},
    f'1 match for "OOM" in the log of pod {E_PAY}:\n{_e_line}\n',
)
ECHO_HONEST = Scenario(
    "echo-honest",
    KMS,
    [_e_table, _eh_grep],
    report(
        [
            finding(
                E_PAY,
                "CrashLoopBackOff, READY 0/1, 8 restarts",
                "oom_killed",
                [quote(row(_e_table_text, E_PAY), _e_table), quote(_e_line, _eh_grep)],
            ),
        ]
    ),
    [PODS_LIST_IN_NAMESPACE, PODS_LOG_GREP],
    allow_read=("pods_log_grep",),
)


def test_echo_an_argument_cut_at_40_characters_is_no_evidence(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Echoes: `0 matches for "<the pattern's first 40 characters>"`: a cut of the call's own argument
    only repeats it. Reading: report.md counts letters 'outside what only repeats the call's own
    arguments'; a prefix of an argument repeats it (the form list, plain/repr/JSON, names encodings)."""
    assert_quote_rejected(run(ECHO_ATTACK), E_PAY, E_LONG[:40])


def test_echo_an_argument_with_its_password_redacted_is_no_evidence(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Echoes: the pattern echoed with `password=*****`: everything but the mask repeats the argument."""
    assert_quote_rejected(run(ECHO_ATTACK), E_PAY, E_REDACTED)


def test_echo_honest_log_hit_is_accepted(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Echoes (honest): a genuine hit of pods_log_grep(name=pod, pattern=OOM), its line quoted."""
    assert_accepted(run(ECHO_HONEST))


# =============================================================================================
# 9. Healthy examples.
# =============================================================================================

HE_WEB = "web-7d9f8c6b5-x2x4z"
HE_WORKER = "worker-6b7c8d9f5-p2q4r"
HE_API = "api-6b7c8d9f5-p2q4r"
_he_table_text = kms_pod_table(
    [
        (HE_API, "1/1", "Running", "0", "app=api,pod-template-hash=6b7c8d9f5"),
        (HE_WEB, "0/1", "Completed", "5 (4h ago)", "app=web,pod-template-hash=7d9f8c6b5"),
    ]
)
_he_table = Call("call_1", "pods_list_in_namespace", {"namespace": NS}, _he_table_text)
_he_worker = Call(
    "call_2",
    "resources_get",
    {"apiVersion": "v1", "kind": "Pod", "name": HE_WORKER, "namespace": NS},
    pretty(
        pod_object(
            HE_WORKER,
            owner=("ReplicaSet", "worker-6b7c8d9f5"),
            container="worker",
            phase="Succeeded",
            ready=False,
            restarts=5,
            labels={"app": "worker", "pod-template-hash": "6b7c8d9f5"},
            state={
                "terminated": {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": "2026-11-30T03:00:00Z",
                    "finishedAt": "2026-11-30T03:00:41Z",
                }
            },
        )
    ),
)
HEALTHY_ATTACK = Scenario(
    "healthy-attack",
    KMS,
    [_he_table, _he_worker],
    report([], examples=[HE_WEB, HE_WORKER]),
    [PODS_LIST_IN_NAMESPACE, RESOURCES_GET],
)
HH_ETL = "etl-29948485-q2w4z"
HH_BACKUP = "backup-29948490-k2m4p"
_hh_table_text = kms_pod_table(
    [
        (HE_API, "1/1", "Running", "0", "app=api,pod-template-hash=6b7c8d9f5"),
        (HH_ETL, "0/1", "Completed", "0", "batch.kubernetes.io/job-name=etl-29948485,job-name=etl-29948485"),
    ]
)
_hh_table = Call("call_1", "pods_list_in_namespace", {"namespace": NS}, _hh_table_text)
_hh_backup = Call(
    "call_2",
    "resources_get",
    {"apiVersion": "v1", "kind": "Pod", "name": HH_BACKUP, "namespace": NS},
    pretty(
        pod_object(
            HH_BACKUP,
            owner=("Job", "backup-29948490"),
            container="backup",
            phase="Succeeded",
            ready=False,
            labels={"job-name": "backup-29948490", "batch.kubernetes.io/job-name": "backup-29948490"},
            state={
                "terminated": {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": "2026-11-30T03:10:00Z",
                    "finishedAt": "2026-11-30T03:12:41Z",
                }
            },
        )
    ),
)
HEALTHY_HONEST = Scenario(
    "healthy-honest",
    KMS,
    [_hh_table, _hh_backup],
    report([], examples=[HE_API, HH_ETL, HH_BACKUP]),
    [PODS_LIST_IN_NAMESPACE, RESOURCES_GET],
)


def test_healthy_a_deployment_s_completed_pod_with_restarts_is_no_healthy_example(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Healthy examples: a Deployment's pod (pod-template-hash) `0/1 Completed` with 5 restarts.
    Reading: 'Completed' is healthy for a Job's pod; a Deployment's pod is meant to run, and READY
    0/1 shows it unhealthy (report.md: 'none that shows it unhealthy (... READY 0/1 ...)')."""
    assert_example_rejected(run(HEALTHY_ATTACK), HE_WEB)


def test_healthy_a_replicaset_s_succeeded_pod_json_is_no_healthy_example(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Healthy examples: the same as JSON: ownerReferences ReplicaSet, phase Succeeded, ready false,
    restartCount 5, terminated Completed."""
    assert_example_rejected(run(HEALTHY_ATTACK), HE_WORKER)


def test_healthy_honest_job_completed_pods_are_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Healthy examples (honest): a Job's pod `0/1 Completed` (table) and as JSON (ownerReferences Job)."""
    assert_accepted(run(HEALTHY_HONEST))


# =============================================================================================
# 10. False alarms: honest reports over shapes that are easy to misread.
# =============================================================================================

F_JOB = "etl-29948485"
F_JOB_POD = "etl-29948485-q2w4z"
F_NIGHTLY = "nightly-29948400"
_f_events_text = (
    f"Normal    SuccessfulCreate       job/{F_JOB}          Created pod: {F_JOB_POD}\n"
    f"Warning   BackOff                pod/{F_JOB_POD}    Back-off restarting failed container etl in pod {F_JOB_POD}_{NS}(4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d)\n"
    f"Warning   BackoffLimitExceeded   job/{F_JOB}          Job has reached the specified backoff limit\n"
)
_f_events = Call("call_1", "kubectl_get", {"resourceType": "events", "namespace": NS}, _f_events_text)
_f_all_text = (
    f"batch   12m   Normal    SuccessfulCreate       job/{F_NIGHTLY}   Created pod: {F_NIGHTLY}-v2w4x\n"
    f"batch   2m    Warning   BackoffLimitExceeded   job/{F_NIGHTLY}   Job has reached the specified backoff limit\n"
)
_f_all = Call("call_2", "kubectl_get", {"resourceType": "events", "allNamespaces": True}, _f_all_text)


def _line(text_: str, needle: str) -> str:
    (line,) = [line for line in text_.splitlines() if needle in line]
    return " ".join(line.split())


EVENTS_HONEST = Scenario(
    "events-honest",
    FLUX,
    [_f_events, _f_all],
    report(
        [
            finding(
                F_JOB,
                "BackoffLimitExceeded",
                "job_backoff_limit",
                [
                    quote(_line(_f_events_text, "BackoffLimitExceeded"), _f_events),
                    quote(_line(_f_events_text, "Back-off restarting"), _f_events),
                ],
                kind="job",
            ),
            finding(
                F_NIGHTLY,
                "Warning BackoffLimitExceeded",
                "job_backoff_limit",
                [quote(_line(_f_all_text, "BackoffLimitExceeded"), _f_all)],
                kind="job",
                namespace="batch",
            ),
        ]
    ),
    [KUBECTL_GET],
)
F_API = "api-6b7c8d9f5-p2q4r"
F_AUTH = "auth-5d6f7c8b9-n2p4q"
_fa_json = Call(
    "call_1",
    "kubectl_get",
    {"resourceType": "pods", "name": F_API, "namespace": NS, "output": "json"},
    pretty(
        pod_object(
            F_API,
            owner=("ReplicaSet", "api-6b7c8d9f5"),
            container="api",
            restarts=1,
            labels={"app": "api", "pod-template-hash": "6b7c8d9f5"},
            last_state=OOM_LAST,
        )
    ),
)
_fa_describe = Call(
    "call_2",
    "kubectl_describe",
    {"resourceType": "pod", "name": F_AUTH, "namespace": NS},
    describe_pod(
        F_AUTH,
        container="auth",
        controlled_by="ReplicaSet/auth-5d6f7c8b9",
        labels=["app=auth", "pod-template-hash=5d6f7c8b9"],
        last_state=OOM_LAST_STATE,
        restarts=1,
    ),
)
OLD_OOM_HONEST = Scenario(
    "old-oom-honest",
    FLUX,
    [_fa_json, _fa_describe],
    report([], examples=[F_API, F_AUTH]),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)


def test_false_alarm_headerless_event_lines_quoted_for_a_job_are_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """False alarms (honest): `kubectl get events --no-headers` lines (TYPE REASON kind/name MESSAGE,
    and with NAMESPACE LAST-SEEN before them) quoted for the Job they are about, and its pod's line."""
    assert_accepted(run(EVENTS_HONEST))


def test_false_alarm_running_pod_with_an_old_oomkill_is_a_healthy_example(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """False alarms (honest): pods Running 1/1 now with an OOMKill in their last state (JSON and
    describe) given as healthy examples: the last state is history."""
    assert_accepted(run(OLD_OOM_HONEST))


# =============================================================================================
# 11. Our own: other things report.md's rule says should hold.
# =============================================================================================

X_BILLING_POD = "billing-x7k2p"
X_RELAY = "relay-5c6d7f8b9-k2m4p"
X_GHOST = "ghost-relay-0"
X_NOTIFY = "notify-5b6c7d8f9-h2j4k"
X_CART = "cart-7d9f8c6b5-x2x4z"
X_FRONTEND = "frontend-5d4c4b2z7-dxf44"
X_MAILER = "mailer-6c7d8f9b5-v2w4x"
_x_deploy_text = kubectl_table(
    ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], [["billing", "1/1", "1", "1", "30d"]]
)
_x_deploy = Call("call_1", "kubectl_get", {"resourceType": "deployments", "namespace": NS}, _x_deploy_text)
_x_pods_text = kubectl_table(
    ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
    [
        [X_BILLING_POD, "0/1", "CrashLoopBackOff", "9 (2m ago)", "1h"],
        ["billing-6b7c8d9f5-q2w4r", "1/1", "Running", "0", "30d"],
        [X_RELAY, "1/1", "Running", "0", "2d"],
        [X_CART, "0/1", "CrashLoopBackOff", "4 (1m ago)", "2d"],
        [X_FRONTEND, "0/1", "Running", "2 (5m ago)", "2d"],
        [X_MAILER, "1/1", "Running", "0", "2d"],
    ],
)
_x_pods = Call("call_2", "kubectl_get", {"resourceType": "pods", "namespace": NS}, _x_pods_text)
_x_log_event = f"Warning  BackOff  pod/{X_GHOST}  Back-off restarting failed container relay in pod {X_GHOST}"
_x_logs = Call(
    "call_3",
    "kubectl_logs",
    {"resourceType": "pod", "name": X_RELAY, "namespace": NS},
    "2026-11-30T04:11:58Z INFO relaying queue shop-orders to upstream\n"
    f"{_x_log_event}\n"
    "2026-11-30T04:12:02Z INFO upstream reconnected\n",
)
_x_notify = Call(
    "call_4",
    "kubectl_describe",
    {"resourceType": "pod", "name": X_NOTIFY, "namespace": NS},
    describe_pod(
        X_NOTIFY,
        container="notify",
        controlled_by="ReplicaSet/notify-5b6c7d8f9",
        labels=["app=notify", "pod-template-hash=5b6c7d8f9"],
    ),
)
_x_probe_message = f"Liveness probe failed: upstream {X_CART} refused the connection on 10.0.1.31:8080"
_x_events = Call(
    "call_5",
    "kubectl_get",
    {"resourceType": "events", "namespace": NS, "output": "json"},
    pretty(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                {
                    "apiVersion": "v1",
                    "kind": "Event",
                    "metadata": {"name": f"{X_FRONTEND}.187c2a1b3d4e5f60", "namespace": NS},
                    "involvedObject": {
                        "kind": "Pod",
                        "name": X_FRONTEND,
                        "namespace": NS,
                        "apiVersion": "v1",
                    },
                    "reason": "Unhealthy",
                    "type": "Warning",
                    "message": _x_probe_message,
                    "count": 7,
                    "source": {"component": "kubelet", "host": "node-a"},
                }
            ],
            "metadata": {"resourceVersion": ""},
        }
    ),
)
_x_mailer = Call(
    "call_6",
    "kubectl_describe",
    {"resourceType": "pod", "name": X_MAILER, "namespace": NS},
    describe_pod(
        X_MAILER,
        container="mailer",
        controlled_by="ReplicaSet/mailer-6c7d8f9b5",
        labels=["app=mailer", "pod-template-hash=6c7d8f9b5"],
        state=CRASHLOOP_STATE,
        ready="False",
        restarts=3,
    ),
)
OWN_ATTACK = Scenario(
    "own-attack",
    FLUX,
    [_x_deploy, _x_pods, _x_logs, _x_notify, _x_events, _x_mailer],
    report(
        [
            finding(
                "billing",
                "READY 1/1",
                "crash_application",
                [quote(row(_x_pods_text, X_BILLING_POD), _x_pods)],
                kind="deployment",
            ),
            finding(X_GHOST, "BackOff", "crash_application", [quote(_x_log_event, _x_logs)]),
            finding(
                X_NOTIFY,
                "Running, not Ready",
                "readiness_probe_failure",
                [quote("State: Running Started: Sun, 30 Nov 2026 04:20:00 +0000", _x_notify)],
            ),
            finding(X_CART, "CrashLoopBackOff", "dependency_down", [quote(_x_probe_message, _x_events)]),
        ],
        examples=[X_MAILER],
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE, KUBECTL_LOGS],
)

Y_PROBE = "probe-7d9f8c6b5-b2c4d"
Y_DB = "db-0"
Y_WEB = "web-7d9f8c6b5-k2m4p"
_y_probe_obj = pod_object(
    Y_PROBE,
    owner=("ReplicaSet", "probe-7d9f8c6b5"),
    container="probe",
    ready=False,
    restarts=6,
    labels={"app": "probe", "pod-template-hash": "7d9f8c6b5"},
    state=waiting("probe", Y_PROBE),
    last_state={
        "terminated": {
            "exitCode": 137,
            "reason": "Error",
            "message": "liveness probe didn't answer within 5s; the kubelet killed the container",
            "startedAt": "2026-11-30T04:00:00Z",
            "finishedAt": "2026-11-30T04:05:00Z",
        }
    },
)
_y_said = "liveness probe didn't answer within 5s; the kubelet killed the container"
_y_yaml_text = as_yaml(_y_probe_obj).replace(
    f"message: {_y_said}", "message: '" + _y_said.replace("'", "''") + "'"
)
assert "didn''t" in _y_yaml_text
_y_yaml = Call(
    "call_1",
    "kubectl_get",
    {"resourceType": "pods", "name": Y_PROBE, "namespace": NS, "output": "yaml"},
    _y_yaml_text,
)
_y_url_message = 'Liveness probe failed: Get "http://10.0.1.9:8080/healthz": dial tcp 10.0.1.9:8080: connect: connection refused'
_y_events = Call(
    "call_2",
    "kubectl_get",
    {"resourceType": "events", "namespace": NS, "output": "json"},
    pretty(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                {
                    "apiVersion": "v1",
                    "kind": "Event",
                    "metadata": {"name": f"{Y_PROBE}.187c2a1b3d4e5f61", "namespace": NS},
                    "involvedObject": {"kind": "Pod", "name": Y_PROBE, "namespace": NS},
                    "reason": "Unhealthy",
                    "type": "Warning",
                    "message": _y_url_message,
                    "count": 12,
                }
            ],
        }
    ),
)
_y_sts_text = kubectl_table(["NAME", "READY", "AGE"], [["db", "0/1", "30d"]])
_y_sts = Call("call_3", "kubectl_get", {"resourceType": "statefulsets", "namespace": NS}, _y_sts_text)
_y_db = Call(
    "call_4",
    "kubectl_describe",
    {"resourceType": "pod", "name": Y_DB, "namespace": NS},
    describe_pod(
        Y_DB,
        container="postgres",
        controlled_by="StatefulSet/db",
        labels=["app=db", "statefulset.kubernetes.io/pod-name=db-0"],
        state=CRASHLOOP_STATE,
        ready="False",
        restarts=5,
        events=[
            "Warning  BackOff    1m (x20 over 6m)    kubelet  Back-off restarting failed container postgres in pod db-0_shop(1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d)"
        ],
    ),
)
_y_deploy_text = kubectl_table(
    ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], [["web", "0/1", "1", "0", "30d"]]
)
_y_deploy = Call("call_5", "kubectl_get", {"resourceType": "deployments", "namespace": NS}, _y_deploy_text)
_y_web_backoff = (
    f"Back-off restarting failed container web in pod {Y_WEB}_{NS}(2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e)"
)
_y_web = Call(
    "call_6",
    "kubectl_describe",
    {"resourceType": "pod", "name": Y_WEB, "namespace": NS},
    describe_pod(
        Y_WEB,
        container="web",
        controlled_by="ReplicaSet/web-7d9f8c6b5",
        labels=["app=web", "pod-template-hash=7d9f8c6b5"],
        state=CRASHLOOP_STATE,
        ready="False",
        restarts=8,
        events=[f"Warning  BackOff    3m (x30 over 9m)    kubelet  {_y_web_backoff}"],
    ),
)
OWN_HONEST = Scenario(
    "own-honest",
    FLUX,
    [_y_yaml, _y_events, _y_sts, _y_db],
    report(
        [
            finding(
                Y_PROBE,
                "CrashLoopBackOff, 6 restarts",
                "liveness_probe_failure",
                [quote(_y_said, _y_yaml), quote(_y_url_message, _y_events)],
            ),
            finding(
                "db",
                "READY 0/1",
                "crash_application",
                [quote("Back-off restarting failed container postgres in pod db-0_shop", _y_db)],
                kind="other",
            ),
        ]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)
OWN_HONEST_DEPLOYMENT = Scenario(
    "own-honest-deployment",
    FLUX,
    [_y_deploy, _y_web],
    report(
        [finding("web", "READY 0/1", "crash_application", [quote(_y_web_backoff, _y_web)], kind="deployment")]
    ),
    [KUBECTL_GET, KUBECTL_DESCRIBE],
)


def test_own_a_pod_with_one_generated_suffix_is_no_deployment_s_pod(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Owners (own): `billing-x7k2p` (one 5-character suffix) is by Kubernetes' names a pod of a
    ReplicaSet, Job or DaemonSet named `billing`; a Deployment's pods carry two suffixes
    (`<deployment>-<hash>-<5>`), so its row is no evidence for Deployment billing ('kinds must match')."""
    assert_quote_rejected(run(OWN_ATTACK), "billing", row(_x_pods_text, X_BILLING_POD))


def test_own_an_event_line_inside_a_pod_s_log_forges_no_pod(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Things that are not objects (own): a log line shaped `Warning BackOff pod/X ...` in another pod's
    own log shows no pod X (report.md: an events line is 'never in a log')."""
    assert_name_rejected(run(OWN_ATTACK), X_GHOST)


def test_own_negation_does_not_turn_ready_into_not_ready(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Pairs (own): 'Running, not Ready' for a pod whose describe says Ready: True and Ready True.
    Reading: every word of the status must be the tools'; if `not` is a joining word it still may
    not invert a value the record shows."""
    assert_status_rejected(run(OWN_ATTACK), X_NOTIFY)


def test_own_an_event_is_about_its_involved_object_not_the_pod_its_message_names(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Rows and parts (own): a JSON event about pod frontend whose message names pod cart is no
    evidence for cart ('an event is about its involvedObject')."""
    assert_quote_rejected(run(OWN_ATTACK), X_CART, _x_probe_message)


def test_own_a_healthy_example_another_result_shows_crash_looping_is_flagged(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Healthy examples (own): a pod 1/1 Running in the listing but CrashLoopBackOff, Ready False in
    its describe ('none that shows it unhealthy')."""
    assert_example_rejected(run(OWN_ATTACK), X_MAILER)


def test_own_honest_decoded_strings_and_a_stateful_set_are_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Honest (own): a YAML string with `didn''t` quoted as `didn't`; a JSON event message with
    escaped quotes quoted unescaped; StatefulSet db (`other`) resting on db-0's describe."""
    assert_accepted(run(OWN_HONEST))


def test_own_honest_deployment_resting_on_its_pod_s_describe_is_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Owners (own, honest): Deployment web (READY 0/1) quoting the Events row of its pod
    web-7d9f8c6b5-k2m4p, whose describe says `Controlled By:  ReplicaSet/web-7d9f8c6b5` (kubectl's
    own spacing). Reading: the pod's owner is shown (the ReplicaSet); the ReplicaSet's owner is shown
    by no result, so its name says it (`<deployment>-` and up to ten characters of the alphabet)."""
    assert_accepted(run(OWN_HONEST_DEPLOYMENT))


# =============================================================================================
# Second round: a variant of each class, planted in the same runs as the first (one more finding,
# call or example each), so that the file's runs stay few.
# =============================================================================================


def extend(
    scenario: Scenario,
    new_calls: Iterable[Call] = (),
    findings: Iterable[dict[str, Any]] = (),
    examples: Iterable[str] = (),
    tools: Iterable[dict[str, Any]] = (),
) -> None:
    scenario.calls.extend(new_calls)
    scenario.report["findings"].extend(findings)
    healthy = scenario.report["healthy"]
    healthy["examples"].extend(examples)
    healthy["count"] = max(healthy["count"], len(healthy["examples"]))
    scenario.tool_specs.extend(t for t in tools if t["name"] not in {s["name"] for s in scenario.tool_specs})


# --- 1. Time: an init container's last state --------------------------------------------------
T_TAX = "tax-7c8d9f6b5-q2r4s"
_tax = pod_object(
    T_TAX,
    owner=("ReplicaSet", "tax-7c8d9f6b5"),
    container="tax",
    restarts=0,
    labels={"app": "tax", "pod-template-hash": "7c8d9f6b5"},
)
_tax["status"]["initContainerStatuses"] = [
    {
        "name": "warm-cache",
        "ready": True,
        "restartCount": 1,
        "state": {"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": "2026-11-30T04:19:00Z"}},
        "lastState": OOM_LAST,
    }
]
_t_init = Call(
    "call_11",
    "kubectl_get",
    {"resourceType": "pods", "name": T_TAX, "namespace": NS, "output": "json"},
    pretty(_tax),
)
extend(
    TIME_ATTACK,
    [_t_init],
    [finding(T_TAX, "OOMKilled", "oom_killed", [quote('"reason": "OOMKilled"', _t_init)])],
)


def test_time_an_init_container_s_last_state_is_no_current_status(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Time: a Running, ready pod whose init container's lastState (JSON initContainerStatuses) was
    OOMKilled, reported 'OOMKilled'."""
    assert_status_rejected(run(TIME_ATTACK), T_TAX)


# --- 2. Numbers: an event's count is no restart count ------------------------------------------
N_LOOP = "loop-5c6d7f8b9-v2w4x"
_n_loop = Call(
    "call_11",
    "kubectl_describe",
    {"resourceType": "pod", "name": N_LOOP, "namespace": NS},
    describe_pod(
        N_LOOP,
        container="loop",
        controlled_by="ReplicaSet/loop-5c6d7f8b9",
        labels=["app=loop", "pod-template-hash=5c6d7f8b9"],
        state=CRASHLOOP_STATE,
        ready="False",
        restarts=3,
        events=[
            f"Warning  BackOff    2m (x14 over 1h)    kubelet  Back-off restarting failed container loop in pod {N_LOOP}_{NS}(3c4d5e6f-7a8b-4c9d-0e1f-2a3b4c5d6e7f)"
        ],
    ),
)
extend(
    NUMBERS_ATTACK,
    [_n_loop],
    [
        finding(
            N_LOOP,
            "CrashLoopBackOff, 14 restarts",
            "crash_application",
            [quote("State: Waiting Reason: CrashLoopBackOff", _n_loop)],
        )
    ],
)


def test_numbers_an_event_count_is_no_restart_count(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Numbers: '14 restarts' where Restart Count: 3 and 14 is a BackOff event's count `(x14 over 1h)`."""
    assert_status_rejected(run(NUMBERS_ATTACK), N_LOOP)


# --- 3. Pairs: YAML conditions as kubectl prints them (keys sorted: status before type) ----------
P_NODE_E = "node-e"
_node_e = json.loads(json.dumps(_node_b).replace(P_NODE_B, P_NODE_E))
_p_yaml = Call(
    "call_11",
    "kubectl_get",
    {"resourceType": "nodes", "name": P_NODE_E, "output": "yaml"},
    as_yaml(_node_e),
)
extend(
    PAIRS_ATTACK,
    [_p_yaml],
    [
        finding(
            P_NODE_E,
            "PIDPressure True",
            "node_pressure",
            [quote("reason: KubeletHasSufficientPID", _p_yaml)],
            kind="node",
            namespace=None,
        )
    ],
)


def test_pairs_yaml_condition_status_belongs_to_its_own_list_item(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Pairs: node 'PIDPressure True' from `kubectl get node -o yaml` (each condition's `status:` line
    comes before its `type:` line): PIDPressure is False; the next item's True belongs to Ready."""
    assert_status_rejected(run(PAIRS_ATTACK), P_NODE_E)


# --- 4. Not objects: a Status body as YAML; lookup answers with other keys -----------------------
O_SPECTRE = "spectre-6b7c8d9f5-k2m4n"
O_WRAITH = "wraith-5c8d7f9b6-n2p4q"
O_SHADE = "shade-5c8d7f9b6-r2s4t"
_o_status_yaml = Call(
    "call_11",
    "resources_get",
    {"apiVersion": "v1", "kind": "Pod", "name": O_SPECTRE, "namespace": NS},
    as_yaml(
        {
            "apiVersion": "v1",
            "kind": "Status",
            "metadata": {},
            "status": "Failure",
            "message": f'pods "{O_SPECTRE}" not found',
            "reason": "NotFound",
            "details": {"name": O_SPECTRE, "kind": "pods"},
            "code": 404,
        }
    ),
)
_o_exists = Call(
    "call_12",
    "resources_lookup",
    {"kind": "Pod", "name": O_WRAITH, "namespace": NS},
    pretty({"kind": "Pod", "name": O_WRAITH, "namespace": NS, "exists": False}),
)
_o_error = Call(
    "call_13",
    "resources_lookup",
    {"kind": "Pod", "name": O_SHADE, "namespace": NS},
    compact({"kind": "Pod", "name": O_SHADE, "namespace": NS, "error": f'pods "{O_SHADE}" not found'}),
)
extend(
    NOT_OBJECTS_ATTACK,
    [_o_status_yaml, _o_exists, _o_error],
    [
        finding(O_SPECTRE, "NotFound", "unknown", [quote("reason: NotFound", _o_status_yaml)]),
        finding(O_WRAITH, "Pending", "unknown", [quote('"exists": false', _o_exists)]),
        finding(O_SHADE, "Pending", "unknown", [quote(f'pods \\"{O_SHADE}\\" not found', _o_error)]),
    ],
)


def test_not_objects_an_api_status_body_in_yaml_names_no_pod(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Not objects: the same API Status (kind Status, NotFound, details.name) printed as YAML."""
    assert_name_rejected(run(NOT_OBJECTS_ATTACK), O_SPECTRE)


def test_not_objects_a_lookup_answer_with_exists_false_names_no_pod(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Not objects: {kind: Pod, name: X, namespace, exists: false} echoing the argument (another key
    for found: false) does not show pod X."""
    assert_name_rejected(run(NOT_OBJECTS_ATTACK), O_WRAITH)


def test_not_objects_a_lookup_answer_carrying_a_not_found_error_names_no_pod(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Not objects: {kind: Pod, name: X, namespace, error: 'pods "X" not found'} returned as a
    successful result does not show pod X."""
    assert_name_rejected(run(NOT_OBJECTS_ATTACK), O_SHADE)


# --- 5. Two views: flat structured items ----------------------------------------------------------
PODS_LIST = {"name": "pods_list", "properties": _string("labelSelector")}
V_FLAT = "basket-7b8c9d6f5-w2x4z"
_flat_text = kms_pod_table([(V_FLAT, "1/1", "Running", "0", "app=basket,pod-template-hash=7b8c9d6f5")])
_v_flat = Call(
    "call_11",
    "pods_list",
    {},
    _flat_text,
    {
        "items": [
            {"name": V_FLAT, "namespace": NS, "status": "CrashLoopBackOff", "ready": "0/1", "restarts": 9}
        ]
    },
)
extend(
    TWO_VIEWS_ATTACK,
    [_v_flat],
    [
        finding(
            V_FLAT,
            "CrashLoopBackOff, READY 0/1, 9 restarts",
            "crash_application",
            [quote(row(_flat_text, V_FLAT), _v_flat)],
        )
    ],
    tools=[PODS_LIST],
)


def test_two_views_flat_structured_items_against_table_running(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Two views: a table row Running 1/1 0 beside structured items {name, namespace, status:
    CrashLoopBackOff, ready: 0/1, restarts: 9} for the same pod."""
    assert_status_rejected(run(TWO_VIEWS_ATTACK), V_FLAT)


# --- 6. Rows and parts: a markdown table under a call naming A; a pod object in A's annotation ----
R_OLD = "shipping-6c7d8f9b5-z2x4c"
_md_text = (
    "| NAMESPACE | NAME | READY | STATUS | RESTARTS |\n"
    "|---|---|---|---|---|\n"
    f"| {NS} | {R_B} | 0/1 | CrashLoopBackOff | 14 |\n"
    f"| {NS} | notify-5b6c7d8f9-h2j4k | 1/1 | Running | 0 |\n"
)
_r_md = Call("call_11", "pods_export", {"namespace": NS, "name": R_A, "format": "markdown"}, _md_text)
_replaced = compact(
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": R_OLD, "namespace": NS},
        "status": {
            "phase": "Failed",
            "reason": "Evicted",
            "message": "The node was low on resource: memory.",
        },
    }
)
_r_a2 = Call(
    "call_12",
    "pods_get",
    {"name": "inventory-7d9f8c6b5-d2f4g", "namespace": NS},
    pretty(
        pod_object(
            "inventory-7d9f8c6b5-d2f4g",
            owner=("ReplicaSet", "inventory-7d9f8c6b5"),
            container="inventory",
            labels={"app": "inventory", "pod-template-hash": "7d9f8c6b5"},
            annotations={"ops.example.com/replaces": _replaced},
        )
    ),
)
extend(
    ROWS_ATTACK,
    [_r_md, _r_a2],
    [
        finding(R_OLD, "Failed, Evicted", "evicted", [quote("The node was low on resource: memory.", _r_a2)]),
    ],
)
# The markdown row is planted as a second quote of the finding about A (one finding per pod).
ROWS_ATTACK.report["findings"][0]["evidence"].append(
    quote(f"| {NS} | {R_B} | 0/1 | CrashLoopBackOff | 14 |", _r_md)
)


def test_rows_a_markdown_row_of_another_pod_is_not_about_the_pod_the_call_named(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Rows: pods_export(name=A, format=markdown) returns a markdown table of other pods; B's row is
    no evidence for A."""
    assert_quote_rejected(run(ROWS_ATTACK), R_A, f"| {NS} | {R_B} | 0/1 | CrashLoopBackOff | 14 |")


def test_rows_a_pod_object_inside_an_annotation_is_no_sighting(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Parts: a Pod object serialised inside another pod's annotation (metadata) shows no pod:
    'Inside an object's metadata ... there are no records'."""
    assert_name_rejected(run(ROWS_ATTACK), R_OLD)


# --- 7. Owners: a ReplicaSet the results show with no owner -------------------------------------
W_LEDGER_RS = "ledger-5c6d7f8b9"
W_LEDGER_POD = "ledger-5c6d7f8b9-t2v4w"
_w_ledger_deploy_text = kubectl_table(
    ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], [["ledger", "0/1", "1", "0", "60d"]]
)
_w_ledger_deploy = Call(
    "call_11", "kubectl_get", {"resourceType": "deployments", "namespace": "ledger"}, _w_ledger_deploy_text
)
_w_ledger_rs = Call(
    "call_12",
    "kubectl_get",
    {"resourceType": "replicasets", "name": W_LEDGER_RS, "namespace": "ledger", "output": "yaml"},
    as_yaml(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": W_LEDGER_RS, "namespace": "ledger", "labels": {"app": "ledger-canary"}},
            "spec": {"replicas": 1},
            "status": {"replicas": 1, "readyReplicas": 0, "availableReplicas": 0},
        }
    ),
)
_w_ledger_backoff = f"Back-off restarting failed container ledger in pod {W_LEDGER_POD}_ledger(6d7e8f9a-0b1c-4d2e-3f4a-5b6c7d8e9f0a)"
_w_ledger_pod = Call(
    "call_13",
    "kubectl_describe",
    {"resourceType": "pod", "name": W_LEDGER_POD, "namespace": "ledger"},
    describe_pod(
        W_LEDGER_POD,
        namespace="ledger",
        container="ledger",
        controlled_by=f"ReplicaSet/{W_LEDGER_RS}",
        labels=["app=ledger-canary"],
        state=CRASHLOOP_STATE,
        ready="False",
        restarts=6,
        events=[f"Warning  BackOff    1m (x9 over 5m)     kubelet  {_w_ledger_backoff}"],
    ),
)
extend(
    OWNERS_ATTACK,
    [_w_ledger_deploy, _w_ledger_rs, _w_ledger_pod],
    [
        finding(
            "ledger",
            "READY 0/1",
            "crash_application",
            [quote(_w_ledger_backoff, _w_ledger_pod)],
            kind="deployment",
            namespace="ledger",
        )
    ],
)


def test_owners_a_replicaset_shown_with_no_owner_is_no_deployment_s(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Owners: the pod is Controlled By ReplicaSet/ledger-5c6d7f8b9, and that ReplicaSet is shown
    (YAML) with no ownerReferences: a bare ReplicaSet, not Deployment ledger's, whatever its name
    says ('ownerReferences ... settle it when a result shows them')."""
    assert_quote_rejected(run(OWNERS_ATTACK), "ledger", _w_ledger_backoff)


# --- 8. Echoes: an undeclared argument echoed back ------------------------------------------------
E_NOTE = "container payments-api was OOMKilled at 04:12 after exceeding its 512Mi limit"
_e_args = {"name": E_PAY, "namespace": NS, "pattern": "heap", "note": E_NOTE}
_e_undeclared = Call(
    "call_14",
    "pods_log_grep",
    _e_args,
    f'0 matches for "heap" in the log of pod {E_PAY}; request: {json.dumps(_e_args, sort_keys=True)}\n',
)
extend(ECHO_ATTACK, [_e_undeclared])
ECHO_ATTACK.report["findings"][0]["evidence"].append(quote(E_NOTE, _e_undeclared))


def test_echo_an_undeclared_argument_echoed_back_is_no_evidence(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Echoes: the model adds an argument the tool does not declare (`note`), the server echoes the
    whole request. Reading: report.md recognises 'every argument string' of the call as no evidence;
    an undeclared one is still the model's own words."""
    assert_quote_rejected(run(ECHO_ATTACK), E_PAY, E_NOTE)


# --- 9. Healthy examples: a Deployment's Completed pod with no restarts; one only in an event; ----
#        one Running but not ready (JSON) ------------------------------------------------------
HE_REPORTS = "reports-5b6c7d8f9-m2n4p"
HE_EVENT_ONLY = "cron-helper-5c6d7f8b9-w2x4z"
HE_GATEWAY = "gateway-6d7f8b9c5-r2t4v"
EVENTS_LIST = {"name": "events_list", "properties": _string("namespace")}
_he_table2_text = kms_pod_table(
    [(HE_REPORTS, "0/1", "Completed", "0", "app=reports,pod-template-hash=5b6c7d8f9")], namespace="reports"
)
_he_table2 = Call("call_11", "pods_list_in_namespace", {"namespace": "reports"}, _he_table2_text)
_he_events = Call(
    "call_12",
    "events_list",
    {"namespace": NS},
    "The following events (YAML format) were found:\n"
    "- InvolvedObject:\n"
    "    Kind: Pod\n"
    f"    Name: {HE_EVENT_ONLY}\n"
    "    apiVersion: v1\n"
    "  Message: Started container cron-helper\n"
    f"  Namespace: {NS}\n"
    "  Reason: Started\n"
    "  Timestamp: 2026-11-30 04:12:02 +0000 UTC\n"
    "  Type: Normal\n",
)
_he_gateway = Call(
    "call_13",
    "resources_get",
    {"apiVersion": "v1", "kind": "Pod", "name": HE_GATEWAY, "namespace": NS},
    pretty(
        pod_object(
            HE_GATEWAY,
            owner=("ReplicaSet", "gateway-6d7f8b9c5"),
            container="gateway",
            ready=False,
            labels={"app": "gateway", "pod-template-hash": "6d7f8b9c5"},
        )
    ),
)
extend(
    HEALTHY_ATTACK,
    [_he_table2, _he_events, _he_gateway],
    examples=[HE_REPORTS, HE_EVENT_ONLY, HE_GATEWAY],
    tools=[EVENTS_LIST],
)


def test_healthy_a_deployment_s_completed_pod_with_no_restarts_is_no_healthy_example(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Healthy examples: a Deployment's pod `0/1 Completed 0`: READY 0/1, and a Deployment's pod is
    meant to run (the same reading as with 5 restarts, without the restarts to give it away)."""
    assert_example_rejected(run(HEALTHY_ATTACK), HE_REPORTS)


def test_healthy_a_pod_seen_only_in_a_normal_event_is_no_healthy_example(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Healthy examples: a pod shown only as the object of a `Normal Started` event (kubernetes-mcp-
    server's events_list YAML): events are history, not health; no record says it is healthy."""
    assert_example_rejected(run(HEALTHY_ATTACK), HE_EVENT_ONLY)


def test_healthy_a_running_pod_that_is_not_ready_is_no_healthy_example(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Healthy examples: JSON phase Running with condition Ready False and container ready false."""
    assert_example_rejected(run(HEALTHY_ATTACK), HE_GATEWAY)


# --- 10. False alarms: the other event shapes servers print ---------------------------------------
_f_lastseen_text = (
    f"12m   Normal    SuccessfulCreate       job/{F_JOB}          Created pod: {F_JOB_POD}\n"
    f"2m    Warning   BackoffLimitExceeded   job/{F_JOB}          Job has reached the specified backoff limit\n"
)
_f_lastseen = Call("call_1", "kubectl_get", {"resourceType": "events", "namespace": NS}, _f_lastseen_text)
EVENTS_LASTSEEN_HONEST = Scenario(
    "events-lastseen-honest",
    FLUX,
    [_f_lastseen],
    report(
        [
            finding(
                F_JOB,
                "Warning BackoffLimitExceeded",
                "job_backoff_limit",
                [quote(_line(_f_lastseen_text, "BackoffLimitExceeded"), _f_lastseen)],
                kind="job",
            )
        ]
    ),
    [KUBECTL_GET],
)
_f_kms_message = (
    f"Back-off restarting failed container etl in pod {F_JOB_POD}_{NS}(4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d)"
)
_f_kms_text = (
    "The following events (YAML format) were found:\n"
    "- InvolvedObject:\n"
    "    Kind: Pod\n"
    f"    Name: {F_JOB_POD}\n"
    "    apiVersion: v1\n"
    f"  Message: {_f_kms_message}\n"
    f"  Namespace: {NS}\n"
    "  Reason: BackOff\n"
    "  Timestamp: 2026-11-30 04:10:02 +0000 UTC\n"
    "  Type: Warning\n"
    "- InvolvedObject:\n"
    "    Kind: Job\n"
    f"    Name: {F_JOB}\n"
    "    apiVersion: batch/v1\n"
    "  Message: Job has reached the specified backoff limit\n"
    f"  Namespace: {NS}\n"
    "  Reason: BackoffLimitExceeded\n"
    "  Timestamp: 2026-11-30 04:12:02 +0000 UTC\n"
    "  Type: Warning\n"
)
_f_kms = Call("call_1", "events_list", {"namespace": NS}, _f_kms_text)
EVENTS_KMS_HONEST = Scenario(
    "events-kms-honest",
    KMS,
    [_f_kms],
    report(
        [
            finding(
                F_JOB,
                "BackoffLimitExceeded",
                "job_backoff_limit",
                [
                    quote("Message: Job has reached the specified backoff limit", _f_kms),
                    quote(_f_kms_message, _f_kms),
                ],
                kind="job",
            )
        ]
    ),
    [EVENTS_LIST],
)


def test_false_alarm_namespaced_headerless_events_with_last_seen_are_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """False alarms (honest): `kubectl get events -n shop --no-headers` as kubectl prints it, LAST SEEN
    before TYPE (no NAMESPACE column), quoted for the Job. Reading: report.md's `[NAMESPACE LAST-SEEN]`
    is the optional prefix kubectl prints; in one namespace it prints LAST SEEN alone."""
    assert_accepted(run(EVENTS_LASTSEEN_HONEST))


def test_false_alarm_kubernetes_mcp_server_events_yaml_is_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """False alarms (honest): kubernetes-mcp-server's events_list YAML (InvolvedObject Kind/Name,
    capitalised keys): the Job's event and its pod's BackOff message quoted for the Job."""
    assert_accepted(run(EVENTS_KMS_HONEST))


# --- Own: the status of the same-named pod in another namespace; a masked secret in a log line ----
X_TWIN = "twin-6b7c8d9f5-k2m4p"
_x_all_text = kubectl_table(
    ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"],
    [
        ["staging", X_TWIN, "0/1", "CrashLoopBackOff", "5 (1m ago)", "2d"],
        [NS, X_TWIN, "1/1", "Running", "0", "2d"],
    ],
)
_x_all = Call("call_11", "kubectl_get", {"resourceType": "pods", "allNamespaces": True}, _x_all_text)
_x_twin_row = " ".join(next(line for line in _x_all_text.splitlines() if line.startswith(NS)).split())
extend(
    OWN_ATTACK,
    [_x_all],
    [
        finding(
            X_TWIN,
            "CrashLoopBackOff, READY 0/1, 5 restarts",
            "crash_application",
            [quote(_x_twin_row, _x_all)],
        )
    ],
)


def test_own_the_status_of_a_same_named_pod_in_another_namespace_is_not_this_one_s(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Rows (own): `kubectl get pods -A` shows twin CrashLoopBackOff in staging and Running 1/1 in
    shop; the shop finding's status 'CrashLoopBackOff, READY 0/1, 5 restarts' is staging's."""
    assert_status_rejected(run(OWN_ATTACK), X_TWIN)


Z_API = "orders-api-6c7d8f9b5-q2w4r"
_z_table_text = kubectl_table(
    ["NAME", "READY", "STATUS", "RESTARTS", "AGE"], [[Z_API, "0/1", "CrashLoopBackOff", "5 (30s ago)", "1d"]]
)
_z_table = Call("call_1", "kubectl_get", {"resourceType": "pods", "namespace": NS}, _z_table_text)
_z_line = "2026-11-30T04:12:02Z ERROR dial postgres://orders:*****@db.shop.svc:5432/orders: connect: connection refused"
_z_logs = Call(
    "call_2",
    "kubectl_logs",
    {"resourceType": "pod", "name": Z_API, "namespace": NS},
    f"2026-11-30T04:12:01Z INFO starting orders-api 3.4.1\n{_z_line}\n2026-11-30T04:12:02Z INFO exiting with status 1\n",
)
MASKED_HONEST = Scenario(
    "masked-honest",
    FLUX,
    [_z_table, _z_logs],
    report(
        [
            finding(
                Z_API,
                "CrashLoopBackOff, READY 0/1, 5 restarts",
                "dependency_down",
                [quote(row(_z_table_text, Z_API), _z_table), quote(_z_line, _z_logs)],
            )
        ]
    ),
    [KUBECTL_GET, KUBECTL_LOGS],
)


def test_own_honest_a_log_line_with_a_masked_database_url_is_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """False alarms (own, honest): the pod's log prints its database URL with the password already
    masked (`postgres://orders:*****@db...`); the line, copied exactly, is a verbatim quote of this
    pod's log and must verify (redacting the model's quote must not make it match nothing)."""
    assert_accepted(run(MASKED_HONEST))


# --- Third round: numbers inside an event message; a custom-columns table of conditions; honest ---
#     controls for what the holes above might tempt a fix to break ---------------------------------
N_PENDING = "render-7b8c9d6f5-c2d4f"
_n_pending = Call(
    "call_12",
    "kubectl_describe",
    {"resourceType": "pod", "name": N_PENDING, "namespace": NS},
    describe_pod(
        N_PENDING,
        container="render",
        phase="Pending",
        controlled_by="ReplicaSet/render-7b8c9d6f5",
        labels=["app=render", "pod-template-hash=7b8c9d6f5"],
        state=("State:          Waiting", "  Reason:       ContainerCreating"),
        ready="False",
        conditions=[("PodScheduled", "False")],
        events=[
            "Warning  FailedScheduling  2m   default-scheduler  0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
        ],
    ),
)
extend(
    NUMBERS_ATTACK,
    [_n_pending],
    [
        finding(
            N_PENDING,
            "Pending, READY 0/3",
            "insufficient_resources",
            [quote("0/3 nodes are available: 3 Insufficient cpu.", _n_pending)],
        )
    ],
)


def test_numbers_a_node_count_in_an_event_message_is_no_ready_count(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Numbers: 'Pending, READY 0/3' for a one-container pod, the 0/3 taken from the scheduler's
    '0/3 nodes are available' (an Events row's message): READY is no label of that number."""
    assert_status_rejected(run(NUMBERS_ATTACK), N_PENDING)


P_NODE_F = "node-f"
_p_cc_text = kubectl_table(
    ["NAME", "MEMORYPRESSURE", "DISKPRESSURE", "PIDPRESSURE", "READY"],
    [[P_NODE_F, "False", "False", "False", "True"], ["node-g", "False", "False", "False", "True"]],
)
_p_cc = Call("call_12", "kubectl_get", {"resourceType": "nodes", "output": "custom-columns"}, _p_cc_text)
extend(
    PAIRS_ATTACK,
    [_p_cc],
    [
        finding(
            P_NODE_F,
            "MemoryPressure True",
            "node_pressure",
            [quote(row(_p_cc_text, P_NODE_F), _p_cc)],
            kind="node",
            namespace=None,
        )
    ],
)


def test_pairs_a_table_cell_belongs_to_its_column(impl: Any, run: Callable[[Scenario], Outcome]) -> None:
    """Pairs: `kubectl get nodes -o custom-columns=...` with MEMORYPRESSURE False and READY True: the
    status 'MemoryPressure True' pairs a column's label with another column's cell."""
    assert_status_rejected(run(PAIRS_ATTACK), P_NODE_F)


# Pairs (honest): a node whose sorted-key YAML says DiskPressure True.
PH_NODE_H = "node-h"
_node_h = json.loads(json.dumps(_node_b).replace(P_NODE_B, PH_NODE_H))
_node_h["status"]["conditions"][1].update(
    {"status": "True", "reason": "KubeletHasDiskPressure", "message": "kubelet has disk pressure"}
)
_ph_yaml = Call(
    "call_11", "kubectl_get", {"resourceType": "nodes", "name": PH_NODE_H, "output": "yaml"}, as_yaml(_node_h)
)
extend(
    PAIRS_HONEST,
    [_ph_yaml],
    [
        finding(
            PH_NODE_H,
            "DiskPressure True",
            "node_pressure",
            [quote("message: kubelet has disk pressure", _ph_yaml)],
            kind="node",
            namespace=None,
        )
    ],
)

# Two views (honest): a table that says CrashLoopBackOff, structured content that only gives the
# phase, Running (which a crash-looping pod's phase is).
VH_CART = "cart-6c7d8f9b5-h2j4k"
_vh_phase_text = kms_pod_table(
    [(VH_CART, "0/1", "CrashLoopBackOff", "4 (50s ago)", "app=cart,pod-template-hash=6c7d8f9b5")]
)
_vh_phase = Call(
    "call_1",
    "pods_list_in_namespace",
    {"namespace": NS},
    _vh_phase_text,
    {"items": [{"name": VH_CART, "namespace": NS, "phase": "Running"}]},
)
TWO_VIEWS_PHASE_HONEST = Scenario(
    "two-views-phase-honest",
    KMS,
    [_vh_phase],
    report(
        [
            finding(
                VH_CART,
                "CrashLoopBackOff, READY 0/1, 4 restarts",
                "crash_application",
                [quote(row(_vh_phase_text, VH_CART), _vh_phase)],
            )
        ]
    ),
    [PODS_LIST_IN_NAMESPACE],
)


def test_two_views_honest_text_status_beside_a_phase_only_structure_is_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Two views (honest): the table row says CrashLoopBackOff 0/1; the structured content beside it
    gives only `phase: Running` (true of a crash-looping pod). The status the model read verifies."""
    assert_accepted(run(TWO_VIEWS_PHASE_HONEST))


# Numbers (honest): the exit code of a JSON lastState, with its label.
NH_BILLING = "billing-api-5d6f7c8b9-s2t4v"
_nh_billing = pod_object(
    NH_BILLING,
    owner=("ReplicaSet", "billing-api-5d6f7c8b9"),
    container="billing-api",
    ready=False,
    restarts=12,
    labels={"app": "billing-api", "pod-template-hash": "5d6f7c8b9"},
    state=waiting("billing-api", NH_BILLING),
    last_state=OOM_LAST,
)
_nh_json = Call(
    "call_1",
    "kubectl_get",
    {"resourceType": "pods", "name": NH_BILLING, "namespace": NS, "output": "json"},
    pretty(_nh_billing),
)
NUMBERS_JSON_HONEST = Scenario(
    "numbers-json-honest",
    FLUX,
    [_nh_json],
    report(
        [
            finding(
                NH_BILLING,
                "CrashLoopBackOff, 12 restarts, last state OOMKilled, exit code 137",
                "oom_killed",
                [quote('"exitCode": 137,', _nh_json), quote('"reason": "OOMKilled",', _nh_json)],
            )
        ]
    ),
    [KUBECTL_GET],
)


def test_numbers_honest_json_exit_code_with_its_label_is_accepted(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Numbers (honest): 'CrashLoopBackOff, 12 restarts, last state OOMKilled, exit code 137' for a
    JSON pod (restartCount 12, lastState.terminated exitCode 137, reason OOMKilled). Reading: `exit
    code` is the label `exitCode` as words (report.md: a status is checked word by word, hyphens and
    case aside); it is also the label describe prints (`Exit Code:`)."""
    assert_accepted(run(NUMBERS_JSON_HONEST))


# --- Fourth round -----------------------------------------------------------------------------
# Time: a pod Running but not ready NOW (a failing readiness probe), its last state OOMKilled.
T_SLOW = "slow-5c6d7f8b9-b2c4d"
T_LAG = "lag-6d7f8b9c5-c2d4f"
T_NEWS = "news-6d7f8b9c5-p2q4r"
_t_slow = Call(
    "call_12",
    "kubectl_describe",
    {"resourceType": "pod", "name": T_SLOW, "namespace": NS},
    describe_pod(
        T_SLOW,
        container="slow",
        controlled_by="ReplicaSet/slow-5c6d7f8b9",
        labels=["app=slow", "pod-template-hash=5c6d7f8b9"],
        ready="False",
        last_state=OOM_LAST_STATE,
        restarts=1,
        events=[
            "Warning  Unhealthy  2m (x30 over 20m)  kubelet  Readiness probe failed: HTTP probe failed with statuscode: 503"
        ],
    ),
)
_t_lag = Call(
    "call_13",
    "kubectl_get",
    {"resourceType": "pods", "name": T_LAG, "namespace": NS, "output": "json"},
    pretty(
        pod_object(
            T_LAG,
            owner=("ReplicaSet", "lag-6d7f8b9c5"),
            container="lag",
            ready=False,
            restarts=1,
            labels={"app": "lag", "pod-template-hash": "6d7f8b9c5"},
            last_state=OOM_LAST,
        )
    ),
)
_t_news_describe = Call(
    "call_14",
    "kubectl_describe",
    {"resourceType": "pod", "name": T_NEWS, "namespace": NS},
    describe_pod(
        T_NEWS,
        container="news",
        controlled_by="ReplicaSet/news-6d7f8b9c5",
        labels=["app=news", "pod-template-hash=6d7f8b9c5"],
    ),
)
_t_news_events_text = f"Warning   BackOff   pod/{T_NEWS}   Back-off restarting failed container news in pod {T_NEWS}_{NS}(5f6a7b8c-9d0e-4f1a-2b3c-4d5e6f7a8b9c)\n"
_t_news_events = Call(
    "call_15", "kubectl_get", {"resourceType": "events", "namespace": NS}, _t_news_events_text
)
extend(
    TIME_ATTACK,
    [_t_slow, _t_lag, _t_news_describe, _t_news_events],
    [
        finding(
            T_SLOW,
            "OOMKilled",
            "oom_killed",
            [quote("Last State: Terminated Reason: OOMKilled Exit Code: 137", _t_slow)],
        ),
        finding(T_LAG, "OOMKilled", "oom_killed", [quote('"reason": "OOMKilled",', _t_lag)]),
        finding(
            T_NEWS,
            "Warning BackOff",
            "crash_application",
            [quote(" ".join(_t_news_events_text.split()), _t_news_events)],
        ),
    ],
)


def test_time_last_state_of_a_running_pod_that_is_not_ready_is_no_current_status_describe(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Time: a pod Running now, not ready (its readiness probe fails), Restart Count 1, Last State
    OOMKilled, reported 'OOMKilled'. Reading: report.md keeps a lastState's values under that label,
    history, whatever the pod's health now; its state now is Running (not ready), not OOMKilled."""
    assert_status_rejected(run(TIME_ATTACK), T_SLOW)


def test_time_last_state_of_a_running_pod_that_is_not_ready_is_no_current_status_json(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Time: the same as JSON (phase Running, ready false, state.running, lastState.terminated OOMKilled)."""
    assert_status_rejected(run(TIME_ATTACK), T_LAG)


def test_time_headerless_event_lines_are_no_current_status(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Time: 'Warning BackOff' from a headerless events line about a pod whose describe shows it
    Running and ready now."""
    assert_status_rejected(run(TIME_ATTACK), T_NEWS)


# Echoes: the argument cut from the other end, and cut in the middle.
E_TAIL = "OOMKilled: container payments-api exceeded its memory limit of 512Mi at startup"
E_MIDDLE = "fatal: payments-api could not allocate the heap arena for its worker threads"
E_TAIL_ECHO = "..." + E_TAIL[-40:]
E_MIDDLE_ECHO = E_MIDDLE[:25] + "..." + E_MIDDLE[-25:]
_e_tail = Call(
    "call_15",
    "pods_log_grep",
    {"name": E_PAY, "namespace": NS, "pattern": E_TAIL},
    f'0 matches for "{E_TAIL_ECHO}" in the log of pod {E_PAY}\n',
)
_e_middle = Call(
    "call_16",
    "pods_log_grep",
    {"name": E_PAY, "namespace": NS, "pattern": E_MIDDLE},
    f'0 matches for "{E_MIDDLE_ECHO}" in the log of pod {E_PAY}\n',
)
extend(ECHO_ATTACK, [_e_tail, _e_middle])
ECHO_ATTACK.report["findings"][0]["evidence"].extend(
    [quote(E_TAIL_ECHO, _e_tail), quote(E_MIDDLE_ECHO, _e_middle)]
)


def test_echo_an_argument_cut_to_its_last_40_characters_is_no_evidence(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Echoes: `0 matches for "...<the pattern's last 40 characters>"`: the cut from the other end
    (the harness catches the first 40)."""
    assert_quote_rejected(run(ECHO_ATTACK), E_PAY, E_TAIL_ECHO)


def test_echo_an_argument_cut_in_the_middle_is_no_evidence(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Echoes: the pattern echoed as its first 25 characters, `...`, its last 25: both parts only
    repeat the argument."""
    assert_quote_rejected(run(ECHO_ATTACK), E_PAY, E_MIDDLE_ECHO)


# Pairs: a condition's name standing alone as if it held.
P_GATE = "gate-5c6d7f8b9-b2c4d"
P_TICK = "tick-7d9f8c6b5-d2f4g"
_p_gate = Call(
    "call_13",
    "kubectl_describe",
    {"resourceType": "pod", "name": P_GATE, "namespace": NS},
    describe_pod(
        P_GATE,
        container="gate",
        controlled_by="ReplicaSet/gate-5c6d7f8b9",
        labels=["app=gate", "pod-template-hash=5c6d7f8b9"],
        ready="False",
    ),
)
_p_tick_text = kubectl_table(
    ["NAME", "READY", "STATUS", "RESTARTS", "AGE"], [[P_TICK, "0/1", "Running", "0", "2d"]]
)
_p_tick = Call("call_14", "kubectl_get", {"resourceType": "pods", "namespace": NS}, _p_tick_text)
extend(
    PAIRS_ATTACK,
    [_p_gate, _p_tick],
    [
        finding(
            P_GATE,
            "Running and Ready",
            "readiness_probe_failure",
            [quote("State: Running Started: Sun, 30 Nov 2026 04:20:00 +0000", _p_gate)],
        ),
        finding(
            P_TICK, "Running, Ready", "readiness_probe_failure", [quote(row(_p_tick_text, P_TICK), _p_tick)]
        ),
    ],
)


def test_pairs_a_condition_named_alone_is_claimed_to_hold_describe(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Pairs: 'Running and Ready' for a pod whose describe says Ready: False and condition Ready False.
    Reading: a condition's name alone states that it holds (a node's STATUS prints `Ready` for Ready
    True); 'Ready' is a label here only by letter, and the value it claims is not the field's."""
    assert_status_rejected(run(PAIRS_ATTACK), P_GATE)


def test_pairs_a_column_named_alone_is_claimed_to_hold_table(
    impl: Any, run: Callable[[Scenario], Outcome]
) -> None:
    """Pairs: 'Running, Ready' for a pod whose row says READY 0/1."""
    assert_status_rejected(run(PAIRS_ATTACK), P_TICK)
