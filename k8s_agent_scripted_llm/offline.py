"""The offline model: a deterministic SRE playbook behind the scripted server. Not an LLM.

It reads the tool results in the conversation, never a hard-coded name, and makes the
investigation the question asks for:

- pods (the default): list the pods of the namespace the question names (in any case; else of
  all namespaces, and then, if the question names one of the listed namespaces as a word, as in
  "Why is checkout down?", only that one's), then in one round describe every unhealthy pod, read
  the logs of those that run or crash (and the previous container's of one that restarts while
  running: the crash is there), and read the namespace's Warning events when a pod failed and
  stopped (a Job's pod: the Job's own events tell whether it gave up), then write the report:
  per unhealthy pod its status, the evidence line quoted from a tool result, the likely cause and
  a fix. When pods are cut off by their node (a "Node is not ready" event, an eviction because
  "The node was low on resource"), one more round describes those nodes and the report names the
  node too. A namespace with no pods is reported with the namespaces that have some.
- nodes (a question about nodes and not pods): list the nodes, describe them (every one on a
  small cluster, the not-Ready ones on a large one), and report each node that is not Ready or
  under memory, disk or PID pressure, with its condition lines and the events that say so.
- nodes and pods (a question about both: "Is every node healthy? If not, which pods does it
  affect?"): list the nodes and the pods at once, then describe the nodes and investigate the
  unhealthy pods in one round, and report the bad nodes and the unhealthy pods, a pod on a bad
  node (the listing's NODE column, or describe_pod's Node line) with no cause of its own being
  attributed to its node.
- one pod (a question naming a pod): find it in the listing, describe it, read its logs if its
  containers ran, and report on that pod alone.
- a workload (a question naming one, by its name, its words or its name's first word, and not
  asking about a namespace as a whole): the report is about its pods, each described and judged even
  when it looks healthy; a line of their own logs that says a call to a Service was refused or timed
  out (`payment-service.production.svc:8080`, `redis:6379`, `http://orders/...`) is followed to that
  Service's pods (by name, in the namespace the host names, else the caller's; a namespace not listed
  yet is listed first), which are diagnosed in turn, up to three Services deep. A pod whose calls
  fail on a Service with an unhealthy pod is dependency_down, even when it looks healthy; the report
  lists the asked workload's pods first, then each Service's pods with their own cause. A workload
  named beside its kind ("the billing-api deployment") that has no pod is said, with what was listed.
- restarts (a question asking which pods restarted, how often or when: offline_restarts): list the
  pods, describe those whose RESTARTS is above 0 (most first) and read their logs, and report each
  with its count, how its container last ended (`Last State: Terminated`, its reason, exit code and
  finish time, quoted from describe_pod) and why: diagnose's cause when it is unhealthy now, else
  the last termination's (OOMKilled, a liveness probe, an exit code, a clean exit). No tool tells the
  time, so a window the question names ("today") is not filtered on: the report gives the times the
  evidence shows and says so.

How a pod's cause is read, in this order (each from a line the report quotes verbatim):
a "Node is not ready" event (node_not_ready); an Evicted event or status (node_pressure when the
node was low on a resource, else evicted); an "exceeded quota" event of the pod or its owner
(quota_exceeded); a BackoffLimitExceeded event of the pod's Job in get_events (job_backoff_limit);
an `Init:` status (init_container_failure); a container terminated OOMKilled, now or last time
(oom_killed); restarts with "Liveness probe failed" events and logs that show no crash of their
own (liveness_probe_failure); a Running pod that fails its readiness probe while its logs show a
connection error to a workload that is itself unhealthy in the listing, named by host, by words
or by a port its probes use (dependency_down, the dependency keeping its own cause); else the
most telling event or log line (scheduling, image pulls, missing config references, probes, and
for a crash its logs' last configuration error, a bad flag, file or setting, as crash_config, or
their last error as crash_application, quoted with their first error when that differs).

The scope is read by offline_scope: a namespace named with or without the word "namespace" (never a
word of the sentence), several at once, a workload named by its name (resolved to its pods, which are
described even when they look healthy: the scope itself, or, in a question about its namespace, the
pods looked at first), a node named by its name alone; a place the question names that no namespace
of the listing has is said in `unchecked`, and a question that is not about the cluster gets a short
answer and no call. `unchecked` says only what the report does not show: a note of what a workload's
name resolved to is left out once each of its pods is a finding or a healthy example. The verdict is not the STATUS column's alone: a Running pod
that restarted is described and unhealthy only with a recent Warning event, and a pod starting up
(ContainerCreating, Init:N/M) with no Warning event is not unhealthy.

It speaks the mock cluster's tools (list_pods, describe_pod, get_pod_logs, get_events, list_nodes,
describe_node), and kubernetes-mcp-server's (pods_list, pods_get, pods_log, events_list, resources_*:
offline_kube.py) when those are what it is offered. Given other tools it says so instead of
guessing. Any request without `tools` gets the report of what it has.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_scripted_llm.offline_dependencies import CONNECTION_ERROR, FailedCall, failed_calls
from k8s_agent_scripted_llm.offline_kube import kube_surface, on_kube_surface
from k8s_agent_scripted_llm.offline_restarts import Termination, asks_about_restarts, terminations, time_words
from k8s_agent_scripted_llm.offline_scope import (
    NOT_ABOUT_THE_CLUSTER,
    about_the_cluster,
    asks_about_the_whole,
    belongs_to,
    first_word_workloads,
    implied_namespaces,
    mentions,
    named_by_kind,
    named_workloads,
    question_namespace,
    question_namespaces,
    without_scope_line,
    workload_of,
)
from k8s_agent_scripted_llm.responses_api import chat_request
from k8s_agent_scripted_llm.script import Reply, Step, ToolCall, message_text, requested_call

HEADER = "deterministic offline model: a scripted SRE playbook, not an LLM"
JSON_REPORT_INSTRUCTIONS = "Write the final report as one JSON object"
"""How the harness's system prompt asks for the JSON report in json_text mode (findings.instructions)."""
HEALTHY = frozenset({"Running", "Completed", "Succeeded"})
# Statuses of containers that started and died: their logs exist. (CreateContainerConfigError and the
# image-pull errors are not among them: those containers never started.)
CRASHING = re.compile(r"CrashLoop|OOMKilled|RunContainerError|^Error$|^Unknown$")
_WHOLE_CLUSTER = re.compile(
    r"(?i)\b(?:all|every|each|any|across|other)\s+(?:of\s+)?(?:the\s+|my\s+)?namespaces?\b"
    r"|\bcluster[- ]wide\b|\b(?:whole|entire)\s+cluster\b"
)
_POD_NAME = re.compile(r"(?<![\w.-])[a-z0-9]+(?:-[a-z0-9]+){2,}(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)*(?![\w-])")
_NOT_POD_NAMES = frozenset({"kube-node-lease", "out-of-memory", "crash-looping", "up-to-date"})
_NODES = re.compile(r"(?<![\w-])nodes?(?![\w-])", re.I)
_PODS = re.compile(
    r"\bpods?\b|\bworkloads?\b|\bcontainers?\b|\b(?:runs?|running|scheduled|hosted)\s+(?:on|there)\b"
    r"|\baffected\b|\bon (?:it|them|that node|those nodes)\b",
    re.I,
)
MAX_INVESTIGATED = 10
"""Unhealthy pods the playbook describes and reports in detail; the rest are named."""
MAX_NAMED = 20
MAX_REPORT_CHARS = 16_000
MAX_CALLS_PER_ROUND = 24
"""The harness runs at most this many calls of one turn by default: a round stays within it."""
_EXCERPT = re.compile(r"^\[Result (r\d+) of ")
_SEARCH_LINE = re.compile(r"^r\d+:\d+: ")
_POD_COUNT = re.compile(r"^([\d,]+) pods? in (?:namespace \S+|\d+ namespaces)\.$", re.M)
_HEALTHY_ROW = r"\s(?:Running|Completed|Succeeded)\s"
_NOT_READY_ROW = r"\s(\d+)/(?!\1\s)\d+\s+Running\s"
_RESTARTED_ROW = r"\s\d+/\d+\s+\S+\s+[1-9]\d*\s"
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
    "FailedCreate",
    "BackOff",
)
NODE_CAUSES = ("node_not_ready", "node_pressure")
_FAILED_AND_STOPPED = frozenset({"Error", "Failed", "BackoffLimitExceeded", "DeadlineExceeded"})
"""Statuses of a pod that failed and is not restarted: a Job's pod, whose Job's events say more."""
_NODE_LOST = frozenset({"Unknown", "NodeLost", "Terminating"})
"""Statuses a pod shows when its node stopped reporting."""
_NODE_LOW = re.compile(r"(?i)\bthe node was low on resource: ([\w-]+)")
_QUOTA = re.compile(r"(?i)\bexceeded quota\b")
_LIVENESS = re.compile(r"(?i)\bliveness probe failed\b")
_READINESS = re.compile(r"(?i)\breadiness probe failed\b")
_OOM_STATE = (
    re.compile(r"Last State:\s+Terminated\s*\n\s+Reason:\s+OOMKilled"),
    re.compile(r"State:\s+Terminated\s*\n\s+Reason:\s+OOMKilled"),
)
_MISSING_SETTING = re.compile(r"(?i)missing required|not set|is required|undefined variable|no such env")
_CONFIG_ERROR = re.compile(
    r"(?i)missing required|\bnot set\b|is required|undefined variable|no such env|environment variable"
    r"|flag provided but not defined|unknown (?:flag|option|directive|command|field)|invalid value for"
    r"|invalid (?:argument|configuration|config)|contains errors|validation error|scannererror|parsererror"
    r"|config(?:uration)? (?:file )?(?:is )?invalid|no such file or directory"
    r"|KeyError: '[A-Z][A-Z0-9]*_[A-Z0-9_]+'"
)
"""Log words of a process that exits at start-up on its configuration: a setting, a flag, a file."""
_CRASH_SIGNATURE = re.compile(
    r"(?i)\b(?:panic|fatal|exception|traceback|segmentation fault|sigsegv|nil pointer|unhandled|uncaught"
    r"|out of memory)\b"
)
"""Log words of a process that crashes by itself (with a config error): not a probe's victim."""
_CALM = re.compile(
    r"\b(?:WARN(?:ING)?|INFO|DEBUG|TRACE|NOTICE)\b|\[\s*(?:warn|info|debug)\s*\]"
    r"|\"level\":\s*\"(?:warn|warning|info|debug)\"|using (?:the )?default"
)
"""A log line's own level or words saying it is not an error."""
_PORT_IN_LINE = re.compile(r":(\d{2,5})\b")
_NODE_EVENT = re.compile(r"(?i)NotReady|Pressure|Insufficient|EvictionThreshold|ImageGCFailed")


@dataclass
class Pod:
    """One row of list_pods."""

    namespace: str
    name: str
    ready: str
    status: str
    restarts: int
    node: str = ""
    """The NODE column (empty when absent or `<none>`)."""
    age: str = ""
    """The AGE column."""
    last_restart: str = ""
    """When it last restarted, when the RESTARTS column says it ("3 (5m ago)": `5m ago`)."""

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
        return (
            self.status == "Running"
            or bool(CRASHING.search(self.status))
            or self.status.startswith("Init:")
            or self.restarts > 0
        )


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
    call_id: str | None = None
    """The call whose result holds the evidence."""
    more: list[tuple[str, str, str | None]] = field(default_factory=list)
    """Further telling lines: (text, tool, call id), each verbatim from that call's result."""
    unchecked: list[str] = field(default_factory=list)
    depends_on: Pod | None = None
    """The unhealthy pod a dependency_down pod cannot reach."""

    def also(self, text: str, tool: str, call_id: str | None, note: str | None = None) -> None:
        """Quote one more line (once), with a note for the prose report."""
        if text and text != self.evidence and all(text != quoted for quoted, _, _ in self.more):
            self.more.append((text, tool, call_id))
            if note:
                self.notes.append(note)


