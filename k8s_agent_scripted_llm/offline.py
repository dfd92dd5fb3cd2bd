"""The offline model: a deterministic SRE playbook behind the scripted server. Not an LLM.

It reads the tool results in the conversation, never a hard-coded name, and makes the
investigation the question asks for:

- pods (the default): list the pods of the namespace the question names (in any case; else of
  all namespaces), then in one round describe every unhealthy pod and read the logs of those
  that run or crash, then write the report: per unhealthy pod its status, the evidence line
  quoted from a tool result, the likely cause and a fix. A namespace with no pods is reported
  with the namespaces that have some.
- nodes (a question about nodes and not pods): list the nodes, describe them (every one on a
  small cluster, the not-Ready ones on a large one), and report each node that is not Ready or
  under memory, disk or PID pressure, with its condition lines.
- one pod (a question naming a pod): find it in the listing, describe it, read its logs if its
  containers ran, and report on that pod alone.

It speaks the mock cluster's tools (list_pods, describe_pod, get_pod_logs, list_nodes,
describe_node). Given other tools it says so instead of guessing. Any request without `tools`
gets the report of what it has.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_scripted_llm.script import Reply, Step, ToolCall

HEADER = "deterministic offline model: a scripted SRE playbook, not an LLM"
JSON_REPORT_INSTRUCTIONS = "Write the final report as one JSON object"
"""How the harness's system prompt asks for the JSON report in json_text mode (findings.instructions)."""
HEALTHY = frozenset({"Running", "Completed", "Succeeded"})
# Statuses of containers that started and died: their logs exist. (CreateContainerConfigError and the
# image-pull errors are not among them: those containers never started.)
CRASHING = re.compile(r"CrashLoop|OOMKilled|RunContainerError|^Error$|^Unknown$")
_NAMESPACE_IN_QUESTION = (
    re.compile(r"\b(?:in|of|for|from)\s+(?:the\s+)?[\"'`]?([a-z0-9][a-z0-9-]*)[\"'`]?\s+namespace\b", re.I),
    re.compile(r"\bnamespace\s+[\"'`]?([a-z0-9][a-z0-9-]*)", re.I),
)
_ALL_NAMESPACES = {"all", "every", "each", "any", "the"}
_SCOPE = re.compile(r"^Scope: namespace ([a-z0-9][a-z0-9-]*)\.$", re.M | re.I)
_POD_NAME = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+){2,}\b")
_NOT_POD_NAMES = frozenset({"kube-node-lease", "out-of-memory", "crash-looping", "up-to-date"})
_NODES = re.compile(r"\bnodes?\b", re.I)
_PODS = re.compile(r"\bpods?\b|\bworkloads?\b|\bcontainers?\b", re.I)
MAX_INVESTIGATED = 10
"""Unhealthy pods the playbook describes and reports in detail; the rest are named."""
MAX_NAMED = 20
MAX_REPORT_CHARS = 16_000
_EXCERPT = re.compile(r"^\[Result (r\d+) of ")
_SEARCH_LINE = re.compile(r"^r\d+:\d+: ")
_POD_COUNT = re.compile(r"^([\d,]+) pods? in (?:namespace \S+|\d+ namespaces)\.$", re.M)
_HEALTHY_ROW = r"\s(?:Running|Completed|Succeeded)\s"
_NOT_READY_ROW = r"\s(\d+)/(?!\1\s)\d+\s+Running\s"
_PRESSURES = ("MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable")
NODES_DESCRIBED_ALL_UP_TO = 10
"""Up to this many nodes the playbook describes every one (pressure shows only there); beyond, the not-Ready ones."""
_ERRORISH = re.compile(
    r"(?i)\b(error|fatal|panic|exception|failed|failure|missing|refused|denied|killed|timed? ?out|unreachable|not reachable)\b"
)
_WARNING_PRIORITY = (
    "FailedScheduling",
    "Failed",
    "FailedMount",
    "FailedAttachVolume",
    "Unhealthy",
    "FailedCreatePodSandBox",
    "Evicted",
    "OOMKilling",
    "BackOff",
)


@dataclass
class Pod:
    """One row of list_pods."""

    namespace: str
    name: str
    ready: str
    status: str
    restarts: int

    @property
    def unhealthy(self) -> bool:
        """Not Running/Completed, or Running without every container ready."""
        if self.status not in HEALTHY:
            return True
        have, _, want = self.ready.partition("/")
        return self.status == "Running" and have != want

    @property
    def runs_code(self) -> bool:
        """Whether its containers started, so logs can exist."""
        return self.status == "Running" or bool(CRASHING.search(self.status)) or self.restarts > 0


