"""The offline playbook on kubernetes-mcp-server's tools: its calls, its formats, its quotes.

The playbook (flows.py) reasons over the mock cluster's tools and their text. Offered the tools of
containers/kubernetes-mcp-server instead (pods_list / pods_list_in_namespace, pods_get, pods_log,
events_list, resources_list and resources_get for Nodes), it investigates through them: this module
reads the conversation's calls to those tools and their results (tables, YAML, raw logs) as the
playbook's own views, lets the playbook decide, and turns its decision back into calls of the
offered tools, and its report's quotes into lines those tools really returned.

    list_pods {namespace}        pods_list_in_namespace {namespace}, or pods_list
    describe_pod {name, ns}      pods_get {name, namespace} + events_list {namespace}
    get_pod_logs {..., previous} pods_log {name, namespace, tail, previous[, container]}
    get_events {namespace}       events_list {namespace}
    list_nodes                   resources_list {apiVersion: v1, kind: Node}
    describe_node {name}         resources_get {apiVersion: v1, kind: Node, name} + events_list {}

Every line of a view remembers the result and the line it was read from; a quote of the report is
mapped back to that line (the quote itself when the result holds it, else the line: a container's
`reason: OOMKilled`, an event's `Message:`). A pod with several containers whose logs were asked
without naming one is asked again for the container that tells most (one that restarted or ended),
once its YAML is known. The report's words that name a tool (`(describe_pod)` in a cause, a scope or
an `unchecked` line) name the tool the surface offers (`(pods_get)`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_scripted_llm.playbook.kube_views import (
    Call,
    Known,
    Line,
    View,
    Yaml,
    call_signature,
    container_lines,
    event_listing,
    events_of,
    node_listing,
    pod_listing,
    statuses_of,
)
from k8s_agent_scripted_llm.script import Reply, Step, ToolCall, message_text, requested_call

Playbook = Callable[[dict[str, Any]], Step]

POD_LISTS = ("pods_list_in_namespace", "pods_list")
KUBE_TOOLS = frozenset({*POD_LISTS, "pods_get", "pods_log", "events_list", "resources_list", "resources_get"})
MOCK_NAMES = {
    "pods_list": "list_pods",
    "pods_list_in_namespace": "list_pods",
    "pods_get": "describe_pod",
    "pods_log": "get_pod_logs",
    "events_list": "get_events",
    "resources_list": "list_nodes",
    "resources_get": "describe_node",
}
MAX_ROUNDS_WITHOUT_A_CALL = 8
"""How often the playbook may ask only for results it already has before it must report."""
_NODE = {"apiVersion": "v1", "kind": "Node"}


def on_kube_surface(body: dict[str, Any]) -> bool:
    """Whether the request offers kubernetes-mcp-server's pod tools and not the mock cluster's."""
    offered = _offered(body)
    return (
        "list_pods" not in offered and bool(offered & set(POD_LISTS)) and {"pods_get", "pods_log"} <= offered
    )


def kube_surface(body: dict[str, Any], playbook: Playbook) -> Step:
    """The playbook's next move on the kube surface: kube calls, or its report with kube quotes."""
    chat = _KubeChat.parse(body)
    again = chat.container_logs()
    if again:
        return Reply(tool_calls=tuple(again))
    extra: list[Known] = []
    for _ in range(MAX_ROUNDS_WITHOUT_A_CALL):
        step = playbook(chat.mock_body(extra))
        if not isinstance(step, Reply) or not step.tool_calls:
            return chat.report(step)
        wanted, known = chat.translate(step.tool_calls)
        if wanted:
            return Reply(content=step.content, tool_calls=tuple(wanted))
        extra += known  # only results it has: show them as its own calls, and ask again
    return playbook(chat.mock_body(extra, tools=False))