@dataclass
class NodeState:
    """What describe_node (and list_nodes) say about one node."""

    name: str
    status: str
    category: str
    """node_not_ready, node_pressure, or empty when the node is healthy."""
    lines: list[str]
    """describe_node's lines that show it: the conditions that are wrong, then the events about them."""
    conditions: list[str]
    """The condition lines alone."""
    row: str = ""
    """The list_nodes row, when there is one."""


@dataclass
class Logs:
    """A pod's logs as the playbook read them."""

    current: str = ""
    """The current container's lines (empty when unread, failed or empty)."""
    current_id: str | None = None
    crash: str = ""
    """The lines that tell how it crashed: the previous container's when the pod restarted while
    running and they show an error, else the current ones."""
    crash_id: str | None = None

    @property
    def telling(self) -> str:
        return _telling_log_line(self.crash) if self.crash else ""

    @property
    def crashes_by_itself(self) -> bool:
        """Whether a line, not a calm one, shows the process crashing or refusing its configuration."""
        return any(
            (_CRASH_SIGNATURE.search(line) or _CONFIG_ERROR.search(line)) and not _CALM.search(line)
            for line in f"{self.current}\n{self.crash}".splitlines()
        )


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
    scope_notes: list[str] = field(default_factory=list)
    """What the playbook says about the scope it read (a namespace that does not exist, the pods a
    workload's name resolved to): the report's `unchecked` lines."""
    focus: list[str] = field(default_factory=list)
    """The pods of the workloads the question names: investigated even when they look healthy."""
    focus_notes: list[tuple[str, list[str]]] = field(default_factory=list)
    """What a workload's name resolved to (the note, the pods it names): said only while the report
    shows those pods nowhere else."""
    workloads: list[str] = field(default_factory=list)
    """The workloads that are the report's scope (a question about a workload), else empty."""
    missing: bool = False
    """The question names a workload that has no pod in what was listed."""
    healthy_notes: list[str] = field(default_factory=list)
    """Pods that looked suspect and were found healthy by describe_pod: said in the prose report."""

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
                calls[call.get("id")] = requested_call(call)
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

    def first(self, tool: str) -> str | None:
        """The first result of `tool`, or None: the pod listing the question asked for (later
        listings are of the namespaces a dependency's host names)."""
        return next((content for name, _, content in self.results if name == tool), None)

    def latest_id(self, tool: str, pod: str | None = None, key: str = "name") -> str | None:
        """The call id of that result, or None."""
        found = self._latest(tool, pod, key)
        return self.id_of(found)

    def id_of(self, index: int | None) -> str | None:
        """The call id of the result at `index`, or None."""
        return None if index is None or index >= len(self.call_ids) else self.call_ids[index]

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
    """Answer one request body (Chat Completions or Responses) with the playbook's next move: on
    the mock cluster's tools, or through kubernetes-mcp-server's when those are what it is offered."""
    body = chat_request(body)
    if on_kube_surface(body):
        return kube_surface(body, playbook)
    return playbook(body)


def playbook(body: dict[str, Any]) -> Step:
    """The playbook's next move on the mock cluster's tools."""
    chat = Conversation.parse(body)
    may_call = bool(body.get("tools"))
    if not about_the_cluster(chat.question):
        if chat.report_format == "prose":
            return Reply(content=f"{NOT_ABOUT_THE_CLUSTER} ({HEADER})")
        return _structured(
            chat, _draft("not a question about the cluster", unchecked=[NOT_ABOUT_THE_CLUSTER])
        )
    if asks_about_restarts(chat.question):
        return _restarts_playbook(chat, may_call)
    if asks_about_nodes(chat.question):
        return _node_playbook(chat, may_call)
    named = question_pod(chat.question)
    if named is not None:
        return _pod_playbook(chat, may_call, named)
    if asks_about_nodes_and_pods(chat.question):
        return _nodes_and_pods_playbook(chat, may_call)
    return _pods_playbook(chat, may_call)


def _list_pods_call(chat: Conversation) -> ToolCall:
    namespace = question_namespace(chat.question)
    return ToolCall("list_pods", json.dumps({"namespace": namespace} if namespace else {}))


def _pods_playbook(chat: Conversation, may_call: bool) -> Step:
    """List the pods, investigate the unhealthy ones (and the nodes that cut some off), report them.
    A question about a workload is answered about its pods and, when their own logs say they
    cannot reach a Service, about that Service's pods too (see _chain)."""
    listing = chat.first("list_pods")
    if listing is None:
        if not may_call:
            return _said(chat, _report_header(chat), NO_RESULTS, _pods_scope(chat))
        if "list_pods" not in chat.offered:
            return _said(chat, _report_header(chat), _unknown_tools(chat), _pods_scope(chat))
        return Reply(tool_calls=(_list_pods_call(chat),))

    view = _listing_view(chat, listing)
    if view is None:  # an excerpt: find its unhealthy rows with the search tool first
        return _search_excerpt(chat, listing, may_call)
    listed, total = view
    pods, total, namespaces = _scoped(chat, listing, listed, total)
    looks_unhealthy = [pod for pod in pods if pod.unhealthy]
    suspects = _suspects(chat, pods)
    failed = listing.startswith("Tool call failed")
    looked_at = looks_unhealthy[:MAX_INVESTIGATED] + suspects
    investigated = any(chat.latest("describe_pod", pod.name) is not None for pod in looked_at)
    if looked_at and not investigated and may_call and not failed:
        return Reply(tool_calls=_capped(_investigation(chat, looked_at)))
    links: list[Link] = []
    if chat.workloads and not failed:
        links, calls = _chain(chat, pods)
        if calls and may_call:
            return Reply(tool_calls=_capped(calls))
    if links:
        findings, pods, unhealthy = _chain_findings(chat, pods, suspects, links)
        total = len(pods)
    else:
        unhealthy = _judged(chat, pods, suspects)
        broken = unhealthy + [pod for pod in listed if pod.unhealthy and pod not in pods]
        findings = [diagnose(chat, pod, broken) for pod in unhealthy[:MAX_INVESTIGATED]]
        for finding in findings:
            _elsewhere(chat, finding, [finding.pod for finding in findings])
    if may_call and not failed and "describe_node" in chat.offered:
        wanted = _nodes_behind(chat, findings)
        if wanted:
            calls = [ToolCall("describe_node", json.dumps({"name": name})) for name in wanted]
            return Reply(tool_calls=_capped(calls))
    states = {
        finding.pod.node: _node_state(chat, finding.pod.node)
        for finding in findings
        if finding.pod.node and chat.latest("describe_node", finding.pod.node) is not None
    }
    for finding in findings:
        _attribute(chat, finding, states.get(finding.pod.node))
    bad_nodes = [state for state in states.values() if state.category]
    if chat.report_format != "prose":
        return _structured(
            chat, pods_draft(chat, listing, pods, unhealthy, total, findings, namespaces, bad_nodes)
        )
    return Reply(content=write_report(chat, listing, pods, unhealthy, total, findings, namespaces, bad_nodes))


# -- a workload's chain: the Services its pods fail to reach, and theirs ------------------------------

MAX_CHAIN_DEPTH = 3
"""How far the playbook follows Services from the asked workload's pods (a calls b calls c)."""


@dataclass(frozen=True)
class Link:
    """A pod whose own logs fail to reach a Service, and the pods found for that Service."""

    caller: Pod
    call: FailedCall
    call_id: str | None
    """The get_pod_logs call whose result holds the line."""
    pods: tuple[Pod, ...]
    """The Service's pods, by name, in the listings (none: no pod is named after it)."""


def _chain(chat: Conversation, start: Sequence[Pod]) -> tuple[list[Link], list[ToolCall]]:
    """Follow the failed calls of the workload's pods to the pods of the Services they name, and
    on from those (up to MAX_CHAIN_DEPTH): the links found, and the calls still needed (a listing
    of a namespace the host names, then a describe and logs of each pod found)."""
    listed = _all_listed(chat)
    workloads = {workload_of(pod.name) for pod in listed}
    links: list[Link] = []
    calls: list[ToolCall] = []
    seen = {pod.name for pod in start}
    frontier = [pod for pod in start if chat.latest("describe_pod", pod.name) is not None]
    for _ in range(MAX_CHAIN_DEPTH):
        following: list[Pod] = []
        for caller in frontier:
            for call, call_id in _failed_calls_of(chat, caller, workloads - {workload_of(caller.name)}):
                if call.namespace and not _namespace_listed(chat, call.namespace):
                    calls.append(ToolCall("list_pods", json.dumps({"namespace": call.namespace})))
                    continue
                found = _service_pods(call, caller, listed)
                links.append(Link(caller, call, call_id, tuple(found)))
                for pod in found:
                    if pod.name in seen:
                        continue
                    seen.add(pod.name)
                    if chat.latest("describe_pod", pod.name) is None:
                        calls += _investigation(chat, [pod])
                    else:
                        following.append(pod)
        frontier = following
    return links, list({(call.name, call.arguments): call for call in calls}.values())


def _failed_calls_of(
    chat: Conversation, pod: Pod, workloads: set[str]
) -> list[tuple[FailedCall, str | None]]:
    """The pod's failed calls to other Services, from its current logs and then its previous ones."""
    found: dict[tuple[str, str | None], tuple[FailedCall, str | None]] = {}
    for previous in (False, True):
        logs, call_id = _logs_of(chat, pod.name, previous=previous)
        for call in failed_calls(_readable(logs), workloads):
            if call.service != workload_of(pod.name):
                found.setdefault((call.service, call.namespace), (call, call_id))
    return list(found.values())


def _service_pods(call: FailedCall, caller: Pod, listed: Sequence[Pod]) -> list[Pod]:
    """The pods named after the Service the call names, in its namespace: the one its host says, else
    the caller's (where a Service's short name resolves)."""
    where = call.namespace or caller.namespace
    return [
        pod
        for pod in listed
        if belongs_to(pod.name, call.service) and pod.name != caller.name and pod.namespace == where
    ]


def _all_listed(chat: Conversation) -> list[Pod]:
    """Every pod of every pod listing of the conversation (once, by namespace and name)."""
    pods: dict[tuple[str, str], Pod] = {}
    for tool, arguments, content in chat.results:
        if tool != "list_pods" or content.startswith("Tool call failed"):
            continue
        for pod in parse_pod_table(content):
            pod.namespace = pod.namespace or str(arguments.get("namespace") or "")
            pods.setdefault((pod.namespace, pod.name), pod)
    return list(pods.values())


def _namespace_listed(chat: Conversation, namespace: str) -> bool:
    """Whether a pod listing covers the namespace (a listing of it, or of every namespace)."""
    return any(
        tool == "list_pods"
        and not content.startswith("Tool call failed")
        and arguments.get("namespace") in (None, "", namespace)
        for tool, arguments, content in chat.results
    )


def _chain_findings(
    chat: Conversation, pods: Sequence[Pod], suspects: Sequence[Pod], links: Sequence[Link]
) -> tuple[list[Finding], list[Pod], list[Pod]]:
    """The findings of a workload and the Services it calls, in the chain's order (the workload's
    pods, then each Service's pods as they were reached), the pods of the report, and the unhealthy
    ones. A pod whose calls fail on a Service whose pods are unhealthy is dependency_down, even when
    it looks healthy itself; the Service's pods keep their own cause."""
    reached = list({pod.name: pod for link in links for pod in link.pods if pod not in pods}.values())
    everyone = [*pods, *reached]
    unhealthy = _judged(chat, pods, suspects) + _judged(
        chat, reached, [pod for pod in reached if not pod.unhealthy and pod.status == "Running"]
    )
    broken = unhealthy + [pod for pod in _all_listed(chat) if pod.unhealthy and pod not in everyone]
    down = {pod.name for pod in broken}
    findings: list[Finding] = []
    for pod in everyone:
        mine = [link for link in links if link.caller.name == pod.name]
        failing = [link for link in mine if any(other.name in down for other in link.pods)]
        if pod in unhealthy or failing:
            finding = diagnose(chat, pod, broken) if pod in unhealthy else Finding(pod)
            if failing and _explained_by_its_calls(finding):
                _blame(chat, finding, failing[0], down)
            findings.append(finding)
        for link in mine:
            if not link.pods:
                _not_found(chat, link, findings[-1] if findings and findings[-1].pod is pod else None)
            elif link not in failing and pod not in unhealthy:
                chat.healthy_notes.append(
                    f"{pod.name}: its logs say {link.call.line!r}, but {link.call.service}'s pods "
                    f"({', '.join(p.name for p in link.pods)}) are healthy now (describe_pod)"
                )
    findings = findings[:MAX_INVESTIGATED]
    named = tuple(f"{finding.pod.name}:" for finding in findings)
    chat.healthy_notes = [note for note in chat.healthy_notes if not note.startswith(named)]
    return findings, everyone, [finding.pod for finding in findings]