@dataclass
class Finding:
    """What the playbook concluded about one pod."""

    pod: Pod
    evidence: str = ""
    source: str = ""
    cause: str = ""
    fix: str = ""
    notes: list[str] = field(default_factory=list)
    category: str = "unknown"
    """The cause in the report's taxonomy (findings.Cause)."""
    hint: str = ""
    """A second telling line, from the logs, when the evidence is an event."""
    unchecked: list[str] = field(default_factory=list)


@dataclass
class Conversation:
    """The tool calls and results found in a request."""

    question: str
    offered: set[str]
    results: list[tuple[str, dict[str, Any], str]]  # (tool, arguments, content)
    call_ids: list[str] = field(default_factory=list)
    """The call id of each result, in the same order."""
    report_format: str = "prose"
    """How the request wants the report: json_schema (`response_format`), json_text (the JSON
    report described in the system prompt), or prose."""

    @classmethod
    def parse(cls, body: dict[str, Any]) -> Conversation:
        messages = body.get("messages") or []
        question = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
        offered = {t.get("function", {}).get("name") for t in body.get("tools") or []}
        calls: dict[str, tuple[str, dict[str, Any]]] = {}
        results = []
        call_ids = []
        for message in messages:
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                try:
                    arguments = json.loads(function.get("arguments") or "{}")
                except ValueError:
                    arguments = {}
                calls[call.get("id")] = (
                    function.get("name", ""),
                    arguments if isinstance(arguments, dict) else {},
                )
            if message.get("role") == "tool" and message.get("tool_call_id") in calls:
                name, arguments = calls[message["tool_call_id"]]
                results.append((name, arguments, _text(message.get("content"))))
                call_ids.append(str(message["tool_call_id"]))
        system = " ".join(_text(m.get("content")) for m in messages if m.get("role") == "system")
        wanted = body.get("response_format") or {}
        report_format = (
            "json_schema"
            if isinstance(wanted, dict) and wanted.get("type") == "json_schema"
            else "json_text"
            if JSON_REPORT_INSTRUCTIONS in system
            else "prose"
        )
        return cls(str(question), {n for n in offered if n}, results, call_ids, report_format)

    def latest(self, tool: str, pod: str | None = None, key: str = "name") -> str | None:
        """The last result of `tool` (for the object named `pod`), or None."""
        found = self._latest(tool, pod, key)
        return None if found is None else self.results[found][2]

    def latest_id(self, tool: str, pod: str | None = None, key: str = "name") -> str | None:
        """The call id of that result, or None."""
        found = self._latest(tool, pod, key)
        return None if found is None or found >= len(self.call_ids) else self.call_ids[found]

    def _latest(self, tool: str, pod: str | None, key: str) -> int | None:
        for index in range(len(self.results) - 1, -1, -1):
            name, arguments, _ = self.results[index]
            if name == tool and (pod is None or arguments.get(key) == pod):
                return index
        return None

    def quote(self, text: str, tool: str, pod: str | None = None, key: str = "name") -> dict[str, Any]:
        """A quote of the report: the text, with the call whose result it is from."""
        return {"text": text, "call_id": self.latest_id(tool, pod, key), "tool": tool}


def offline_model(body: dict[str, Any]) -> Step:
    """Answer one chat-completions request body with the playbook's next move."""
    chat = Conversation.parse(body)
    may_call = bool(body.get("tools"))
    if asks_about_nodes(chat.question):
        return _node_playbook(chat, may_call)
    named = question_pod(chat.question)
    if named is not None:
        return _pod_playbook(chat, may_call, named)
    listing = chat.latest("list_pods")
    if listing is None:
        if not may_call:
            return _said(chat, _report_header(chat), NO_RESULTS, _pods_scope(chat))
        if "list_pods" not in chat.offered:
            return _said(chat, _report_header(chat), _unknown_tools(chat), _pods_scope(chat))
        namespace = question_namespace(chat.question)
        arguments = {"namespace": namespace} if namespace else {}
        return Reply(tool_calls=(ToolCall("list_pods", json.dumps(arguments)),))

    view = _listing_view(chat, listing)
    if view is None:  # an excerpt: find its unhealthy rows with the search tool first
        return _search_excerpt(chat, listing, may_call)
    pods, total = view
    unhealthy = [pod for pod in pods if pod.unhealthy]
    chosen = unhealthy[:MAX_INVESTIGATED]
    investigated = any(chat.latest("describe_pod", pod.name) is not None for pod in chosen)
    if chosen and not investigated and may_call and not listing.startswith("Tool call failed"):
        round_two = []
        for pod in chosen:
            where = {"name": pod.name, "namespace": pod.namespace}
            round_two.append(ToolCall("describe_pod", json.dumps(where)))
            if pod.runs_code and "get_pod_logs" in chat.offered:
                round_two.append(ToolCall("get_pod_logs", json.dumps({**where, "tail": 20})))
        return Reply(tool_calls=tuple(round_two))
    if chat.report_format != "prose":
        return _structured(chat, pods_draft(chat, listing, pods, unhealthy, total))
    return Reply(content=write_report(chat, listing, pods, unhealthy, total))