@dataclass
class _KubeChat:
    body: dict[str, Any]
    calls: list[Call]
    offered: set[str]
    views: dict[str, View] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    """The ids of results shown again to the playbook (`again-N`), to the kube call they are of."""

    @classmethod
    def parse(cls, body: dict[str, Any]) -> _KubeChat:
        requested: dict[str, tuple[str, dict[str, Any], int]] = {}
        calls: list[Call] = []
        rounds = 0
        for message in body.get("messages") or []:
            if message.get("tool_calls"):
                rounds += 1
            for call in message.get("tool_calls") or []:
                requested[str(call.get("id"))] = (*requested_call(call), rounds)
            if message.get("role") == "tool" and str(message.get("tool_call_id")) in requested:
                call_id = str(message["tool_call_id"])
                tool, arguments, round_ = requested[call_id]
                calls.append(Call(call_id, tool, arguments, _text(message.get("content")), round_))
        chat = cls(body, calls, _offered(body))
        for call in calls:
            view = chat._view(call)
            if view is not None:
                chat.views[call.id] = view
        return chat

    # the playbook's side

    def mock_body(self, extra: Sequence[Known] = (), *, tools: bool = True) -> dict[str, Any]:
        """The request as the playbook knows it: its tools, its calls and views of their results."""
        messages: list[dict[str, Any]] = []
        pending: list[Call] = []
        for message in self.body.get("messages") or []:
            if message.get("role") == "tool":
                continue
            if message.get("tool_calls"):
                ids = {str(call.get("id")) for call in message["tool_calls"]}
                pending = [call for call in self.calls if call.id in ids]
                messages += self._round(pending, message.get("content"))
                continue
            messages.append(message)
        if extra:
            self.aliases = {f"again-{number}": known.call_id for number, known in enumerate(extra)}
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"again-{number}",
                            "type": "function",
                            "function": {"name": known.call.name, "arguments": known.call.arguments},
                        }
                        for number, known in enumerate(extra)
                    ],
                }
            )
            messages += [
                {"role": "tool", "tool_call_id": f"again-{number}", "content": known.content}
                for number, known in enumerate(extra)
            ]
        body = {key: value for key, value in self.body.items() if key not in ("messages", "tools")}
        body["messages"] = messages
        if tools and self.body.get("tools"):
            body["tools"] = [_tool(name) for name in sorted(self._mock_tools())]
        return body

    def _round(self, calls: Sequence[Call], content: Any) -> list[dict[str, Any]]:
        shown = [(call, self.views[call.id]) for call in calls if call.id in self.views]
        if not shown:
            return []
        return [
            {
                "role": "assistant",
                "content": content,
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": view.tool, "arguments": json.dumps(view.arguments)},
                    }
                    for call, view in shown
                ],
            },
            *[{"role": "tool", "tool_call_id": call.id, "content": view.content()} for call, view in shown],
        ]

    def _mock_tools(self) -> set[str]:
        names = {MOCK_NAMES[name] for name in self.offered if name in MOCK_NAMES}
        if "resources_get" not in self.offered:
            names.discard("describe_node")
        if {"resources_list", "resources_get"} <= self.offered:  # any kind, as the server shows it
            names |= {"resources_list", "resources_get"}
        names |= {name for name in self.offered if name.endswith("search_results")}
        return names

    # the playbook's calls, as kube calls

    def translate(self, calls: Sequence[ToolCall]) -> tuple[list[ToolCall], list[Known]]:
        """The kube calls the playbook's calls need that were not made yet; and, for those whose
        results are all known, the call with the view the playbook would get (the view of the kube
        call it needs first)."""
        made = {call.signature() for call in self.calls}
        wanted: list[ToolCall] = []
        known: list[Known] = []
        for call in calls:
            try:
                arguments = json.loads(call.arguments or "{}")
            except ValueError:
                arguments = {}
            needed = list(self._kube_calls(call.name, arguments))
            new = [(tool, args) for tool, args in needed if call_signature(tool, args) not in made]
            for tool, args in new:
                made.add(call_signature(tool, args))
                wanted.append(ToolCall(tool, json.dumps(args)))
            if not new and needed:
                found = self._made(*needed[0])
                if found is not None:
                    known.append(Known(call, self.views[found.id].content(), found.id))
        return wanted, known

    def _kube_calls(self, tool: str, arguments: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        name, namespace = arguments.get("name"), arguments.get("namespace")
        if tool == "list_pods":
            if namespace and "pods_list_in_namespace" in self.offered:
                yield "pods_list_in_namespace", {"namespace": namespace}
            else:
                yield "pods_list", {}
        elif tool == "describe_pod":
            yield "pods_get", {"name": name, "namespace": namespace}
            if "events_list" in self.offered:
                yield "events_list", {"namespace": namespace}
        elif tool == "get_pod_logs":
            args: dict[str, Any] = {"name": name, "namespace": namespace, "tail": arguments.get("tail", 50)}
            if arguments.get("previous"):
                args["previous"] = True
            container = arguments.get("container") or self._telling_container(
                str(name), str(namespace), bool(arguments.get("previous"))
            )
            if container:
                args["container"] = container
            yield "pods_log", args
        elif tool == "get_events":
            yield "events_list", {"namespace": namespace} if namespace else {}
        elif tool == "list_nodes":
            yield "resources_list", dict(_NODE)
        elif tool == "describe_node":
            yield "resources_get", {**_NODE, "name": name}
            if "events_list" in self.offered:
                yield "events_list", {}
        else:  # the harness's own tools (search_results): as they are
            yield tool, arguments

    def _made(self, tool: str, arguments: dict[str, Any]) -> Call | None:
        """The last call made to `tool` with these arguments whose result has a view."""
        wanted = call_signature(tool, arguments)
        return next(
            (call for call in reversed(self.calls) if call.signature() == wanted and call.id in self.views),
            None,
        )

    def container_logs(self) -> list[ToolCall]:
        """Logs asked without a container of a pod that has several (or an init container that
        failed): asked again for the container that tells most, once the pod's YAML is known."""
        made = {call.signature() for call in self.calls}
        again = []
        for call in self.calls:
            if call.tool != "pods_log" or call.arguments.get("container") or not call.failed:
                continue
            name, namespace = str(call.arguments.get("name")), str(call.arguments.get("namespace"))
            container = self._telling_container(name, namespace, bool(call.arguments.get("previous")))
            if container:
                args = {**call.arguments, "container": container}
                if call_signature("pods_log", args) not in made:
                    made.add(call_signature("pods_log", args))
                    again.append(ToolCall("pods_log", json.dumps(args)))
        return again

    def _telling_container(self, name: str, namespace: str, previous: bool) -> str | None:
        """Of a pod whose YAML is known and that has more than one container (init containers
        included): the one that tells most, the first that restarted or ended badly, else the first
        not ready that ran, else the first. None for a pod of one container or not read yet."""
        pod = self._pod_yaml(name, namespace)
        if pod is None:
            return None
        statuses = statuses_of(pod.data)
        if len(statuses) < 2:
            return None

        def crashed(status: dict[str, Any]) -> bool:
            ended = ((status.get("state") or {}).get("terminated") or {}).get("exitCode")
            return bool(status.get("restartCount")) or ended not in (None, 0)

        ran = [s for s in statuses if "running" in (s.get("state") or {}) or s.get("restartCount")]
        chosen = next((s for s in statuses if crashed(s)), None)
        if chosen is None and not previous:
            chosen = next((s for s in ran if not s.get("ready")), ran[0] if ran else None)
        return str(chosen["name"]) if chosen else None

    def _pod_yaml(self, name: str, namespace: str) -> Yaml | None:
        for call in reversed(self.calls):
            if (
                call.tool == "pods_get"
                and call.arguments.get("name") == name
                and call.arguments.get("namespace") in (namespace, None)
                and not call.failed
            ):
                return Yaml.parse(call.content)
        return None

    # the views

    def _view(self, call: Call) -> View | None:
        generic = self._any_kind(call)
        if generic is not None:
            return generic
        tool = MOCK_NAMES.get(call.tool)
        if tool is None:
            if call.tool.endswith("search_results"):
                return View(call.tool, call.arguments, text=call.content)
            return None
        arguments = _mock_arguments(call)
        if call.failed:
            return View(tool, arguments, text=call.content)
        if call.tool in POD_LISTS:
            return pod_listing(call, arguments)
        if call.tool == "pods_get":
            return self._describe_pod(call, arguments)
        if call.tool == "pods_log":
            asked = call.arguments.get("container")
            if asked and asked != self._telling_container(
                str(call.arguments.get("name")),
                str(call.arguments.get("namespace")),
                bool(call.arguments.get("previous")),
            ):
                arguments["container"] = asked  # a container the playbook named, not the one chosen for it
            return View(tool, arguments, text="(no log lines)" if _no_log(call.content) else call.content)
        if call.tool == "events_list":
            return event_listing(call, arguments)
        if call.tool == "resources_list" and call.arguments.get("kind") == "Node":
            return node_listing(call, arguments)
        if call.tool == "resources_get" and call.arguments.get("kind") == "Node":
            return self._describe_node(call, arguments)
        return None

    def _any_kind(self, call: Call) -> View | None:
        """A listing or an object of another kind than a Node: the playbook's own generic tools
        (objects.py) read the server's table and YAML as they are."""
        if call.tool in ("resources_list", "resources_get") and call.arguments.get("kind") != "Node":
            return View(call.tool, dict(call.arguments), text=call.content)
        return None

    def _events(self, namespace: str | None, kind: str, name: str) -> list[Line]:
        """The events about `kind/name`, from the latest events_list that covers the namespace."""
        for call in reversed(self.calls):
            if call.tool != "events_list" or call.failed:
                continue
            if call.arguments.get("namespace") not in (None, "", namespace):
                continue
            return [
                line
                for event, line in events_of(call)
                if event.get("kind") == kind
                and event.get("name") == name
                and (namespace is None or event.get("namespace") in (namespace, None))
            ]
        return []

    def _describe_pod(self, call: Call, arguments: dict[str, Any]) -> View:
        pod = Yaml.parse(call.content)
        view = View("describe_pod", arguments)
        data = pod.data if isinstance(pod.data, dict) else {}
        metadata, spec, status = (data.get(key) or {} for key in ("metadata", "spec", "status"))

        def add(text: str, *path: Any) -> None:
            original = pod.span([path]) if path else ""
            view.lines.append(Line(text, original or text, call.id, call.tool))

        add(f"Name:         {metadata.get('name', '')}", "metadata", "name")
        add(f"Namespace:    {metadata.get('namespace', '')}", "metadata", "namespace")
        add(f"Node:         {spec.get('nodeName') or '<none>'}", "spec", "nodeName")
        add(f"Status:       {status.get('phase', '')}", "status", "phase")
        if status.get("reason"):
            add(f"Reason:       {status['reason']}", "status", "reason")
        if status.get("message"):
            add(f"Message:      {status['message']}", "status", "message")
        add(f"IP:           {status.get('podIP') or '<none>'}", "status", "podIP")
        labels = metadata.get("labels") or {}
        add("Labels:       " + ("\n              ".join(f"{k}={v}" for k, v in labels.items()) or "<none>"))
        for title, specs_key, statuses_key in (
            ("Init Containers:", "initContainers", "initContainerStatuses"),
            ("Containers:", "containers", "containerStatuses"),
        ):
            specs = spec.get(specs_key) or []
            if not specs:
                continue
            add(title)
            by_name = {s.get("name"): (i, s) for i, s in enumerate(status.get(statuses_key) or [])}
            for container in specs:
                index, state = by_name.get(container.get("name"), (None, {}))
                where = ("status", statuses_key, index) if index is not None else None
                for text, path in container_lines(container, state, where):
                    add(text, *path)
        conditions = status.get("conditions") or []
        if conditions:
            add("Conditions:")
            add("  Type              Status")
            for number, condition in enumerate(conditions):
                add(
                    f"  {condition.get('type', ''):<17} {condition.get('status', '')}",
                    "status",
                    "conditions",
                    number,
                    "type",
                )
        add("Events:")
        events = self._events(metadata.get("namespace"), "Pod", str(metadata.get("name", "")))
        if events:
            add("  Type     Reason   Age   From   Message")
            view.lines += events
        else:
            add("  <none>")
        return view

    def _describe_node(self, call: Call, arguments: dict[str, Any]) -> View:
        node = Yaml.parse(call.content)
        view = View("describe_node", arguments)
        data = node.data if isinstance(node.data, dict) else {}
        metadata, status = data.get("metadata") or {}, data.get("status") or {}

        def add(text: str, paths: Sequence[Sequence[Any]] = ()) -> None:
            original = node.span(paths) if paths else ""
            view.lines.append(Line(text, original or text, call.id, call.tool))

        labels = metadata.get("labels") or {}
        roles = sorted(k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/"))
        add(f"Name:         {metadata.get('name', '')}", [("metadata", "name")])
        add(f"Roles:        {','.join(roles) or '<none>'}")
        add("Conditions:")
        for number, condition in enumerate(status.get("conditions") or []):
            keys = [("status", "conditions", number, key) for key in ("message", "reason", "status", "type")]
            add(f"  {condition.get('type', ''):<17} {condition.get('status', '')}", keys)
        for title, key in (("Capacity:", "capacity"), ("Allocatable:", "allocatable")):
            values = status.get(key) or {}
            add(f"{title:<14}" + ", ".join(f"{k}={v}" for k, v in values.items()))
        add("Events:")
        events = self._events(None, "Node", str(metadata.get("name", "")))
        view.lines += [
            Line(f"  {_cells(line.text)}", line.original, line.call_id, line.tool, line.message)
            for line in events
        ] or [Line("  <none>", "  <none>", call.id, call.tool)]
        return view

    # the report

    def report(self, step: Step) -> Step:
        """The playbook's report, its quotes mapped to the kube results they come from."""
        if not isinstance(step, Reply) or not step.content:
            return step
        content = step.content
        fenced = content.startswith("```json\n") and content.endswith("\n```")
        raw = content[len("```json\n") : -len("\n```")] if fenced else content
        try:
            report = json.loads(raw)
        except ValueError:
            return Reply(content=_prose(content))  # prose: the tools' names are all it changes
        if not isinstance(report, dict):
            return step
        for finding in report.get("findings") or []:
            finding["evidence"] = [
                self._quote(q) for q in finding.get("evidence") or [] if isinstance(q, dict)
            ]
            for key in ("explanation", "fix"):
                if isinstance(finding.get(key), str):
                    finding[key] = _prose(finding[key])
        if isinstance(report.get("scope"), str):
            report["scope"] = _prose(report["scope"])
        report["unchecked"] = [
            _prose(line) if isinstance(line, str) else line for line in report.get("unchecked") or []
        ]
        text = json.dumps(report, ensure_ascii=False, indent=1)
        return Reply(content=f"```json\n{text}\n```" if fenced else text)

    def _quote(self, quote: dict[str, Any]) -> dict[str, Any]:
        if str(quote.get("call_id")) in self.aliases:
            quote = {**quote, "call_id": self.aliases[str(quote.get("call_id"))]}
        view = self.views.get(str(quote.get("call_id")))
        text = str(quote.get("text") or "")
        if view is None:
            return quote
        if view.text is not None:  # logs and failures: the result itself
            call = next(c for c in self.calls if c.id == quote.get("call_id"))
            return {**quote, "tool": call.tool}
        line = _line_of(view, text)
        if line is None:
            return quote
        wanted = _norm(text)
        if wanted in _norm(line.original):
            said = text
        elif line.message and _norm(line.message) in _norm(line.original) and _norm(line.message) in wanted:
            said = line.message
        else:
            said = " ".join(line.original.split())
        return {"text": said, "call_id": line.call_id, "tool": line.tool}


# -- small helpers ---------------------------------------------------------------------------------


def _line_of(view: View, quote: str) -> Line | None:
    """The view's line a quote is from: one that holds it, else (a quote of several lines) the last
    line it holds."""
    wanted = _norm(quote)
    holding = next((line for line in view.lines if wanted and wanted in _norm(line.text)), None)
    if holding is not None:
        return holding
    held = [line for line in view.lines if _norm(line.text) and _norm(line.text) in wanted]
    return held[-1] if held else None


def _cells(event_line: str) -> str:
    """describe_pod's event line (Type, Reason, Age, From, Message) as describe_node's (Type, Reason, Message)."""
    cells = re.split(r"\s{2,}", event_line.strip(), maxsplit=4)
    return "  ".join([cells[0], cells[1], cells[-1]]) if len(cells) == 5 else event_line.strip()


_NOT_LOGGED = re.compile(r"^The pod \S+ in namespace \S+ has not logged any message yet$")
"""kubernetes-mcp-server's answer for a container that wrote no line."""


def _no_log(content: str) -> bool:
    """Whether a pods_log result holds no line of the container's: empty, or the server saying so."""
    return not content.strip() or _NOT_LOGGED.match(content.strip()) is not None


def _mock_arguments(call: Call) -> dict[str, Any]:
    arguments = call.arguments
    if call.tool == "pods_list_in_namespace":
        return {"namespace": arguments.get("namespace")}
    if call.tool == "pods_list":
        return {}
    if call.tool == "pods_get":
        return {"name": arguments.get("name"), "namespace": arguments.get("namespace")}
    if call.tool == "pods_log":
        out = {
            "name": arguments.get("name"),
            "namespace": arguments.get("namespace"),
            "tail": arguments.get("tail", 50),
        }
        if arguments.get("previous"):
            out["previous"] = True
        return out
    if call.tool == "events_list":
        return (
            {"namespace": arguments["namespace"], "type": "Warning"}
            if arguments.get("namespace")
            else {"type": "Warning"}
        )
    if call.tool == "resources_get":
        return {"name": arguments.get("name")}
    return {}


def _tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def _offered(body: dict[str, Any]) -> set[str]:
    return {
        str((t.get("function") or {}).get("name")) for t in body.get("tools") or [] if isinstance(t, dict)
    }


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _prose(report: str) -> str:
    for mock, kube in (
        ("(describe_pod)", "(pods_get)"),
        ("(get_pod_logs)", "(pods_log)"),
        ("(list_pods)", "(pods_list)"),
        ("(get_events)", "(events_list)"),
        ("(describe_node)", "(resources_get)"),
        ("(list_nodes)", "(resources_list)"),
    ):
        report = report.replace(mock, kube)
    return report


_text = message_text