def _explained_by_its_calls(finding: Finding) -> bool:
    """Whether a failed call to an unhealthy Service explains the pod better than its own finding:
    it looks healthy, fails its readiness probe, or crashes on that very connection error."""
    return finding.category in ("unknown", "readiness_probe_failure", "dependency_down") or (
        finding.category == "crash_application" and bool(CONNECTION_ERROR.search(finding.evidence))
    )


def _blame(chat: Conversation, finding: Finding, link: Link, down: set[str]) -> None:
    """Make the finding dependency_down: its evidence the failed call's line, its cause the Service's
    unhealthy pods (each reported below with its own cause)."""
    before = (finding.evidence, finding.source, finding.call_id)
    _cite(chat, finding, "get_pod_logs", link.call.line, link.call_id)
    if before[0] and before[0] != link.call.line:
        finding.also(before[0], before[1], before[2], f"{before[1]}: {before[0]}")
    failure = CONNECTION_ERROR.search(link.call.line)
    how = f" ({failure[0].lower()})" if failure else ""
    bad = [pod for pod in link.pods if pod.name in down]
    where = f" of namespace {bad[0].namespace}" if bad[0].namespace != finding.pod.namespace else ""
    states = "; ".join(f"{pod.name} is {pod.status}, READY {pod.ready}" for pod in bad)
    running = [pod.name for pod in link.pods if pod.name not in down]
    finding.category = "dependency_down"
    finding.cause = (
        f"its calls to {link.call.host} fail{how}: the Service {link.call.service}{where} is unhealthy, "
        f"{'its pods' if len(bad) > 1 else 'its pod'} {states}"
        + (f" ({', '.join(running)} runs)" if running else "")
        + " (its own cause is reported below)"
    )
    finding.fix = f"fix {link.call.service} first (below); {workload_of(finding.pod.name)} recovers once its calls succeed"


def _not_found(chat: Conversation, link: Link, finding: Finding | None) -> None:
    """Say that no pod was found for a Service a pod fails to reach (its selector is not readable here)."""
    where = f"namespace {link.call.namespace or link.caller.namespace}"
    said = (
        f"{link.caller.name}'s logs fail to reach {link.call.host}, but no pod named after the Service "
        f"{link.call.service} is in {where} (list_pods): the pods behind it were not checked"
    )
    if finding is not None:
        finding.unchecked.append(said)
    elif said not in chat.scope_notes:
        chat.scope_notes.append(said)


# -- a question about restarts -------------------------------------------------------------------------


def _restarts_playbook(chat: Conversation, may_call: bool) -> Step:
    """List the pods of the question's scope, describe those that restarted (and read their logs),
    and report each with its restart count, how and when its container last ended, and why."""
    listing = chat.first("list_pods")
    if listing is None:
        if not may_call:
            return _said(chat, _restarts_header(chat), NO_RESULTS, _restarts_scope(chat, None))
        if "list_pods" not in chat.offered:
            return _said(chat, _restarts_header(chat), _unknown_tools(chat), _restarts_scope(chat, None))
        return Reply(tool_calls=(_list_pods_call(chat),))
    view = _listing_view(chat, listing)
    if view is None:
        return _search_excerpt(chat, listing, may_call)
    listed, total = view
    pods, total, namespaces = _scoped(chat, listing, listed, total)
    named = question_pod(chat.question)
    if named is not None and any(pod.name == named for pod in pods):
        pods, total = [pod for pod in pods if pod.name == named], 1
    restarted = sorted((pod for pod in pods if pod.restarts > 0), key=lambda pod: -pod.restarts)
    chosen = restarted[:MAX_INVESTIGATED]
    failed = listing.startswith("Tool call failed")
    described = any(chat.latest("describe_pod", pod.name) is not None for pod in chosen)
    if chosen and not described and may_call and not failed:
        return Reply(tool_calls=_capped(_investigation(chat, chosen)))
    broken = [pod for pod in listed if pod.unhealthy]
    findings = [_restart_finding(chat, pod, broken) for pod in chosen]
    scope = _restarts_scope(chat, namespaces, findings)
    unchecked = _restarts_unchecked(chat, restarted[MAX_INVESTIGATED:], findings)
    unwell = [pod for pod in pods if pod.restarts == 0 and pod.unhealthy]
    if unwell:
        named = ", ".join(f"{pod.name} ({pod.status}, READY {pod.ready})" for pod in unwell[:MAX_NAMED])
        unchecked.append(
            f"{_pods(len(unwell))} that never restarted {'is' if len(unwell) == 1 else 'are'} not healthy "
            f"either (list_pods): {named}; not investigated here, as the question is about restarts"
        )
    if chat.report_format != "prose":
        if failed:
            return _structured(chat, _draft(scope, unchecked=[f"Could not list the pods: {listing}"]))
        calm = [pod.name for pod in pods if pod.restarts == 0 and not pod.unhealthy]
        return _structured(
            chat,
            _draft(
                scope,
                [pod_finding(chat, finding) for finding in findings],
                healthy=len(calm),
                examples=calm,
                unchecked=unchecked,
            ),
        )
    return Reply(
        content=_bounded(_restarts_report(chat, listing, pods, restarted, findings, unchecked, scope))
    )


def _restart_finding(chat: Conversation, pod: Pod, broken: Sequence[Pod]) -> Finding:
    """A restarted pod: its cause as diagnose reads it when it is unhealthy now (a recent Warning event
    of trouble for a pod that runs and is ready), else from how its container last ended; its
    evidence, the lines of describe_pod that tell the restarts (count, reason, exit code, time)."""
    description = chat.latest("describe_pod", pod.name) or ""
    described = "" if description.startswith("Tool call failed") else description
    suspect = [pod] if not pod.unhealthy and pod.status == "Running" else []
    unhealthy = bool(_judged(chat, [pod], suspect))
    ended = terminations(described)
    finding = diagnose(chat, pod, broken) if unhealthy else Finding(pod)
    if not unhealthy:
        finding.category, finding.cause, finding.fix = _restart_cause(pod, ended, described)
        if not ended:
            _cite(chat, finding, "list_pods", _listing_row(chat, pod))
        logs = _read_logs(chat, finding)
        said = logs.telling
        if said and _ERRORISH.search(log_text(said)) and not _calm(said):
            finding.cause += f"; its logs say: {said}"
            finding.also(said, "get_pod_logs", logs.crash_id)
            if finding.category == "crash_application":
                finding.fix = "fix the error its logs show, or it crashes again on the same input"
    call_id = chat.latest_id("describe_pod", pod.name)
    last = ended[0] if ended else None
    if last is not None:
        quotes = [last.reason_quote, last.lines.get("Exit Code", ""), last.lines.get("Finished", "")]
        if not finding.evidence:
            _cite(chat, finding, "describe_pod", quotes[0], call_id)
        for quote in quotes:
            finding.also(quote, "describe_pod", call_id)
    count = re.search(r"^\s*Restart Count:\s+\d+\s*$", described, re.M)
    if count:
        finding.also(" ".join(count[0].split()), "describe_pod", call_id)
    if pod.last_restart:
        row, row_id = _listing_row_and_id(chat, pod)
        finding.also(row, "list_pods", row_id)
    when = f" (last {pod.last_restart}, list_pods)" if pod.last_restart else ""
    how = f"; its container {last.container} last ended {last.said}" if last else ""
    now = (
        "" if unhealthy else f"; it is {pod.status}, READY {pod.ready} now, with no Warning event of trouble"
    )
    finding.cause = f"restarted {_times(pod.restarts)}{when}{how}{now}: {finding.cause}"
    return finding


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _restart_cause(pod: Pod, ended: Sequence[Termination], description: str) -> tuple[str, str, str]:
    """(category, cause, fix) of a pod that restarted and is healthy now, from how it last ended."""
    last = ended[0] if ended else None
    liveness = any(_LIVENESS.search(message) for _, message in _warning_events(description))
    if last is not None and last.reason == "OOMKilled":
        return (
            "oom_killed",
            "its container exceeded its memory limit and was killed (OOMKilled)",
            "raise its memory limit or reduce its memory use if it happens again",
        )
    if liveness:
        return (
            "liveness_probe_failure",
            "the kubelet restarted it after failed liveness probes",
            "find why the health endpoint stalls, or give the probe a realistic timeout",
        )
    if last is not None and last.exit_code not in ("", "0"):
        return (
            "crash_application",
            f"its container exited with code {last.exit_code}",
            "read its previous container's logs (get_pod_logs with previous) for the error, and fix it",
        )
    return (
        "unknown",
        "its container ended without an error (a restart of the pod or of its node, not a crash)",
        "nothing to fix if it stays up; check the node's events if many pods restarted at once",
    )


def _restarts_scope(
    chat: Conversation, namespaces: Sequence[str] | None, findings: Sequence[Finding] = ()
) -> str:
    """`restarts of pods in all namespaces (last terminations shown: A to B)`."""
    where = _pods_scope(chat, namespaces).removeprefix("pods in ")
    times = _termination_times(chat, findings)
    window = (
        f" (last terminations shown: {times[0]}{f' to {times[-1]}' if len(times) > 1 else ''})"
        if times
        else ""
    )
    return f"restarts of pods in {where}{window}"[:MAX_SCOPE_CHARACTERS]


def _termination_times(chat: Conversation, findings: Sequence[Finding]) -> list[str]:
    ended = [
        last.finished
        for finding in findings
        for last in terminations(chat.latest("describe_pod", finding.pod.name) or "")[:1]
        if last.finished
    ]
    return sorted(set(ended))


def _restarts_unchecked(chat: Conversation, rest: Sequence[Pod], findings: Sequence[Finding]) -> list[str]:
    """What the restart report did not check: the restarted pods beyond those described, the time
    window the question asks for (no tool tells the time), and what its findings could not read."""
    unchecked = [*chat.scope_notes, *[line for finding in findings for line in finding.unchecked]]
    if rest:
        named = ", ".join(f"{pod.name} ({pod.restarts})" for pod in rest[:MAX_NAMED])
        unchecked.append(f"{_pods(len(rest))} more restarted and were not described: {named}")
    asked = time_words(chat.question)
    if asked and findings:
        times = _termination_times(chat, findings)
        shown = (
            f"between {times[0]} and {times[-1]}"
            if len(times) > 1
            else f"at {times[0]}"
            if times
            else "at no time"
        )
        unchecked.append(
            f"Whether these restarts fall {asked} was not checked against a clock: the tools show no current "
            f"time, RESTARTS (list_pods) counts every restart since each pod was created, and the last "
            f"terminations shown (describe_pod) are {shown}"
        )
    return unchecked


def _pods(count: int) -> str:
    return "1 pod" if count == 1 else f"{count} pods"


def _restarts_header(chat: Conversation, namespaces: Sequence[str] | None = None) -> str:
    return f"Restart report for {_pods_scope(chat, namespaces)} ({HEADER})"


def _restarts_report(
    chat: Conversation,
    listing: str,
    pods: Sequence[Pod],
    restarted: Sequence[Pod],
    findings: Sequence[Finding],
    unchecked: Sequence[str],
    scope: str,
) -> str:
    """The prose restart report: each restarted pod with its count, last termination, cause and fix."""
    lines = [f"Restart report: {scope} ({HEADER})", ""]
    if listing.startswith("Tool call failed"):
        return "\n".join([*lines, f"Could not list the pods, so nothing could be checked. {listing}"])
    if not restarted:
        lines.append(f"No pod restarted: RESTARTS is 0 for all {len(pods)} pods listed (list_pods).")
    else:
        lines.append(
            f"{len(restarted)} of {_pods(len(pods))} restarted (RESTARTS in list_pods counts every restart "
            "since the pod was created)."
        )
    for number, finding in enumerate(findings, start=1):
        pod = finding.pod
        lines += [
            "",
            f"{number}. {pod.name} ({pod.namespace}): restarted {_times(pod.restarts)}, {pod.status}, "
            f"READY {pod.ready}",
            f"   Evidence ({finding.source}): {finding.evidence}",
            *[f"   Evidence ({tool}): {text}" for text, tool, _ in finding.more],
            f"   Cause: {finding.cause}",
            f"   Fix: {finding.fix}",
        ]
    if unchecked:
        lines += ["", *[f"Note: {note}" for note in unchecked]]
    return "\n".join(lines)