def _excerpt_handle(text: str) -> str | None:
    match = _EXCERPT.match(text)
    return match[1] if match else None


def _search_tool(chat: Conversation) -> str | None:
    return next((name for name in sorted(chat.offered) if name.endswith("search_results")), None)


def _searches(chat: Conversation, handle: str) -> list[str]:
    tool = _search_tool(chat)
    return [
        content
        for name, arguments, content in chat.results
        if name == tool and arguments.get("handle") == handle
    ]


def _search_excerpt(chat: Conversation, listing: str, may_call: bool) -> Step:
    """Ask the search tool for the rows of a listing too large to see whole that are not healthy."""
    handle = _excerpt_handle(listing) or ""
    tool = _search_tool(chat)
    if tool is None or not may_call:
        said = f"The pod listing was too large to read whole ({listing.splitlines()[0]}) and it could not be searched."
        return _said(chat, _report_header(chat) + "\n", said, _pods_scope(chat))
    searches = [
        {"handle": handle, "pattern": _HEALTHY_ROW, "regex": True, "invert": True, "max_matches": 200},
        {"handle": handle, "pattern": _NOT_READY_ROW, "regex": True, "max_matches": 200},
    ]
    return Reply(tool_calls=tuple(ToolCall(tool, json.dumps(arguments)) for arguments in searches))


def _listing_view(chat: Conversation, listing: str) -> tuple[list[Pod], int] | None:
    """The pods to judge and how many the listing holds in all; None while an excerpt is unsearched.

    A listing seen whole is parsed whole. Of an excerpt, the pods are its header's and shown rows'
    plus the rows the searches found (the rows that are not Running or not ready), and the total is
    the listing's own closing count ("5000 pods in namespace x.") or its line count.
    """
    handle = _excerpt_handle(listing)
    if handle is None:
        pods = parse_pod_table(listing)
        return pods, len(pods)
    found = _searches(chat, handle)
    if len(found) < 2:
        return None
    shown = [line for line in listing.splitlines()[1:] if not line.startswith("[")]
    header = shown[0] if shown else ""
    rows = [
        row
        for text in found
        for line in text.splitlines()[1:]
        if (row := _SEARCH_LINE.sub("", line)) != header
    ]
    by_name = {pod.name: pod for pod in parse_pod_table("\n".join(shown + rows))}
    counted = _POD_COUNT.search(listing)
    lines = re.search(r"^\[Result \S+ of .*?: ([\d,]+) lines", listing)
    total = (
        int(counted[1].replace(",", ""))
        if counted
        else max(len(by_name), int(lines[1].replace(",", "")) - 1 if lines else len(by_name))
    )
    return list(by_name.values()), total


def _node_playbook(chat: Conversation, may_call: bool) -> Step:
    """List the nodes, describe them, report the ones not Ready or under pressure."""
    header = f"Node report ({HEADER})"
    if not {"list_nodes", "describe_node"} <= chat.offered and may_call:
        return _said(chat, header, _unknown_tools(chat), "nodes")
    listing = chat.latest("list_nodes")
    if listing is None:
        if not may_call:
            return _said(chat, header, NO_RESULTS, "nodes")
        return Reply(tool_calls=(ToolCall("list_nodes", "{}"),))
    nodes = parse_table(listing)
    chosen = [n for n in nodes if len(nodes) <= NODES_DESCRIBED_ALL_UP_TO or n.get("STATUS") != "Ready"]
    described = any(chat.latest("describe_node", n["NAME"], key="name") is not None for n in chosen)
    if chosen and not described and may_call and not listing.startswith("Tool call failed"):
        return Reply(
            tool_calls=tuple(ToolCall("describe_node", json.dumps({"name": n["NAME"]})) for n in chosen)
        )
    if chat.report_format != "prose":
        return _structured(chat, nodes_draft(chat, listing, nodes))
    return Reply(content=write_node_report(chat, header, listing, nodes))