MAX_SUSPECTS = 5
"""Pods that look healthy in the listing and are described all the same (see _suspects)."""
_STARTING = re.compile(r"^(?:ContainerCreating|PodInitializing|Init:\d+/\d+)$")
"""Statuses of a pod on its way up: not a failure while no Warning event says otherwise."""
_YOUNG = re.compile(r"^\d+s$")
_TROUBLE = frozenset({"BackOff", "Unhealthy", "OOMKilling", "Failed", "Killing", "Evicted", "FailedMount"})
"""Warning reasons that make a Running, ready pod with restarts unhealthy now (events expire: these are recent)."""


def _suspects(chat: Conversation, pods: Sequence[Pod]) -> list[Pod]:
    """Pods that look healthy in STATUS but are judged from describe_pod (and logs) all the same: a
    Running pod that restarted, and the pods of a workload the question names."""
    found = [
        pod
        for pod in pods
        if not pod.unhealthy and pod.status == "Running" and (pod.restarts > 0 or pod.name in chat.focus)
    ]
    return found[:MAX_SUSPECTS]


def _judged(chat: Conversation, pods: Sequence[Pod], suspects: Sequence[Pod]) -> list[Pod]:
    """The unhealthy pods, judged from what describe_pod shows when it was read: a pod starting up
    with no Warning event is not (it is said), a suspect with a recent Warning event of trouble is."""
    unhealthy = []
    for pod in pods:
        description = chat.latest("describe_pod", pod.name) or ""
        described = "" if description.startswith("Tool call failed") else description
        warnings = _warning_events(described)
        if pod in suspects:
            if described and any(reason in _TROUBLE for reason, _ in warnings):
                unhealthy.append(pod)
            elif described:
                chat.healthy_notes.append(
                    f"{pod.name}: {pod.status}, READY {pod.ready}"
                    + (f", {pod.restarts} restart{'s' * (pod.restarts != 1)}" if pod.restarts else "")
                    + ", and describe_pod shows no Warning event: healthy now"
                )
            continue
        if not pod.unhealthy:
            continue
        retry = _completed_retry(pod, pods)
        if retry is not None:
            chat.scope_notes.append(
                f"{pod.name} ({pod.status}) is an attempt of a Job whose later attempt {retry.name} is "
                "Completed: the Job retried it and succeeded; not counted as unhealthy."
            )
            continue
        starting = _STARTING.match(pod.status) or (
            pod.status in ("Pending", "Running") and _YOUNG.match(pod.age)
        )
        if described and starting and not warnings:
            chat.scope_notes.append(
                f"{pod.name} is starting ({pod.status}, age {pod.age or 'unknown'}) and describe_pod shows no "
                "Warning event: not counted as unhealthy; check it again if it stays so."
            )
            continue
        unhealthy.append(pod)
    return unhealthy


_JOB_POD = re.compile(r"^(.+)-[a-z0-9]{5}$")
"""A Job's pod: the Job's name and a generated suffix."""


def _job_of(name: str) -> str | None:
    match = _JOB_POD.match(name)
    return match.group(1) if match else None


def _completed_retry(pod: Pod, pods: Sequence[Pod]) -> Pod | None:
    """For a Job's pod that failed and stopped, another pod of the same Job that Completed (the Job
    retried the attempt and succeeded), if the listing shows one."""
    job = _job_of(pod.name)
    if pod.status not in _FAILED_AND_STOPPED or job is None:
        return None
    return next(
        (
            other
            for other in pods
            if other.name != pod.name
            and other.namespace == pod.namespace
            and other.status == "Completed"
            and _job_of(other.name) == job
        ),
        None,
    )


def _investigation(chat: Conversation, chosen: Sequence[Pod]) -> list[ToolCall]:
    """Describe each pod and read the logs of those whose containers ran; read the Warning events of
    the namespaces where a pod failed and stopped (its Job's events are there, not in describe_pod)."""
    calls = []
    for pod in chosen:
        where = {"name": pod.name, "namespace": pod.namespace}
        calls.append(ToolCall("describe_pod", json.dumps(where)))
        if pod.runs_code and "get_pod_logs" in chat.offered:
            calls.append(ToolCall("get_pod_logs", json.dumps({**where, "tail": 20})))
            if pod.status == "Running" and pod.restarts:  # it crashed in the container before this one
                calls.append(ToolCall("get_pod_logs", json.dumps({**where, "tail": 20, "previous": True})))
    if "get_events" in chat.offered:
        stopped = [pod.namespace for pod in chosen if pod.status in _FAILED_AND_STOPPED and pod.namespace]
        for namespace in dict.fromkeys(stopped):
            calls.append(ToolCall("get_events", json.dumps({"namespace": namespace, "type": "Warning"})))
    return calls


def _capped(calls: list[ToolCall]) -> tuple[ToolCall, ...]:
    """The calls of one round, at most MAX_CALLS_PER_ROUND: when there are more, the describes go
    first, then the events, and the logs that do not fit are left out."""
    if len(calls) <= MAX_CALLS_PER_ROUND:
        return tuple(calls)
    order = {"describe_node": 0, "describe_pod": 1, "get_events": 2}
    return tuple(sorted(calls, key=lambda call: order.get(call.name, 3))[:MAX_CALLS_PER_ROUND])


def _nodes_behind(chat: Conversation, findings: Sequence[Finding]) -> list[str]:
    """The nodes, not described yet, that the findings say cut their pods off."""
    wanted = [
        finding.pod.node
        for finding in findings
        if finding.pod.node
        and (finding.category in NODE_CAUSES or finding.pod.status in _NODE_LOST)
        and chat.latest("describe_node", finding.pod.node) is None
    ]
    return list(dict.fromkeys(wanted))[:NODES_DESCRIBED_ALL_UP_TO]


def _nodes_and_pods_playbook(chat: Conversation, may_call: bool) -> Step:
    """List the nodes and the pods, describe the nodes and investigate the unhealthy pods, report
    both: the bad nodes, and the unhealthy pods (those on a bad node with no cause of their own
    attributed to it)."""
    header = f"Node and pod report ({HEADER})"
    scope = f"nodes, and {_pods_scope(chat)}"
    if may_call and not {"list_nodes", "describe_node", "list_pods"} <= chat.offered:
        return _said(chat, header, _unknown_tools(chat), scope)
    node_listing, pod_listing = chat.latest("list_nodes"), chat.latest("list_pods")
    if node_listing is None or pod_listing is None:
        if not may_call:
            return _said(chat, header, NO_RESULTS, scope)
        calls = [] if node_listing is not None else [ToolCall("list_nodes", "{}")]
        calls += [] if pod_listing is not None else [_list_pods_call(chat)]
        return Reply(tool_calls=tuple(calls))
    view = _listing_view(chat, pod_listing)
    if view is None:
        return _search_excerpt(chat, pod_listing, may_call)
    listed, total = view
    pods, total, namespaces = _scoped(chat, pod_listing, listed, total)
    unhealthy = [pod for pod in pods if pod.unhealthy]
    broken = [pod for pod in listed if pod.unhealthy]
    chosen = unhealthy[:MAX_INVESTIGATED] if not pod_listing.startswith("Tool call failed") else []
    nodes = [] if node_listing.startswith("Tool call failed") else parse_table(node_listing)
    chosen_nodes = _nodes_to_describe(nodes)
    asked = any(chat.latest("describe_node", n["NAME"]) is not None for n in chosen_nodes) or any(
        chat.latest("describe_pod", pod.name) is not None for pod in chosen
    )
    if (chosen_nodes or chosen) and not asked and may_call:
        calls = [ToolCall("describe_node", json.dumps({"name": n["NAME"]})) for n in chosen_nodes]
        return Reply(tool_calls=_capped(calls + _investigation(chat, chosen)))
    states = {
        n["NAME"]: _node_state(chat, n["NAME"], n.get("STATUS"), _row(node_listing, n["NAME"])) for n in nodes
    }
    findings = [diagnose(chat, pod, broken) for pod in chosen]
    for finding in findings:
        _attribute(chat, finding, states.get(finding.pod.node))
    scope = f"nodes, and {_pods_scope(chat, namespaces)}"
    if chat.report_format != "prose":
        node_part = nodes_draft(chat, node_listing, nodes)
        pod_part = pods_draft(chat, pod_listing, pods, unhealthy, total, findings, namespaces, [])
        healthy = node_part["healthy"]["examples"][:2] + pod_part["healthy"]["examples"]
        return _structured(
            chat,
            _draft(
                scope,
                node_part["findings"] + pod_part["findings"],
                healthy=node_part["healthy"]["count"] + pod_part["healthy"]["count"],
                examples=healthy,
                unchecked=node_part["unchecked"] + pod_part["unchecked"],
            ),
        )
    node_text = write_node_report(chat, header, node_listing, nodes)
    pod_lines = _pod_report_lines(chat, pod_listing, pods, unhealthy, total, findings)
    title = f"Pods ({_scope_text(namespaces or [])}):"
    return Reply(content=_bounded("\n".join([node_text, "", title, *pod_lines])))


def _nodes_to_describe(nodes: list[dict[str, str]]) -> list[dict[str, str]]:
    return [n for n in nodes if len(nodes) <= NODES_DESCRIBED_ALL_UP_TO or n.get("STATUS") != "Ready"]


def _row(listing: str, name: str) -> str:
    return next((line.strip() for line in listing.splitlines() if line.split()[:1] == [name]), "")


def _scoped(
    chat: Conversation, listing: str, pods: list[Pod], total: int
) -> tuple[list[Pod], int, list[str]]:
    """The pods of the question's scope, their count, and the scope's namespaces (none: all).

    A namespace the question names ("in the web namespace") was listed alone; several it names
    ("in the a and b namespaces") are kept from the listing of all, and one without pods is said.
    After a listing of every namespace seen whole, a listed namespace the question names as a word
    ("Why is checkout down?") narrows the scope to it, unless the question asks about all
    namespaces. A workload the question names is the scope itself (see _workload_scope), unless the
    question also asks about a namespace as a whole ("which pods in shop ...", "the web namespace"):
    then the workload's pods are investigated first, even when they look healthy. A word used as a
    place ("in payments") that is no namespace of the listing is said, and every namespace is checked.
    """
    named = question_namespaces(chat.question)
    whole = asks_about_the_whole(chat.question)
    if len(named) == 1:
        own_words = question_namespaces(without_scope_line(chat.question))
        if not own_words and not whole:  # --namespace: a workload the question names, there
            scoped = _workload_scope(chat, pods, named)
            if scoped is not None:
                return scoped
        _focus_workloads(chat, pods)
        return pods, total, named
    if _excerpt_handle(listing) is not None or _WHOLE_CLUSTER.search(chat.question):
        return pods, total, []
    listed = sorted({p.namespace for p in pods if p.namespace})
    if len(named) > 1:
        for namespace in named:
            if namespace not in listed:
                chat.scope_notes.append(_no_such_namespace(namespace, listed))
        kept = [pod for pod in pods if pod.namespace in named]
        _focus_workloads(chat, kept)
        return kept, len(kept), named
    mentioned = [ns for ns in listed if mentions(chat.question, ns)]
    if mentioned:
        kept = [pod for pod in pods if pod.namespace in mentioned]
        scoped = None if whole else _workload_scope(chat, kept, mentioned, by_first_word=False)
        if scoped is not None:
            return scoped
        _focus_workloads(chat, kept)
        return kept, len(kept), mentioned
    scoped = _workload_scope(chat, pods, [], by_first_word=True)
    if scoped is not None:
        return scoped
    for word in implied_namespaces(chat.question):
        if listed and word not in listed and not any(mentions(pod.name, word) for pod in pods):
            chat.scope_notes.append(
                _no_such_namespace(word, listed) + " Every namespace was checked instead."
            )
    return pods, total, []


def _workload_scope(
    chat: Conversation, pods: list[Pod], namespaces: Sequence[str], *, by_first_word: bool = True
) -> tuple[list[Pod], int, list[str]] | None:
    """The scope of a question about a workload: its pods of `pods` and their namespaces (set as
    chat.workloads and chat.focus), or None when the question names no workload.

    A workload is named by its name or its words ("payment-service", "the batch scorer"), else
    (`by_first_word`) by its name's first word ("checkout" for checkout-service). A name said beside
    a kind ("the billing-api deployment") that no listed pod has is the scope too, with no pods:
    the report says it is not there.
    """
    names = [pod.name for pod in pods]
    workloads = named_workloads(chat.question, names)
    if not workloads and by_first_word:
        workloads = first_word_workloads(chat.question, names, [pod.namespace for pod in pods])
    if not workloads:
        missing = named_by_kind(without_scope_line(chat.question))
        if not missing:
            return None
        chat.workloads, chat.missing = missing, True
        chat.scope_notes.append(_no_such_workload(missing, pods, namespaces))
        return [], 0, list(namespaces)
    chat.workloads = list(workloads)
    chat.focus = [name for found in workloads.values() for name in found]
    kept = [pod for pod in pods if pod.name in chat.focus]
    return kept, len(kept), list(dict.fromkeys(pod.namespace for pod in kept if pod.namespace))


def _no_such_workload(names: Sequence[str], pods: Sequence[Pod], namespaces: Sequence[str]) -> str:
    where = _scope_text(namespaces) if namespaces else "any namespace"
    workloads = list(dict.fromkeys(workload_of(pod.name) for pod in pods))
    shown = ", ".join(workloads[:MAX_NAMED]) + (" and more" if len(workloads) > MAX_NAMED else "")
    return f"No pod of a workload named {' or '.join(names)} in {where}: list_pods shows {len(pods)} pods" + (
        f", of the workloads {shown}." if workloads else "."
    )


def _no_such_namespace(namespace: str, listed: Sequence[str]) -> str:
    return (
        f"The question names {namespace}, but no namespace {namespace} has pods in this cluster (list_pods; "
        f"namespaces with pods: {', '.join(listed)})."
    )


def _focus_workloads(chat: Conversation, pods: Sequence[Pod]) -> dict[str, list[str]]:
    """The workloads the question names, resolved to their pods of `pods` (set as chat.focus and
    noted: the note is said while the report shows those pods nowhere else)."""
    workloads = named_workloads(chat.question, [pod.name for pod in pods])
    for workload, names in workloads.items():
        chat.focus.extend(name for name in names if name not in chat.focus)
        shown = ", ".join(names[:MAX_NAMED]) + (
            f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else ""
        )
        chat.focus_notes.append(
            (f"The question names the workload {workload}: its pods (list_pods) are {shown}.", names)
        )
    return workloads


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


def _excerpt_searches(chat: Conversation, handle: str) -> list[dict[str, Any]]:
    """The searches that find the rows of an excerpt the playbook judges: the rows that are not
    Running or not ready, and, for a question about restarts, the rows that restarted."""
    searches = [
        {"handle": handle, "pattern": _HEALTHY_ROW, "regex": True, "invert": True, "max_matches": 200},
        {"handle": handle, "pattern": _NOT_READY_ROW, "regex": True, "max_matches": 200},
    ]
    if asks_about_restarts(chat.question):
        searches.append({"handle": handle, "pattern": _RESTARTED_ROW, "regex": True, "max_matches": 200})
    return searches


def _search_excerpt(chat: Conversation, listing: str, may_call: bool) -> Step:
    """Ask the search tool for the rows of a listing too large to see whole that it judges."""
    handle = _excerpt_handle(listing) or ""
    tool = _search_tool(chat)
    if tool is None or not may_call:
        said = f"The pod listing was too large to read whole ({listing.splitlines()[0]}) and it could not be searched."
        return _said(chat, _report_header(chat) + "\n", said, _pods_scope(chat))
    searches = _excerpt_searches(chat, handle)
    return Reply(tool_calls=tuple(ToolCall(tool, json.dumps(arguments)) for arguments in searches))


def _listing_view(chat: Conversation, listing: str) -> tuple[list[Pod], int] | None:
    """The pods to judge and how many the listing holds in all; None while an excerpt is unsearched.

    A listing seen whole is parsed whole. Of an excerpt, the pods are its header's and shown rows'
    plus the rows the searches found (see _excerpt_searches), and the total is the listing's own
    closing count ("5000 pods in namespace x.") or its line count.
    """
    handle = _excerpt_handle(listing)
    if handle is None:
        pods = parse_pod_table(listing)
        return pods, len(pods)
    found = _searches(chat, handle)
    if len(found) < len(_excerpt_searches(chat, handle)):
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
    chosen = _nodes_to_describe(nodes)
    described = any(chat.latest("describe_node", n["NAME"], key="name") is not None for n in chosen)
    if chosen and not described and may_call and not listing.startswith("Tool call failed"):
        return Reply(
            tool_calls=tuple(ToolCall("describe_node", json.dumps({"name": n["NAME"]})) for n in chosen)
        )
    if chat.report_format != "prose":
        return _structured(chat, nodes_draft(chat, listing, nodes))
    return Reply(content=write_node_report(chat, header, listing, nodes))


def _node_state(chat: Conversation, name: str, listed: str | None = None, row: str = "") -> NodeState:
    """A node as describe_node shows it (and list_nodes, when `listed` is its STATUS)."""
    description = chat.latest("describe_node", name, key="name") or ""
    if description.startswith("Tool call failed"):
        description = ""
    pressures = _true_pressures(description)
    ready = next(
        (
            cells[1]
            for line in description.splitlines()
            if len(cells := line.split()) >= 2 and cells[0] == "Ready"
        ),
        None,
    )
    # The status as a tool showed it: list_nodes' STATUS, else describe_node's Ready condition.
    status = listed or ("Ready" if ready in (None, "True") else f"Ready condition {ready}")
    not_ready = status != "Ready" or ready not in (None, "True")
    category = "node_not_ready" if not_ready else "node_pressure" if pressures else ""
    conditions = [line.strip() for line in description.splitlines() if _condition_line(line, pressures)]
    events = description.split("\nEvents:", 1)[1] if "\nEvents:" in description else ""
    told = [line.strip() for line in events.splitlines() if _NODE_EVENT.search(line)] if category else []
    return NodeState(name, status, category, conditions + told, conditions, row)


def _node_states(chat: Conversation, listing: str, nodes: list[dict[str, str]]) -> list[NodeState]:
    return [_node_state(chat, n["NAME"], n.get("STATUS", ""), _row(listing, n["NAME"])) for n in nodes]


def write_node_report(chat: Conversation, header: str, listing: str, nodes: list[dict[str, str]]) -> str:
    """Per node not Ready or under pressure: its status, the condition lines, a cause and a fix."""
    lines = [header, ""]
    if listing.startswith("Tool call failed") or not nodes:
        lines.append(f"Could not list the nodes, so nothing could be checked. {listing.strip()}")
        return "\n".join(lines)
    states = _node_states(chat, listing, nodes)
    bad = [state for state in states if state.category]
    lines.append(f"{len(bad)} of {len(nodes)} nodes are unhealthy or under pressure.")
    lines += _node_entries(bad)
    unchecked = [n["NAME"] for n in nodes if chat.latest("describe_node", n["NAME"], key="name") is None]
    if unchecked and len(nodes) > NODES_DESCRIBED_ALL_UP_TO:
        lines += ["", f"Not described (Ready in the listing; pressure not checked): {len(unchecked)} nodes."]
    healthy = [state.name for state in states if not state.category]
    if healthy:
        lines += ["", f"Healthy: {', '.join(healthy[:10])}{' and more' if len(healthy) > 10 else ''}."]
    return "\n".join(lines)


def _node_entries(bad: Sequence[NodeState], start: int = 1) -> list[str]:
    lines = []
    for number, state in enumerate(bad, start=start):
        cause, fix = _node_cause_and_fix(state.status, state.conditions)
        source = "describe_node" if state.lines else "list_nodes"
        lines += ["", f"{number}. node {state.name}: {state.status}"]
        lines += [f"   Evidence ({source}): {line}" for line in state.lines or [f"STATUS {state.status}"]]
        lines += [f"   Cause: {cause}", f"   Fix: {fix}"]
    return lines


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


def _node_cause_and_fix(status: str, evidence: list[str]) -> tuple[str, str]:
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
        f"the node is {_not_ready(status)}: the kubelet does not report healthy",
        "check the kubelet and the node's connectivity (describe_node's events), then cordon and drain "
        "it if it does not recover",
    )


def _not_ready(status: str) -> str:
    """`NotReady`, or `not ready (Ready condition Unknown)` when describe_node alone said so."""
    return (
        status
        if status == "NotReady" or not status.startswith("Ready condition")
        else f"not ready ({status})"
    )


def node_finding(chat: Conversation, state: NodeState) -> dict[str, Any]:
    """One node finding of the JSON report."""
    if state.lines:
        evidence = [chat.quote(line, "describe_node", state.name) for line in state.lines]
    else:
        evidence = [chat.quote(state.row or state.name, "list_nodes")]
    cause, fix = _node_cause_and_fix(state.status, state.conditions)
    return {
        "kind": "node",
        "name": state.name,
        "namespace": None,
        "status": state.status,
        "cause": state.category,
        "explanation": cause,
        "evidence": evidence,
        "fix": fix,
    }


def _attribute(chat: Conversation, finding: Finding, state: NodeState | None) -> None:
    """A pod on a bad node: when it has no cause of its own (or its node cut it off), the node's."""
    if state is None or not state.category:
        return
    pod = finding.pod
    lost = state.category == "node_not_ready" and pod.status in _NODE_LOST
    if finding.category not in ("unknown", *NODE_CAUSES) and not lost:
        return
    if finding.category == "unknown" or lost:
        finding.category = state.category
        if state.category == "node_not_ready":
            finding.cause = (
                f"the pod's node {state.name} is {_not_ready(state.status)}: the pod is cut off with it"
            )
            finding.fix = "recover the node (kubelet, network) or drain it so the pod is scheduled elsewhere"
        else:
            finding.cause = f"the pod's node {state.name} is under pressure ({', '.join(state.conditions)})"
            finding.fix = "relieve the node (free the resource, move its heaviest pods) or add capacity"
    if state.lines:  # the node's own lines are its finding's evidence, not the pod's: a note here
        finding.notes.append(f"its node {state.name} (describe_node): {state.lines[0]}")


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
    listed = parse_pod_table(listing)
    pod = next((p for p in listed if p.name == name), None)
    if pod is None and any(belongs_to(p.name, name) for p in listed):  # a workload's name: its pods
        return _pods_playbook(chat, may_call)
    pod_shaped = re.search(r"-[a-z0-9]{6,10}-[a-z0-9]{5}$", name) is not None  # a ReplicaSet's pod
    if (
        pod is None
        and not pod_shaped
        and "list_nodes" in chat.offered
        and not listing.startswith("Tool call failed")
    ):
        nodes = chat.latest("list_nodes")
        if nodes is None and may_call:  # a node's name, said without the word "node"?
            return Reply(tool_calls=(ToolCall("list_nodes", "{}"),))
        if nodes is not None and any(n["NAME"] == name for n in parse_table(nodes)):
            return _one_node(chat, may_call, name, nodes, listed)
    if pod is None:
        scope = f"namespace {namespace}" if namespace else "any namespace"
        or_node = " or node" if chat.latest("list_nodes") is not None else ""
        return _said(
            chat,
            header + "\n",
            f"There is no pod{or_node} named {name} in {scope} (list_pods"
            + (", list_nodes" if or_node else "")
            + ").",
            f"pod {name}",
        )
    pod.namespace = pod.namespace or namespace or ""
    where = {"name": pod.name, "namespace": pod.namespace}
    if chat.latest("describe_pod", pod.name) is None and may_call:
        calls = [ToolCall("describe_pod", json.dumps(where))]
        if pod.runs_code and "get_pod_logs" in chat.offered:
            calls.append(ToolCall("get_pod_logs", json.dumps({**where, "tail": 20})))
            if pod.status == "Running" and pod.restarts:
                calls.append(ToolCall("get_pod_logs", json.dumps({**where, "tail": 20, "previous": True})))
        return Reply(tool_calls=tuple(calls))
    lines = [header, ""]
    if not pod.unhealthy:
        lines.append(f"{pod.name} ({pod.namespace}) is healthy: {pod.status}, READY {pod.ready} (list_pods).")
        if chat.report_format != "prose":
            return _structured(chat, _draft(f"pod {pod.name}", healthy=1, examples=[pod.name]))
        return Reply(content="\n".join(lines))
    finding = diagnose(chat, pod, [p for p in listed if p.unhealthy])
    if chat.report_format != "prose":
        return _structured(
            chat, _draft(f"pod {pod.name}", [pod_finding(chat, finding)], unchecked=finding.unchecked)
        )
    lines += [
        f"{pod.name} ({pod.namespace}): {pod.status}, READY {pod.ready}"
        + (f", {pod.restarts} restart{'s' * (pod.restarts != 1)}" if pod.restarts else ""),
        f"   Evidence ({finding.source}): {finding.evidence}",
        f"   Cause: {finding.cause}",
        f"   Fix: {finding.fix}",
        *[f"   Note: {note}" for note in finding.notes],
    ]
    return Reply(content="\n".join(lines))