def write_node_report(chat: Conversation, header: str, listing: str, nodes: list[dict[str, str]]) -> str:
    """Per node not Ready or under pressure: its status, the condition lines, a cause and a fix."""
    lines = [header, ""]
    if listing.startswith("Tool call failed") or not nodes:
        lines.append(f"Could not list the nodes, so nothing could be checked. {listing.strip()}")
        return "\n".join(lines)
    findings: list[tuple[dict[str, str], list[str], str]] = []
    for node in nodes:
        description = chat.latest("describe_node", node["NAME"], key="name") or ""
        conditions = _true_pressures(description)
        not_ready = node.get("STATUS") != "Ready"
        if not_ready or conditions:
            evidence = [
                line.strip() for line in description.splitlines() if _condition_line(line, conditions)
            ]
            findings.append(
                (
                    node,
                    evidence or [f"STATUS {node.get('STATUS')}"],
                    "describe_node" if evidence else "list_nodes",
                )
            )
    lines.append(f"{len(findings)} of {len(nodes)} nodes are unhealthy or under pressure.")
    for number, (node, evidence, source) in enumerate(findings, start=1):
        cause, fix = _node_cause_and_fix(node, evidence)
        lines += ["", f"{number}. node {node['NAME']}: {node.get('STATUS')}"]
        lines += [f"   Evidence ({source}): {line}" for line in evidence]
        lines += [f"   Cause: {cause}", f"   Fix: {fix}"]
    unchecked = [n["NAME"] for n in nodes if chat.latest("describe_node", n["NAME"], key="name") is None]
    if unchecked and len(nodes) > NODES_DESCRIBED_ALL_UP_TO:
        lines += ["", f"Not described (Ready in the listing; pressure not checked): {len(unchecked)} nodes."]
    healthy = [n["NAME"] for n in nodes if n not in [f[0] for f in findings]]
    if healthy:
        lines += ["", f"Healthy: {', '.join(healthy[:10])}{' and more' if len(healthy) > 10 else ''}."]
    return "\n".join(lines)


def _true_pressures(description: str) -> list[str]:
    found = []
    for line in description.splitlines():
        cells = line.split()
        if len(cells) >= 2 and cells[0] in _PRESSURES and cells[1] == "True":
            found.append(cells[0])
    return found


def _condition_line(line: str, pressures: list[str]) -> bool:
    cells = line.split()
    if len(cells) < 2:
        return False
    return (cells[0] == "Ready" and cells[1] != "True") or (cells[0] in pressures and cells[1] == "True")


def _node_cause_and_fix(node: dict[str, str], evidence: list[str]) -> tuple[str, str]:
    text = " ".join(evidence)
    if "MemoryPressure" in text:
        return (
            "the node is short of memory: the kubelet evicts pods and refuses new ones",
            "find the pods using the memory (describe the node, top its pods), set limits, or add capacity",
        )
    if "DiskPressure" in text:
        return (
            "the node is short of disk: the kubelet evicts pods and garbage-collects images",
            "free disk on the node (images, logs, emptyDir volumes) or give it a larger disk",
        )
    if "PIDPressure" in text:
        return ("the node is running out of process ids", "find the pod that forks too many processes")
    if "NetworkUnavailable" in text:
        return ("the node's network is not configured", "check the CNI plugin on the node")
    return (
        f"the node is {node.get('STATUS')}: the kubelet does not report healthy",
        "check the kubelet and the node's connectivity (describe_node's events), then cordon and drain "
        "it if it does not recover",
    )


def _pod_playbook(chat: Conversation, may_call: bool, name: str) -> Step:
    """Find the pod the question names, describe it (and read its logs), report on it alone."""
    namespace = question_namespace(chat.question)
    header = f"Health report for pod {name} ({HEADER})"
    listing = chat.latest("list_pods")
    if listing is None:
        if not may_call:
            return _said(chat, header, NO_RESULTS, f"pod {name}")
        if "list_pods" not in chat.offered:
            return _said(chat, header, _unknown_tools(chat), f"pod {name}")
        arguments = {"namespace": namespace} if namespace else {}
        return Reply(tool_calls=(ToolCall("list_pods", json.dumps(arguments)),))
    pod = next((p for p in parse_pod_table(listing) if p.name == name), None)
    if pod is None:
        scope = f"namespace {namespace}" if namespace else "any namespace"
        return _said(
            chat, header + "\n", f"There is no pod named {name} in {scope} (list_pods).", f"pod {name}"
        )
    pod.namespace = pod.namespace or namespace or ""
    where = {"name": pod.name, "namespace": pod.namespace}
    if chat.latest("describe_pod", pod.name) is None and may_call:
        calls = [ToolCall("describe_pod", json.dumps(where))]
        if pod.runs_code and "get_pod_logs" in chat.offered:
            calls.append(ToolCall("get_pod_logs", json.dumps({**where, "tail": 20})))
        return Reply(tool_calls=tuple(calls))
    lines = [header, ""]
    if not pod.unhealthy:
        lines.append(f"{pod.name} ({pod.namespace}) is healthy: {pod.status}, READY {pod.ready} (list_pods).")
        if chat.report_format != "prose":
            return _structured(chat, _draft(f"pod {pod.name}", healthy=1, examples=[pod.name]))
        return Reply(content="\n".join(lines))
    finding = diagnose(chat, pod)
    if chat.report_format != "prose":
        return _structured(
            chat, _draft(f"pod {pod.name}", [pod_finding(chat, finding)], unchecked=finding.unchecked)
        )
    lines += [
        f"{pod.name} ({pod.namespace}): {pod.status}, READY {pod.ready}"
        + (f", {pod.restarts} restarts" if pod.restarts else ""),
        f"   Evidence ({finding.source}): {finding.evidence}",
        f"   Cause: {finding.cause}",
        f"   Fix: {finding.fix}",
        *[f"   Note: {note}" for note in finding.notes],
    ]
    return Reply(content="\n".join(lines))