def _one_node(chat: Conversation, may_call: bool, name: str, listing: str, pods: Sequence[Pod]) -> Step:
    """A question naming a node without the word "node": describe it, report it and the unhealthy
    pods the pod listing shows on it."""
    header = f"Health report for node {name} ({HEADER})"
    if chat.latest("describe_node", name) is None and may_call and "describe_node" in chat.offered:
        return Reply(tool_calls=(ToolCall("describe_node", json.dumps({"name": name})),))
    row = next((n for n in parse_table(listing) if n["NAME"] == name), {})
    state = _node_state(chat, name, row.get("STATUS"), _row(listing, name))
    on_it = [pod for pod in pods if pod.node == name]
    bad = [pod for pod in on_it if pod.unhealthy]
    said = (
        f"Pods on {name} (list_pods): {len(on_it)}, unhealthy: "
        + (", ".join(f"{pod.name} ({pod.namespace}, {pod.status})" for pod in bad[:MAX_NAMED]) or "none")
        + "."
    )
    if chat.report_format != "prose":
        findings = [node_finding(chat, state)] if state.category else []
        return _structured(
            chat,
            _draft(
                f"node {name}",
                findings,
                healthy=0 if state.category else 1,
                examples=[] if state.category else [name],
                unchecked=[said] if bad else [],
            ),
        )
    if state.category:
        return Reply(content="\n".join([header, *_node_entries([state]), "", said]))
    verdict = f"{name} is healthy: {state.status}, no memory, disk or PID pressure (describe_node)."
    return Reply(content="\n".join([header, "", verdict, said]))


def _unknown_tools(chat: Conversation) -> str:
    return (
        "This playbook knows the mock cluster's tools (list_pods, describe_pod, get_pod_logs, list_nodes, "
        f"describe_node); this server offers {', '.join(sorted(chat.offered)) or 'no tools'}. Use a real model "
        "(--model, --base-url) for this server."
    )


def parse_table(listing: str) -> list[dict[str, str]]:
    """Rows of a kubectl-like table as dicts by header name (columns split on runs of spaces); only
    rows that look like the header's columns."""
    lines = [line for line in listing.splitlines() if line.strip() and not line.lstrip().startswith("[")]
    if not lines:
        return []
    return _table_rows(lines[1:], lines[0].split())


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


def asks_about_nodes_and_pods(question: str) -> bool:
    """Whether the question is about nodes and about pods ("which pods does it affect?")."""
    return bool(_NODES.search(question)) and bool(_PODS.search(question))


_ROW_NAME = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$")
_ROW_CELLS = {
    "NAMESPACE": _ROW_NAME,
    "NAME": _ROW_NAME,
    "READY": re.compile(r"^\d+/\d+$"),
    "RESTARTS": re.compile(r"^\d+$"),
    "STATUS": re.compile(r"^[A-Za-z][\w:/,-]*$"),
    "ROLES": re.compile(r"^[\w<>,./-]+$"),
}
"""What a cell of a table row looks like, per column: a row whose cells do not is no row (an
excerpt's "[... 12 lines not shown ...]", a note, a log line that happens to have as many words)."""


def _table_rows(lines: Sequence[str], columns: Sequence[str]) -> list[dict[str, str]]:
    """The rows of a kubectl-like table under `columns`, each cell checked against its column."""
    rows = []
    for line in lines:
        if line.lstrip().startswith("[") or not line.strip():
            continue
        cells = line.split()
        if len(cells) < len(columns):
            continue
        since = ""
        if len(cells) > len(columns) and "RESTARTS" in columns:  # "3 (5m ago)": the restarts' age
            at = columns.index("RESTARTS")
            extra = len(cells) - len(columns)
            if re.fullmatch(r"\(\S+", cells[at + 1]) and cells[at + extra].endswith(")"):
                since = " ".join(cells[at + 1 : at + 1 + extra])[1:-1]
                cells = cells[: at + 1] + cells[at + 1 + extra :]
        row = dict(zip(columns, cells, strict=False))
        if since and len(cells) == len(columns):
            row["LAST RESTART"] = since
        if all(
            pattern.match(row.get(column, "x")) for column, pattern in _ROW_CELLS.items() if column in row
        ):
            rows.append(row)
    return rows


def parse_pod_table(listing: str) -> list[Pod]:
    """Rows of a list_pods table, by header name (any column order); only rows that look like the
    header's columns (see _ROW_CELLS)."""
    lines = [line for line in listing.splitlines() if line.strip()]
    header_index = next(
        (i for i, line in enumerate(lines) if line.split()[:1] in (["NAMESPACE"], ["NAME"])), None
    )
    if header_index is None:
        return []
    columns = lines[header_index].split()
    pods = []
    for row in _table_rows(lines[header_index + 1 :], columns):
        if "NAME" not in row:
            continue
        node = row.get("NODE", "")
        pods.append(
            Pod(
                row.get("NAMESPACE", ""),
                row["NAME"],
                row.get("READY", "1/1"),
                row.get("STATUS", ""),
                int(row.get("RESTARTS", "0")),
                "" if node in ("<none>", "<unknown>") else node,
                row.get("AGE", ""),
                row.get("LAST RESTART", ""),
            )
        )
    return pods


def write_report(
    chat: Conversation,
    listing: str,
    pods: list[Pod],
    unhealthy: list[Pod],
    total: int | None = None,
    findings: list[Finding] | None = None,
    namespaces: list[str] | None = None,
    bad_nodes: Sequence[NodeState] = (),
) -> str:
    """The health report, every conclusion quoting its tool result; bounded whatever the cluster:
    at most MAX_INVESTIGATED pods in detail, the healthy ones as a count with a few names."""
    lines = [_report_header(chat, namespaces), ""]
    if findings is None:
        findings = [diagnose(chat, pod, unhealthy) for pod in unhealthy[:MAX_INVESTIGATED]]
    lines += _pod_report_lines(chat, listing, pods, unhealthy, total, findings)
    if bad_nodes and not listing.startswith("Tool call failed"):
        lines += ["", "Nodes behind these pods:"]
        lines += _node_entries(bad_nodes, start=len(findings) + 1)
    return _bounded("\n".join(lines))


def _bounded(report: str) -> str:
    return (
        report
        if len(report) <= MAX_REPORT_CHARS
        else report[: MAX_REPORT_CHARS - 40] + "\n[report cut at 16 KB]"
    )


def _pod_report_lines(
    chat: Conversation,
    listing: str,
    pods: list[Pod],
    unhealthy: list[Pod],
    total: int | None,
    findings: list[Finding],
) -> list[str]:
    if listing.startswith("Tool call failed"):
        return [f"Could not list the pods, so nothing could be checked. {listing}"]
    if not pods and chat.missing:
        return chat.scope_notes
    if not pods:
        said = listing.strip().splitlines()[-1] if listing.strip() else ""
        lines = [f"list_pods returned no pods: {said}"]
        if "Namespaces with pods:" in said:
            lines.append("Check the namespace's name: the question may name one that does not exist.")
        return lines
    total = len(pods) if total is None else total
    lines = [f"{len(unhealthy):,} of {total:,} pods are unhealthy."]
    for number, finding in enumerate(findings, start=1):
        pod = finding.pod
        restarts = f", {pod.restarts} restart{'s' * (pod.restarts != 1)}" if pod.restarts else ""
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
    healthy = [pod.name for pod in pods if pod not in unhealthy]
    healthy_count = total - len(unhealthy)
    if healthy_count > 0 and len(healthy) == healthy_count and healthy_count <= MAX_NAMED:
        lines += ["", f"Healthy: {', '.join(healthy)}."]
    elif healthy_count > 0:
        lines += ["", f"Healthy: {healthy_count:,} pods, for example {', '.join(healthy[:3])}."]
    lines += [f"Checked: {note}." for note in chat.healthy_notes]
    named = {finding.pod.name for finding in findings} | set(
        healthy if len(healthy) <= MAX_NAMED else healthy[:3]
    )
    notes = _unchecked_notes(chat, named | _described(chat, pods))
    if notes:
        lines += ["", *[f"Note: {note}" for note in notes]]
    return lines


def _described(chat: Conversation, pods: Sequence[Pod]) -> set[str]:
    """The pods a describe_pod result shows (the prose report's Checked lines name them)."""
    return {pod.name for pod in pods if chat.latest("describe_pod", pod.name) is not None}


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


def _scope_text(namespaces: Sequence[str]) -> str:
    if not namespaces:
        return "all namespaces"
    if len(namespaces) == 1:
        return f"namespace {namespaces[0]}"
    return f"namespaces {', '.join(namespaces)}"


def _pods_scope(chat: Conversation, namespaces: Sequence[str] | None = None) -> str:
    if namespaces is None:
        named = question_namespace(chat.question)
        namespaces = [named] if named else []
    if chat.workloads:
        return _workload_scope_text(chat, namespaces)
    return f"pods in {_scope_text(namespaces)}"


def _workload_scope_text(chat: Conversation, namespaces: Sequence[str]) -> str:
    """`workload checkout-service (pods in namespace production), and the Services its pods fail to
    reach (payment-service)`."""
    kind = "workloads" if len(chat.workloads) > 1 else "workload"
    text = f"{kind} {', '.join(chat.workloads)} (pods in {_scope_text(namespaces)})"
    listed = _all_listed(chat)
    workloads = {workload_of(pod.name) for pod in listed}
    mine = [pod for pod in listed if pod.name in chat.focus]
    called = list(
        dict.fromkeys(call.service for pod in mine for call, _ in _failed_calls_of(chat, pod, workloads))
    )
    if called:
        text += f", and the Services its pods fail to reach ({', '.join(called)})"
    return text[:MAX_SCOPE_CHARACTERS]


MAX_SCOPE_CHARACTERS = 300


def pod_finding(chat: Conversation, finding: Finding) -> dict[str, Any]:
    """One finding of the JSON report, its evidence quoted verbatim with the call it came from."""
    pod = finding.pod
    evidence = [{"text": finding.evidence, "call_id": finding.call_id, "tool": finding.source}]
    evidence += [{"text": text, "call_id": call, "tool": tool} for text, tool, call in finding.more]
    restarts = f", {pod.restarts} restart{'s' * (pod.restarts != 1)}" if pod.restarts else ""
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
    chat: Conversation,
    listing: str,
    pods: list[Pod],
    unhealthy: list[Pod],
    total: int,
    findings: list[Finding] | None = None,
    namespaces: list[str] | None = None,
    bad_nodes: Sequence[NodeState] = (),
) -> dict[str, Any]:
    """The JSON report of the pods playbook: what write_report says, as data."""
    scope = _pods_scope(chat, namespaces)
    if listing.startswith("Tool call failed"):
        return _draft(scope, unchecked=[f"Could not list the pods: {listing}"])
    if not pods:
        if chat.missing:
            return _draft(scope, unchecked=chat.scope_notes)
        said = listing.strip().splitlines()[-1] if listing.strip() else ""
        return _draft(scope, unchecked=[f"list_pods returned no pods: {said}", *chat.scope_notes])
    if findings is None:
        findings = [diagnose(chat, pod, unhealthy) for pod in unhealthy[:MAX_INVESTIGATED]]
    reported, unchecked = [], []
    for finding in findings:
        reported.append(pod_finding(chat, finding))
        unchecked += finding.unchecked
    reported += [node_finding(chat, state) for state in bad_nodes]
    rest = unhealthy[MAX_INVESTIGATED:]
    if rest:
        names = ", ".join(pod.name for pod in rest[:MAX_NAMED])
        more = f" and {len(rest) - MAX_NAMED:,} more" if len(rest) > MAX_NAMED else ""
        unchecked.append(f"{len(rest):,} more unhealthy pods not investigated: {names}{more}")
    # Examples are pods the listing shows healthy; a pod starting (not unhealthy, not ready yet) is counted only.
    healthy = _healthy_first(chat, [pod.name for pod in pods if pod not in unhealthy and not pod.unhealthy])
    shown = {finding.pod.name for finding in findings} | set(healthy[:MAX_EXAMPLES])
    return _draft(
        scope,
        reported,
        healthy=max(0, total - len(unhealthy)),
        examples=healthy,
        unchecked=[*_unchecked_notes(chat, shown), *unchecked],
    )


def _healthy_first(chat: Conversation, healthy: list[str]) -> list[str]:
    """The healthy pods, those of the workloads the question names first (the examples it shows)."""
    return sorted(healthy, key=lambda name: name not in chat.focus)


def _unchecked_notes(chat: Conversation, shown: set[str]) -> list[str]:
    """The scope notes of the report's `unchecked`: a note of what a workload's name resolved to is
    left out when the report shows each of its pods (as a finding, or a healthy example)."""
    kept = [note for note, pods in chat.focus_notes if not set(pods) <= shown]
    return [*chat.scope_notes, *kept]


def nodes_draft(chat: Conversation, listing: str, nodes: list[dict[str, str]]) -> dict[str, Any]:
    """The JSON report of the node playbook."""
    if listing.startswith("Tool call failed") or not nodes:
        return _draft("nodes", unchecked=[f"Could not list the nodes: {listing.strip()}"])
    states = _node_states(chat, listing, nodes)
    findings = [node_finding(chat, state) for state in states if state.category]
    unchecked = []
    undescribed = [n["NAME"] for n in nodes if chat.latest("describe_node", n["NAME"], key="name") is None]
    if undescribed and len(nodes) > NODES_DESCRIBED_ALL_UP_TO:
        unchecked.append(
            f"{len(undescribed)} nodes not described (Ready in the listing; pressure not checked)"
        )
    healthy = [state.name for state in states if not state.category]
    return _draft("nodes", findings, healthy=len(healthy), examples=healthy, unchecked=unchecked)


def diagnose(chat: Conversation, pod: Pod, broken: Sequence[Pod] = ()) -> Finding:
    """Pick the evidence line for a pod and match it to a cause and a fix.

    `broken` are the unhealthy pods of the listing: a pod that cannot reach one of them is
    down because of it (dependency_down).
    """
    finding = Finding(pod)
    description = chat.latest("describe_pod", pod.name)
    described = description if description and not description.startswith("Tool call failed") else ""
    if description and not described:
        finding.notes.append(f"describe_pod failed: {description}")
        finding.unchecked.append(f"{pod.name}: describe_pod failed: {description}")
    logs = _read_logs(chat, finding)
    if not pod.node:
        on = re.search(r"^Node:\s+([^\s/]+)", described, re.M)
        pod.node = on[1] if on and on[1] not in ("<none>", "<unknown>") else ""
    if _ruled(chat, finding, described, logs, broken):
        return finding
    candidates: list[tuple[int, str, str]] = []  # (rank, source, line); lower rank wins
    if described:
        oom = next((match for pattern in _OOM_STATE if (match := pattern.search(described))), None)
        if oom:
            candidates.append((0, "describe_pod", " ".join(oom[0].split())))
        for rank, (reason, message) in enumerate(_warning_events(described), start=10):
            priority = (
                _WARNING_PRIORITY.index(reason) if reason in _WARNING_PRIORITY else len(_WARNING_PRIORITY)
            )
            if reason == "Failed" and message.startswith("Error: "):
                priority += (
                    5  # "Error: ErrImagePull" says less than "Failed to pull image ...: manifest unknown"
                )
            candidates.append((10 + priority * 10 + rank % 10, "describe_pod", message))
    if logs.telling:
        # A crash's own words beat the kubelet's back-off notice; a probe failure is best told by its event.
        rank = 5 if CRASHING.search(pod.status) or pod.restarts else 60
        candidates.append((rank, "get_pod_logs", logs.telling))
    if not candidates:
        _cite(chat, finding, "list_pods", _listing_row(chat, pod))
    else:
        _, source, line = min(candidates)
        _cite(chat, finding, source, line, logs.crash_id if source == "get_pod_logs" else None)
    finding.category, finding.cause, finding.fix = _cause_and_fix(
        pod, finding.evidence, described, logs.crash
    )
    if finding.source == "get_pod_logs":
        _first_error(finding, logs)
    elif finding.source == "describe_pod" and logs.telling and _ERRORISH.search(logs.telling):
        hint = logs.telling
        finding.also(hint, "get_pod_logs", logs.crash_id, f"the logs (get_pod_logs) say: {hint}")
    return finding


def _read_logs(chat: Conversation, finding: Finding) -> Logs:
    """The pod's current logs, and the ones that tell its crash (see Logs)."""
    pod = finding.pod
    current, current_id = _logs_of(chat, pod.name)
    if current and current.startswith("Tool call failed"):
        finding.notes.append(f"logs unavailable: {current}")
        finding.unchecked.append(f"{pod.name}: logs unavailable: {current}")
    logs = Logs(_readable(current), current_id)
    logs.crash, logs.crash_id = logs.current, logs.current_id
    before, before_id = _logs_of(chat, pod.name, previous=True)
    earlier = _readable(before)
    if earlier and pod.restarts:
        line = _telling_log_line(earlier)
        if _ERRORISH.search(line) or _CONFIG_ERROR.search(line) or not logs.current:
            logs.crash, logs.crash_id = earlier, before_id
    return logs


def _logs_of(chat: Conversation, name: str, previous: bool = False) -> tuple[str, str | None]:
    """The last get_pod_logs result of the pod (of its previous container with `previous`), and its call id."""
    for index in range(len(chat.results) - 1, -1, -1):
        tool, arguments, content = chat.results[index]
        if (
            tool == "get_pod_logs"
            and arguments.get("name") == name
            and bool(arguments.get("previous")) == previous
        ):
            return content, chat.id_of(index)
    return "", None


def _readable(logs: str) -> str:
    failed = logs.startswith(("Tool call failed", "[Duplicate call]")) or logs == "(no log lines)"
    return "" if failed else logs


def _first_error(finding: Finding, logs: Logs) -> None:
    """Quote the first error of the crash's logs too, when it comes before the telling (last) one:
    the first is often the cause, the last its consequence."""
    first = next(
        (
            line.strip()
            for line in logs.crash.splitlines()
            if _ERRORISH.search(log_text(line)) and not _calm(line)
        ),
        "",
    )
    if first and first != finding.evidence:
        finding.also(first, "get_pod_logs", logs.crash_id, f"the first error in the logs: {first}")


def _cite(chat: Conversation, finding: Finding, source: str, line: str, call_id: str | None = None) -> None:
    """Make `line` of the `source` tool's result the finding's evidence."""
    finding.source, finding.evidence = source, line
    by_pod = source in ("describe_pod", "get_pod_logs")
    if source == "list_pods" and call_id is None:
        call_id = _listing_row_and_id(chat, finding.pod)[1]
    finding.call_id = call_id or chat.latest_id(source, finding.pod.name if by_pod else None)


def _listing_row(chat: Conversation, pod: Pod) -> str:
    """The pod's row of the latest listing that shows it (or its status, when none does)."""
    return _listing_row_and_id(chat, pod)[0]


def _listing_row_and_id(chat: Conversation, pod: Pod) -> tuple[str, str | None]:
    for index in range(len(chat.results) - 1, -1, -1):
        tool, _, content = chat.results[index]
        if tool != "list_pods":
            continue
        row = next(
            (
                line.strip()
                for line in content.splitlines()
                if line.split()[1:2] == [pod.name] or line.split()[:1] == [pod.name]
            ),
            None,
        )
        if row is not None:
            return row, chat.id_of(index)
    return pod.status, chat.latest_id("list_pods")


def _ruled(chat: Conversation, finding: Finding, described: str, logs: Logs, broken: Sequence[Pod]) -> bool:
    """The causes one line settles, in the order an SRE checks them (see the module's docstring).
    Fills the finding and says True when one applies."""
    pod = finding.pod
    events = _events(described)
    warnings = [(reason, message) for kind, reason, message in events if kind == "Warning"]
    logs_id, telling = logs.crash_id, logs.telling
    crash_note = f"the logs (get_pod_logs) say: {telling}"
    node = f" {pod.node}" if pod.node else ""

    lost = next(
        (m for r, m in warnings if r == "NodeNotReady" or m.lower().startswith("node is not ready")), None
    )
    if lost:
        _cite(chat, finding, "describe_pod", lost)
        finding.category = "node_not_ready"
        finding.cause = f"the pod's node{node} is not ready: the node controller marks its pods not ready"
        finding.fix = "recover the node (kubelet, network) or drain it so its pods are scheduled elsewhere"
        return True

    evicted = next((m for r, m in warnings if r == "Evicted"), None)
    if evicted is not None:
        _cite(chat, finding, "describe_pod", evicted)
    elif pod.status == "Evicted" or re.search(r"^Reason:\s+Evicted\s*$", described, re.M):
        message = re.search(r"^Message:\s+(.+)$", described, re.M)
        evicted = message[0].strip() if message else ""
        if message:
            _cite(chat, finding, "describe_pod", evicted)
        else:
            _cite(chat, finding, "list_pods", _listing_row(chat, pod))
    if evicted is not None:
        low = _NODE_LOW.search(evicted or "")
        if low:
            finding.category = "node_pressure"
            finding.cause = f"the kubelet evicted the pod because its node{node} ran low on {low[1]}"
            finding.fix = (
                f"relieve the node's {low[1]} (find the heaviest consumers, set their requests and limits) or "
                "add capacity; delete the Evicted pod once its replacement runs"
            )
        else:
            finding.category = "evicted"
            finding.cause = "the kubelet evicted the pod" + (f": {evicted}" if evicted else "")
            finding.fix = (
                "raise the limit it exceeded or make it use less (e.g. write to a volume, not the container's "
                "local storage); delete the Evicted pod once its replacement runs"
            )
        return True

    quota = next((m for _, m in warnings if _QUOTA.search(m)), None)
    owner_quota = None if quota else _owner_event(chat, pod, _QUOTA)
    if quota or owner_quota:
        if quota:
            _cite(chat, finding, "describe_pod", quota)
        elif owner_quota:
            _cite(chat, finding, "get_events", *owner_quota)
        name = re.search(r"exceeded quota: ([\w.-]+)", finding.evidence)
        finding.category = "quota_exceeded"
        finding.cause = (
            f"the namespace's ResourceQuota{' ' + name[1] if name else ''} refuses the pod's requests"
        )
        finding.fix = (
            "raise the quota, lower the pod's requests, or free quota by scaling down other workloads"
        )
        return True

    job = _owner_event(chat, pod, re.compile(r"\bBackoffLimitExceeded\b"))
    if job:
        _cite(chat, finding, "get_events", *job)
        owner = re.search(r"\bjob/(\S+)", job[0], re.I)
        finding.category = "job_backoff_limit"
        finding.cause = (
            f"the Job{' ' + owner[1] if owner else ''} gave up: its pods failed as many times as its backoffLimit "
            "allows"
        )
        finding.fix = (
            "fix the error its pods' logs show, then run the Job again (or wait for its next schedule)"
        )
        if telling:  # the pod failed: its last words say why
            finding.also(telling, "get_pod_logs", logs_id, crash_note)
        return True

    if pod.status.startswith("Init:"):
        container = next(
            (m[1] for _, message in warnings if (m := re.search(r"failed container (\S+)", message))), None
        )
        if telling:
            _cite(chat, finding, "get_pod_logs", telling, logs_id)
            _first_error(finding, logs)
        elif warnings:
            _cite(chat, finding, "describe_pod", min(warnings, key=_priority)[1])
        else:
            _cite(chat, finding, "list_pods", _listing_row(chat, pod))
        finding.category = "init_container_failure"
        which = f"the init container {container}" if container else "an init container"
        finding.cause = f"{which} fails, so the pod's app containers never start"
        finding.fix = "fix the error the init container's logs show; the pod starts once it succeeds"
        return True

    oom = any(pattern.search(described) for pattern in _OOM_STATE) or "OOMKilled" in pod.status
    liveness = next((m for _, m in warnings if _LIVENESS.search(m)), None)
    restarting = pod.restarts > 0 or bool(CRASHING.search(pod.status))
    if liveness and restarting and not oom and not logs.crashes_by_itself:
        _cite(chat, finding, "describe_pod", liveness)
        finding.category = "liveness_probe_failure"
        finding.cause = (
            "the container fails its liveness probe and is restarted by the kubelet; its logs show no crash of "
            "its own"
        )
        finding.fix = (
            "find why the health endpoint stalls (or is slow), or give the probe a realistic timeout"
        )
        killed = next((m for _, _, m in events if re.search(r"(?i)failed liveness probe", m)), None)
        if killed:
            finding.also(killed, "describe_pod", finding.call_id)
        if telling and _ERRORISH.search(telling):
            finding.also(telling, "get_pod_logs", logs_id, crash_note)
        return True

    readiness = next((m for _, m in warnings if _READINESS.search(m)), None)
    if readiness and pod.status == "Running" and pod.restarts == 0 and logs.current:
        found = _dependency(chat, pod, logs.current, broken)
        if found:
            line, other = found
            _cite(chat, finding, "get_pod_logs", line, logs.current_id)
            finding.category = "dependency_down"
            finding.cause = (
                f"the container runs but is not ready: it cannot reach {workload_of(other.name)}, whose pod "
                f"{other.name} is itself unhealthy ({other.status}, READY {other.ready})"
            )
            finding.fix = f"fix {other.name} first (see its entry); this pod becomes ready once it is back"
            finding.depends_on = other
            finding.also(
                readiness,
                "describe_pod",
                chat.latest_id("describe_pod", pod.name),
                f"describe_pod: {readiness}",
            )
            return True
    return False