def _unknown_tools(chat: Conversation) -> str:
    return (
        "This playbook knows the mock cluster's tools (list_pods, describe_pod, get_pod_logs, list_nodes, "
        f"describe_node); this server offers {', '.join(sorted(chat.offered)) or 'no tools'}. Use a real model "
        "(--model, --base-url) for this server."
    )


def parse_table(listing: str) -> list[dict[str, str]]:
    """Rows of a kubectl-like table as dicts by header name (columns split on runs of spaces)."""
    lines = [line for line in listing.splitlines() if line.strip()]
    if not lines:
        return []
    columns = lines[0].split()
    rows = []
    for line in lines[1:]:
        cells = line.split()
        if len(cells) >= len(columns):
            rows.append(dict(zip(columns, cells, strict=False)))
    return rows


def question_namespace(question: str) -> str | None:
    """The namespace a question names ("in the Production namespace", "Scope: namespace x."), if
    any, lower-cased: Kubernetes namespaces are lower-case DNS labels."""
    scope = _SCOPE.search(question)
    if scope:
        return scope[1].lower()
    for pattern in _NAMESPACE_IN_QUESTION:
        match = pattern.search(question)
        if match and match[1].lower() not in _ALL_NAMESPACES:
            return match[1].lower()
    return None


def question_pod(question: str) -> str | None:
    """The pod a question names (a pod-like name that is not the namespace it names), if any."""
    namespace = question_namespace(question)
    for match in _POD_NAME.finditer(question):
        if match[0] != namespace and match[0] not in _NOT_POD_NAMES:
            return match[0]
    return None


def asks_about_nodes(question: str) -> bool:
    """Whether the question is about nodes rather than pods."""
    return bool(_NODES.search(question)) and not _PODS.search(question)


def parse_pod_table(listing: str) -> list[Pod]:
    """Rows of a list_pods table, by header name (any column order)."""
    lines = [line for line in listing.splitlines() if line.strip()]
    header_index = next(
        (i for i, line in enumerate(lines) if line.split()[:1] in (["NAMESPACE"], ["NAME"])), None
    )
    if header_index is None:
        return []
    columns = lines[header_index].split()
    pods = []
    for line in lines[header_index + 1 :]:
        cells = line.split()
        if len(cells) < len(columns):
            continue
        row = dict(zip(columns, cells, strict=False))
        try:
            restarts = int(row.get("RESTARTS", "0"))
        except ValueError:
            restarts = 0
        pods.append(
            Pod(
                row.get("NAMESPACE", ""),
                row["NAME"],
                row.get("READY", "1/1"),
                row.get("STATUS", ""),
                restarts,
            )
        )
    return pods


def write_report(
    chat: Conversation, listing: str, pods: list[Pod], unhealthy: list[Pod], total: int | None = None
) -> str:
    """The health report, every conclusion quoting its tool result; bounded whatever the cluster:
    at most MAX_INVESTIGATED pods in detail, the healthy ones as a count with a few names."""
    lines = [_report_header(chat), ""]
    if listing.startswith("Tool call failed"):
        lines.append(f"Could not list the pods, so nothing could be checked. {listing}")
        return "\n".join(lines)
    if not pods:
        said = listing.strip().splitlines()[-1] if listing.strip() else ""
        lines.append(f"list_pods returned no pods: {said}")
        if "Namespaces with pods:" in said:
            lines.append("Check the namespace's name: the question may name one that does not exist.")
        return "\n".join(lines)
    total = len(pods) if total is None else total
    lines.append(f"{len(unhealthy):,} of {total:,} pods are unhealthy.")
    for number, pod in enumerate(unhealthy[:MAX_INVESTIGATED], start=1):
        finding = diagnose(chat, pod)
        restarts = f", {pod.restarts} restarts" if pod.restarts else ""
        lines += [
            "",
            f"{number}. {pod.name} ({pod.namespace}): {pod.status}, READY {pod.ready}{restarts}",
            f"   Evidence ({finding.source}): {finding.evidence}",
            f"   Cause: {finding.cause}",
            f"   Fix: {finding.fix}",
        ]
        lines += [f"   Note: {note}" for note in finding.notes]
    rest = unhealthy[MAX_INVESTIGATED:]
    if rest:
        names = ", ".join(pod.name for pod in rest[:MAX_NAMED])
        more = f" and {len(rest) - MAX_NAMED:,} more" if len(rest) > MAX_NAMED else ""
        lines += ["", f"Not investigated ({len(rest):,} more unhealthy pods): {names}{more}."]
    healthy = [pod.name for pod in pods if not pod.unhealthy]
    healthy_count = total - len(unhealthy)
    if healthy_count > 0 and len(healthy) == healthy_count and healthy_count <= MAX_NAMED:
        lines += ["", f"Healthy: {', '.join(healthy)}."]
    elif healthy_count > 0:
        lines += ["", f"Healthy: {healthy_count:,} pods, for example {', '.join(healthy[:3])}."]
    report = "\n".join(lines)
    return (
        report
        if len(report) <= MAX_REPORT_CHARS
        else report[: MAX_REPORT_CHARS - 40] + "\n[report cut at 16 KB]"
    )