_SERVICE_HOST = re.compile(r"\b([a-z0-9][a-z0-9-]*)\.([a-z0-9][a-z0-9-]*)\.svc\b")


def _elsewhere(chat: Conversation, finding: Finding, reported: Sequence[Pod] = ()) -> None:
    """A pod failing its readiness probe whose logs fail to reach a Service of another namespace
    (`name.namespace.svc`), or down because of a pod the report does not show: say which, and that
    it was not checked from here."""
    other = finding.depends_on
    if finding.category == "dependency_down" and other is not None and other not in reported:
        finding.fix = f"fix {other.name} first; this pod becomes ready once it is back"
        finding.unchecked.append(
            f"{finding.pod.name} depends on {other.name} of namespace {other.namespace}: that namespace is "
            f"outside this report's scope; check it (e.g. 'what is wrong in the {other.namespace} namespace?')"
        )
        return
    if finding.category not in ("readiness_probe_failure", "unknown"):
        return
    logs, logs_id = _logs_of(chat, finding.pod.name)
    for line in _readable(logs).splitlines():
        if not CONNECTION_ERROR.search(line):
            continue
        for service, namespace in _SERVICE_HOST.findall(line):
            if namespace != finding.pod.namespace:
                finding.also(
                    line.strip(),
                    "get_pod_logs",
                    logs_id,
                    f"its logs fail to reach {service} in namespace {namespace} (get_pod_logs): {line.strip()}",
                )
                finding.unchecked.append(
                    f"{finding.pod.name} cannot reach the Service {service} of namespace {namespace}: that "
                    f"namespace is outside this report's scope; check it (e.g. 'what is wrong in the "
                    f"{namespace} namespace?')"
                )
                return


def _priority(event: tuple[str, str]) -> int:
    reason = event[0]
    return _WARNING_PRIORITY.index(reason) if reason in _WARNING_PRIORITY else len(_WARNING_PRIORITY)


def _owner_event(chat: Conversation, pod: Pod, wanted: re.Pattern[str]) -> tuple[str, str | None] | None:
    """A get_events line about the pod's owner (job/NAME or replicaset/NAME, NAME its name without
    its last part) that matches `wanted`, with its call id."""
    owner = pod.name.rsplit("-", 1)[0]
    if owner == pod.name:
        return None
    objects = {f"job/{owner}", f"replicaset/{owner}"}
    for index in range(len(chat.results) - 1, -1, -1):
        tool, arguments, content = chat.results[index]
        if tool != "get_events" or content.startswith("Tool call failed"):
            continue
        namespace = arguments.get("namespace")
        if namespace not in (None, "", pod.namespace):
            continue
        for line in content.splitlines():
            cells = line.split()
            if not any(cell.lower() in objects for cell in cells) or not wanted.search(line):
                continue
            if not namespace and pod.namespace and cells[:1] != [pod.namespace]:
                continue
            return line.strip(), chat.id_of(index)
    return None


def _probe_ports(description: str) -> set[str]:
    """The ports a pod's probes and containers use, from describe_pod."""
    ports: set[str] = set()
    for line in description.splitlines():
        text = line.strip()
        if text.startswith(("Liveness:", "Readiness:", "Startup:")):
            ports.update(_PORT_IN_LINE.findall(text))
        elif text.startswith(("Port:", "Ports:", "Host Port:")):
            ports.update(re.findall(r"\b(\d{2,5})(?:/(?:TCP|UDP|SCTP))?\b", text))
    return ports


def _dependency(chat: Conversation, pod: Pod, logs: str, broken: Sequence[Pod]) -> tuple[str, Pod] | None:
    """A log line of a connection error to another workload that is unhealthy itself, and that
    workload's pod: named by host or words ("payments-db.payments.svc", "session store"), else by a
    port its probes use."""
    lines = [line.strip() for line in logs.splitlines() if CONNECTION_ERROR.search(line)]
    if not lines:
        return None
    own = workload_of(pod.name)
    others: dict[str, Pod] = {}
    for other in broken:
        workload = workload_of(other.name)
        if other.name != pod.name and workload != own:
            others.setdefault(workload, other)

    def names(workload: str) -> re.Pattern[str]:
        words = [re.escape(word) for word in re.split(r"[-_.]", workload) if word]
        return re.compile(r"(?<![\w-])" + r"[-_ ]".join(words) + r"(?![\w-])", re.I)

    def quoted(line: str, named: re.Pattern[str], ports: set[str]) -> bool:
        return bool(named.search(line)) or bool(ports & set(_PORT_IN_LINE.findall(line)))

    # A dependency the logs name beats one found by its port; of its lines, the first one is quoted.
    by_name = [
        (workload, other)
        for workload, other in others.items()
        if any(names(workload).search(line) for line in lines)
    ]
    for workload, other in by_name or list(others.items()):
        named = names(workload)
        ports = _probe_ports(chat.latest("describe_pod", other.name) or "")
        line = next((line for line in lines if quoted(line, named, ports)), None)
        if line:
            return line, other
    return None


def _cause_and_fix(pod: Pod, quoted_line: str, description: str, logs: str) -> tuple[str, str, str]:
    evidence = log_text(quoted_line)  # of a JSON log line, its message, not its level or time
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
    if _MISSING_SETTING.search(evidence):
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
    if (
        (CRASHING.search(pod.status) or pod.restarts)
        and _CONFIG_ERROR.search(evidence)
        and not _calm(quoted_line)
    ):
        return (
            "crash_config",
            "the application exits at start-up on its configuration (a flag, a config file or a setting it reads)",
            "correct what the log line names (the flags in the pod spec, the ConfigMap or the mounted file), "
            "then roll it out again",
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


def _events(description: str) -> list[tuple[str, str, str]]:
    """(type, reason, message) of every event in a describe_pod result."""
    section = description.split("\nEvents:", 1)[1] if "\nEvents:" in description else ""
    found = []
    for line in section.splitlines():
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=4)
        if len(cells) == 5 and cells[0] in ("Warning", "Normal"):
            found.append((cells[0], cells[1], cells[4]))
    return found


def _warning_events(description: str) -> list[tuple[str, str]]:
    """(reason, message) of every Warning event in a describe_pod result."""
    return [(reason, message) for kind, reason, message in _events(description) if kind == "Warning"]


_DECIDING = re.compile(
    r"(?i)^(?:\S+\s+){0,3}?(?:\[?(?:fatal|error|err|crit(?:ical)?|panic|emerg)\]?:?\s)|\bpanic:|\bfatal\b"
    r"|\b(?:[A-Z]\w*(?:Error|Exception)|Error|Exception)\b(?::|$)|\bcaused by\b"
)
"""A line that says what failed: its level is error/fatal, or it is the exception, panic or `Error:`
itself (not a line around it: a stack frame, "shutting down", "exiting after failure")."""
_MESSAGE_FIELDS = ("error", "err", "exception", "msg", "message", "reason", "detail", "event")
_LEVEL_FIELDS = ("level", "lvl", "severity", "log.level")


def log_text(line: str) -> str:
    """What a log line says: of a JSON line, its error and message fields (not its level, time or
    caller); else the line itself."""
    text = line.strip()
    if not text.startswith("{"):
        return text
    try:
        record = json.loads(text)
    except ValueError:
        return text
    if not isinstance(record, dict):
        return text
    parts = [str(record[key]) for key in _MESSAGE_FIELDS if isinstance(record.get(key), str | int | float)]
    return "; ".join(dict.fromkeys(parts)) or text


def _log_level(line: str) -> str:
    """The level a JSON log line gives itself, lower-cased, or ""."""
    text = line.strip()
    if not text.startswith("{"):
        return ""
    try:
        record = json.loads(text)
    except ValueError:
        return ""
    if not isinstance(record, dict):
        return ""
    return next((str(record[key]).lower() for key in _LEVEL_FIELDS if key in record), "")


def _calm(line: str) -> bool:
    """Whether a log line says itself it is not an error (its level, or words such as "using the default")."""
    level = _log_level(line)
    if level:
        return level in ("warn", "warning", "info", "debug", "trace", "notice")
    return bool(_CALM.search(line))


def _telling_log_line(logs: str) -> str:
    """The line that tells most: the last configuration error (not a calm line), else the last line
    that says what failed (the exception, the panic, an `Error:`/FATAL line, a JSON line of level
    error), else the last error-like line, else the last line."""
    lines = [line.strip() for line in logs.splitlines() if line.strip()]
    config = [line for line in lines if _CONFIG_ERROR.search(log_text(line)) and not _calm(line)]
    deciding = [
        line
        for line in lines
        if not _calm(line)
        and (_DECIDING.search(log_text(line)) or _log_level(line) in ("error", "fatal", "critical", "panic"))
    ]
    errorish = [line for line in lines if _ERRORISH.search(log_text(line)) and not _calm(line)]
    errorish = errorish or [line for line in lines if _ERRORISH.search(line)]
    return (config or deciding or errorish or lines or [""])[-1]


def _report_header(chat: Conversation, namespaces: Sequence[str] | None = None) -> str:
    if namespaces is None:
        named = question_namespace(chat.question)
        namespaces = [named] if named else []
    if chat.workloads:
        return f"Health report for {_pods_scope(chat, namespaces)} ({HEADER})"
    return f"Health report for {_scope_text(namespaces)} ({HEADER})"


_text = message_text