NO_RESULTS = "No tool results: the cluster could not be inspected."
MAX_EXAMPLES = 5


def _said(chat: Conversation, header: str, message: str, scope: str) -> Reply:
    """A report with nothing to diagnose: the prose line, or a report whose `unchecked` says it."""
    if chat.report_format == "prose":
        return Reply(content=f"{header}\n{message}")
    return _structured(chat, _draft(scope, unchecked=[message]))


def _draft(
    scope: str,
    findings: list[dict[str, Any]] | None = None,
    *,
    healthy: int = 0,
    examples: list[str] | None = None,
    unchecked: list[str] | None = None,
) -> dict[str, Any]:
    """The JSON report (findings.HealthReport's fields)."""
    return {
        "scope": scope,
        "findings": findings or [],
        "healthy": {"count": healthy, "examples": (examples or [])[:MAX_EXAMPLES]},
        "unchecked": unchecked or [],
    }


def _structured(chat: Conversation, draft: dict[str, Any]) -> Reply:
    """The JSON report: bare for json_schema, in a ```json fence for json_text (as many models write it)."""
    text = json.dumps(draft, ensure_ascii=False, indent=1)
    return Reply(content=text if chat.report_format == "json_schema" else f"```json\n{text}\n```")


def _pods_scope(chat: Conversation) -> str:
    namespace = question_namespace(chat.question)
    return f"pods in namespace {namespace}" if namespace else "pods in all namespaces"


def pod_finding(chat: Conversation, finding: Finding) -> dict[str, Any]:
    """One finding of the JSON report, its evidence quoted verbatim with the call it came from."""
    pod = finding.pod
    by_pod = finding.source != "list_pods"
    evidence = [chat.quote(finding.evidence, finding.source, pod.name if by_pod else None)]
    if finding.hint:
        evidence.append(chat.quote(finding.hint, "get_pod_logs", pod.name))
    restarts = f", {pod.restarts} restarts" if pod.restarts else ""
    return {
        "kind": "pod",
        "name": pod.name,
        "namespace": pod.namespace or None,
        "status": f"{pod.status}, READY {pod.ready}{restarts}",
        "cause": finding.category,
        "explanation": finding.cause,
        "evidence": evidence,
        "fix": finding.fix,
    }


def pods_draft(
    chat: Conversation, listing: str, pods: list[Pod], unhealthy: list[Pod], total: int
) -> dict[str, Any]:
    """The JSON report of the pods playbook: what write_report says, as data."""
    scope = _pods_scope(chat)
    if listing.startswith("Tool call failed"):
        return _draft(scope, unchecked=[f"Could not list the pods: {listing}"])
    if not pods:
        said = listing.strip().splitlines()[-1] if listing.strip() else ""
        return _draft(scope, unchecked=[f"list_pods returned no pods: {said}"])
    findings, unchecked = [], []
    for pod in unhealthy[:MAX_INVESTIGATED]:
        finding = diagnose(chat, pod)
        findings.append(pod_finding(chat, finding))
        unchecked += finding.unchecked
    rest = unhealthy[MAX_INVESTIGATED:]
    if rest:
        names = ", ".join(pod.name for pod in rest[:MAX_NAMED])
        more = f" and {len(rest) - MAX_NAMED:,} more" if len(rest) > MAX_NAMED else ""
        unchecked.append(f"{len(rest):,} more unhealthy pods not investigated: {names}{more}")
    healthy = [pod.name for pod in pods if not pod.unhealthy]
    return _draft(
        scope, findings, healthy=max(0, total - len(unhealthy)), examples=healthy, unchecked=unchecked
    )


def nodes_draft(chat: Conversation, listing: str, nodes: list[dict[str, str]]) -> dict[str, Any]:
    """The JSON report of the node playbook."""
    if listing.startswith("Tool call failed") or not nodes:
        return _draft("nodes", unchecked=[f"Could not list the nodes: {listing.strip()}"])
    findings, bad = [], set()
    for node in nodes:
        name = node["NAME"]
        description = chat.latest("describe_node", name, key="name") or ""
        conditions = _true_pressures(description)
        if node.get("STATUS") == "Ready" and not conditions:
            continue
        bad.add(name)
        lines = [line.strip() for line in description.splitlines() if _condition_line(line, conditions)]
        if lines:
            evidence = [chat.quote(line, "describe_node", name) for line in lines]
        else:
            row = next((line.strip() for line in listing.splitlines() if line.split()[:1] == [name]), name)
            evidence = [chat.quote(row, "list_nodes")]
        cause, fix = _node_cause_and_fix(node, lines)
        findings.append(
            {
                "kind": "node",
                "name": name,
                "namespace": None,
                "status": node.get("STATUS", ""),
                "cause": "node_not_ready" if node.get("STATUS") != "Ready" else "node_pressure",
                "explanation": cause,
                "evidence": evidence,
                "fix": fix,
            }
        )
    unchecked = []
    undescribed = [n["NAME"] for n in nodes if chat.latest("describe_node", n["NAME"], key="name") is None]
    if undescribed and len(nodes) > NODES_DESCRIBED_ALL_UP_TO:
        unchecked.append(
            f"{len(undescribed)} nodes not described (Ready in the listing; pressure not checked)"
        )
    healthy = [n["NAME"] for n in nodes if n["NAME"] not in bad]
    return _draft("nodes", findings, healthy=len(healthy), examples=healthy, unchecked=unchecked)


def diagnose(chat: Conversation, pod: Pod) -> Finding:
    """Pick the evidence line for a pod and match it to a cause and a fix."""
    finding = Finding(pod)
    description = chat.latest("describe_pod", pod.name)
    logs = chat.latest("get_pod_logs", pod.name)
    candidates: list[tuple[int, str, str]] = []  # (rank, source, line); lower rank wins
    if description and not description.startswith("Tool call failed"):
        last_reason = re.search(r"Last State:\s+Terminated\s*\n\s+Reason:\s+(\w+)", description)
        if last_reason and last_reason[1] == "OOMKilled":
            candidates.append((0, "describe_pod", " ".join(last_reason[0].split())))
        for rank, (reason, message) in enumerate(_warning_events(description), start=10):
            priority = (
                _WARNING_PRIORITY.index(reason) if reason in _WARNING_PRIORITY else len(_WARNING_PRIORITY)
            )
            if reason == "Failed" and message.startswith("Error: "):
                priority += (
                    5  # "Error: ErrImagePull" says less than "Failed to pull image ...: manifest unknown"
                )
            candidates.append((10 + priority * 10 + rank % 10, "describe_pod", message))
    elif description:
        finding.notes.append(f"describe_pod failed: {description}")
        finding.unchecked.append(f"{pod.name}: describe_pod failed: {description}")
    if logs and not logs.startswith(("Tool call failed", "[Duplicate call]")) and logs != "(no log lines)":
        line = _telling_log_line(logs)
        if line:
            # A crash's own words beat the kubelet's back-off notice; a probe failure is best told by its event.
            rank = 5 if CRASHING.search(pod.status) or pod.restarts else 60
            candidates.append((rank, "get_pod_logs", line))
    elif logs and logs.startswith("Tool call failed"):
        finding.notes.append(f"logs unavailable: {logs}")
        finding.unchecked.append(f"{pod.name}: logs unavailable: {logs}")
    if not candidates:
        finding.source = "list_pods"
        finding.evidence = next(
            (
                line.strip()
                for line in chat.latest("list_pods").splitlines()  # type: ignore[union-attr]
                if pod.name in line
            ),
            pod.status,
        )
    else:
        _, finding.source, finding.evidence = min(candidates)
    finding.category, finding.cause, finding.fix = _cause_and_fix(
        pod, finding.evidence, description or "", logs or ""
    )
    if (
        finding.source == "describe_pod"
        and logs
        and _telling_log_line(logs)
        and "get_pod_logs" not in finding.evidence
    ):
        hint = _telling_log_line(logs)
        if hint and hint != finding.evidence and _ERRORISH.search(hint):
            finding.notes.append(f"the logs (get_pod_logs) say: {hint}")
            finding.hint = hint
    return finding


def _cause_and_fix(pod: Pod, evidence: str, description: str, logs: str) -> tuple[str, str, str]:
    quoted = re.search(r"'([^']+)'|\"([^\"]+)\"", evidence)
    subject = (quoted[1] or quoted[2]) if quoted else None
    limit = re.search(r"Limits:.*memory=(\S+)", description)
    requests = re.search(r"Requests:\s*(.+)", description)
    if "OOMKilled" in evidence:
        current = f" (now {limit[1]})" if limit else ""
        return (
            "oom_killed",
            "the container exceeds its memory limit and is killed (OOMKilled)",
            f"raise the container's memory limit{current} or reduce its memory use, then roll it out again",
        )
    if re.search(r"(?i)missing required|not set|is required|undefined variable|no such env", evidence):
        what = f"'{subject}'" if subject else "a required setting"
        return (
            "crash_config",
            f"the application exits at start-up because its configuration lacks {what}",
            f"provide {what} to the container (e.g. an env entry from its Secret) and roll the deployment out again",
        )
    if re.search(r"(?i)(secret|configmap) .* not found|CreateContainerConfigError", evidence + pod.status):
        return (
            "missing_config_reference",
            "the container cannot be created: it references a Secret or ConfigMap that does not exist",
            "create the missing object in this namespace, or fix the reference in the pod spec",
        )
    if re.search(r"(?i)pull|image", evidence) or "Image" in pod.status:
        image = re.search(r'image "([^"]+)"', evidence)
        name = f" {image[1]}" if image else ""
        if re.search(r"(?i)manifest unknown|not found", evidence):
            return (
                "image_not_found",
                f"the image{name} does not exist in the registry (wrong or unpublished tag)",
                "push that tag, or set the image to a published tag and roll out again",
            )
        if re.search(r"(?i)unauthorized|denied|authentication required|forbidden", evidence):
            return (
                "image_unauthorized",
                f"the registry refuses to serve the image{name} without credentials",
                "add or fix the imagePullSecrets of the pod's service account",
            )
        return (
            "image_pull_failed",
            f"the image{name} cannot be pulled",
            "check the image name, the registry's reachability and credentials",
        )
    if "FailedScheduling" in description and re.search(r"nodes are available", evidence):
        short = re.findall(r"Insufficient (\w+)", evidence)
        if short:
            wanted = f" (requests: {requests[1].strip()})" if requests else ""
            return (
                "insufficient_resources",
                f"no node has enough free {' and '.join(sorted(set(short)))} for the pod's requests{wanted}",
                "lower the pod's requests, free capacity on the nodes, or add a node (or let the autoscaler)",
            )
        if re.search(r"(?i)affinity|selector", evidence):
            return (
                "node_selector_mismatch",
                "no node matches the pod's node selector or affinity",
                "fix the selector/affinity or label a node",
            )
        if re.search(r"(?i)taint", evidence):
            return (
                "untolerated_taint",
                "every node has a taint the pod does not tolerate",
                "add the toleration or remove the taint",
            )
        if re.search(r"(?i)persistentvolumeclaim", evidence):
            return (
                "unbound_volume",
                "the pod waits for a PersistentVolumeClaim that is not bound",
                "create or fix the PVC and its storage class",
            )
        return (
            "unschedulable",
            "the scheduler cannot place the pod",
            "read the scheduler's message above and adjust the pod spec",
        )
    if re.search(r"(?i)readiness probe failed", evidence):
        return (
            "readiness_probe_failure",
            "the container runs but fails its readiness probe, so it receives no traffic",
            "fix what the probe checks (see the logs: a dependency may be down) or correct the probe's path/port",
        )
    if re.search(r"(?i)liveness probe failed", evidence):
        return (
            "liveness_probe_failure",
            "the container fails its liveness probe and is restarted by the kubelet",
            "fix the health endpoint or give the probe a realistic delay and timeout",
        )
    if CRASHING.search(pod.status) or pod.restarts:
        return (
            "crash_application",
            "the container crashes shortly after start",
            "fix the error the logs show, then roll the deployment out again",
        )
    return ("unknown", f"the pod is {pod.status}", "inspect the pod's events and logs further")


def _warning_events(description: str) -> list[tuple[str, str]]:
    """(reason, message) of every Warning event in a describe_pod result."""
    section = description.split("\nEvents:", 1)[1] if "\nEvents:" in description else ""
    found = []
    for line in section.splitlines():
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=4)
        if len(cells) == 5 and cells[0] == "Warning":
            found.append((cells[1], cells[4]))
    return found


def _telling_log_line(logs: str) -> str:
    lines = [line.strip() for line in logs.splitlines() if line.strip()]
    errorish = [line for line in lines if _ERRORISH.search(line)]
    return (errorish or lines or [""])[-1]


def _report_header(chat: Conversation) -> str:
    namespace = question_namespace(chat.question)
    scope = f"namespace {namespace}" if namespace else "all namespaces"
    return f"Health report for {scope} ({HEADER})"


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")
