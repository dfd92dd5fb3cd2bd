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
from datetime import UTC, datetime
from typing import Any

import yaml

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
_FAILED = "Tool call failed"


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


# -- reading the conversation ----------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One call the conversation made to a kube tool, with its result."""

    id: str
    tool: str
    arguments: dict[str, Any]
    content: str
    round: int

    @property
    def failed(self) -> bool:
        return self.content.startswith((_FAILED, "[Duplicate call]"))

    def signature(self) -> str:
        return _signature(self.tool, self.arguments)


@dataclass(frozen=True)
class Known:
    """A call of the playbook whose result the conversation already has: shown to it again."""

    call: ToolCall
    content: str
    call_id: str
    """The kube call whose result it is (the quotes of it are that call's)."""


@dataclass(frozen=True)
class Line:
    """A line of a view: its text as the playbook reads it, and where it came from."""

    text: str
    original: str
    """Text the result of `call_id` holds (whitespace aside)."""
    call_id: str
    tool: str
    message: str = ""
    """An event's message, decoded from the YAML: quoted alone when the result holds it as is."""


@dataclass
class View:
    """A kube result (or several) as one result of the playbook's tool."""

    tool: str
    arguments: dict[str, Any]
    lines: list[Line] = field(default_factory=list)
    text: str | None = None
    """The view's text when it is not its lines' (a failure, a log)."""

    def content(self) -> str:
        return self.text if self.text is not None else "\n".join(line.text for line in self.lines)


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
            new = [(tool, args) for tool, args in needed if _signature(tool, args) not in made]
            for tool, args in new:
                made.add(_signature(tool, args))
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
        wanted = _signature(tool, arguments)
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
                if _signature("pods_log", args) not in made:
                    made.add(_signature("pods_log", args))
                    again.append(ToolCall("pods_log", json.dumps(args)))
        return again

    def _telling_container(self, name: str, namespace: str, previous: bool) -> str | None:
        """Of a pod whose YAML is known and that has more than one container (init containers
        included): the one that tells most, the first that restarted or ended badly, else the first
        not ready that ran, else the first. None for a pod of one container or not read yet."""
        pod = self._pod_yaml(name, namespace)
        if pod is None:
            return None
        statuses = _statuses(pod.data)
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

    def _pod_yaml(self, name: str, namespace: str) -> _Yaml | None:
        for call in reversed(self.calls):
            if (
                call.tool == "pods_get"
                and call.arguments.get("name") == name
                and call.arguments.get("namespace") in (namespace, None)
                and not call.failed
            ):
                return _Yaml.parse(call.content)
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
            return _pod_listing(call, arguments)
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
            return _event_listing(call, arguments)
        if call.tool == "resources_list" and call.arguments.get("kind") == "Node":
            return _node_listing(call, arguments)
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
                for event, line in _events_of(call)
                if event.get("kind") == kind
                and event.get("name") == name
                and (namespace is None or event.get("namespace") in (namespace, None))
            ]
        return []

    def _describe_pod(self, call: Call, arguments: dict[str, Any]) -> View:
        pod = _Yaml.parse(call.content)
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
                for text, path in _container_lines(container, state, where):
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
        node = _Yaml.parse(call.content)
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


# -- views of single results -----------------------------------------------------------------------


def _pod_listing(call: Call, arguments: dict[str, Any]) -> View:
    view = View("list_pods", arguments)
    rows = _table(call.content)
    if not rows:
        where = f"namespace {arguments['namespace']}" if arguments.get("namespace") else "any namespace"
        view.text = f"No pods found in {where}."
        return view
    header = "NAMESPACE   NAME   READY   STATUS   RESTARTS   AGE   NODE"
    view.lines.append(Line(header, call.content.splitlines()[0], call.id, call.tool))
    for row, original in rows:
        cells = [row.get(key) or "-" for key in ("NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE")]
        cells.append(row.get("NODE") or "<none>")
        view.lines.append(Line("   ".join(cells), original, call.id, call.tool))
    return view


def _node_listing(call: Call, arguments: dict[str, Any]) -> View:
    view = View("list_nodes", arguments)
    rows = _table(call.content)
    view.lines.append(
        Line(
            "NAME   STATUS   ROLES   AGE   VERSION",
            call.content.splitlines()[0] if rows else "",
            call.id,
            call.tool,
        )
    )
    for row, original in rows:
        cells = [row.get(key) or "-" for key in ("NAME", "STATUS", "ROLES", "AGE", "VERSION")]
        view.lines.append(Line("   ".join(cells), original, call.id, call.tool))
    return view


def _event_listing(call: Call, arguments: dict[str, Any]) -> View:
    view = View("get_events", arguments)
    view.lines.append(
        Line("NAMESPACE   LAST SEEN   TYPE   REASON   OBJECT   MESSAGE", "", call.id, call.tool)
    )
    for event, line in _events_of(call):
        if arguments.get("type") and event.get("type") != arguments["type"]:
            continue
        cells = [event.get("namespace") or "-", "-", event.get("type") or "-", event.get("reason") or "-"]
        cells += [f"{str(event.get('kind', '')).lower()}/{event.get('name', '')}", line.message]
        view.lines.append(Line("   ".join(cells), line.original, line.call_id, line.tool, line.message))
    if len(view.lines) == 1:
        view.text = "No events found."
    return view


def _events_of(call: Call) -> list[tuple[dict[str, Any], Line]]:
    """Each event of an events_list result, and its line in describe_pod's form."""
    document = _Yaml.parse(call.content)
    items = document.data if isinstance(document.data, list) else []
    times = [_when(item) for item in items if isinstance(item, dict)]
    latest = max((time for time in times if time is not None), default=None)
    found = []
    for number, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        when = _when(item)
        # The Go server gives each event its time, not its age: the age in describe's column is
        # counted back from the latest event of the result, which keeps their order.
        age = f"{int((latest - when).total_seconds())}s" if latest and when else "-"
        involved = item.get("InvolvedObject") or {}
        message = str(item.get("Message") or "")
        event = {
            "kind": involved.get("Kind"),
            "name": involved.get("Name"),
            "namespace": item.get("Namespace"),
            "type": item.get("Type"),
            "reason": item.get("Reason"),
        }
        text = "  " + "   ".join(
            [str(item.get("Type") or "-"), str(item.get("Reason") or "-"), age, "-", message]
        )
        original = document.span([(number, "Message")]) or message
        found.append((event, Line(text, original, call.id, call.tool, message)))
    return found


def _when(event: dict[str, Any]) -> datetime | None:
    """When an event of an events_list result was last seen (its Timestamp), or None."""
    stamp = event.get("LastTimestamp") or event.get("Timestamp")
    if isinstance(stamp, datetime):
        return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
    try:
        return datetime.strptime(str(stamp), "%Y-%m-%d %H:%M:%S %z %Z")
    except ValueError:
        return None


def _container_lines(
    container: dict[str, Any], status: dict[str, Any], where: tuple[Any, ...] | None
) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """describe_pod's lines of one container, each with the YAML path of the field it shows."""

    def at(*path: Any) -> tuple[Any, ...]:
        return (*where, *path) if where is not None else ()

    yield f"  {container.get('name', '')}:", at("name")
    yield f"    Image:          {container.get('image', '')}", at("image")
    for label, key in (("State", "state"), ("Last State", "lastState")):
        state = status.get(key) or {}
        if not state:
            continue
        kind, detail = next(iter(state.items()))
        detail = detail or {}
        reason_path = at(key, kind, "reason") if "reason" in detail else at(key)
        yield f"    {label + ':':<16}{str(kind).capitalize()}", reason_path
        for field_key, title in (
            ("reason", "Reason"),
            ("message", "Message"),
            ("exitCode", "Exit Code"),
            ("startedAt", "Started"),
            ("finishedAt", "Finished"),
        ):
            if field_key in detail:
                yield f"      {title + ':':<14}{detail[field_key]}", at(key, kind, field_key)
    yield f"    Ready:          {'True' if status.get('ready') else 'False'}", at("ready")
    yield f"    Restart Count:  {status.get('restartCount', 0)}", at("restartCount")
    resources = container.get("resources") or {}
    for label, key in (("Limits", "limits"), ("Requests", "requests")):
        if resources.get(key):
            values = ", ".join(f"{k}={v}" for k, v in resources[key].items())
            yield f"    {label + ':':<16}{values}", ()
    for label, key in (
        ("Liveness", "livenessProbe"),
        ("Readiness", "readinessProbe"),
        ("Startup", "startupProbe"),
    ):
        if container.get(key):
            yield f"    {label + ':':<16}{_probe_text(container[key])}", ()
    ports = [f"{p.get('containerPort')}/{p.get('protocol', 'TCP')}" for p in container.get("ports") or []]
    if ports:
        yield f"    Ports:          {', '.join(ports)}", ()
    env = container.get("env") or []
    yield "    Environment:" + ("" if env else "    <none>"), ()
    for variable in env:
        source = variable.get("valueFrom") or {}
        reference = source.get("secretKeyRef") or source.get("configMapKeyRef")
        if reference:
            what = "secret" if "secretKeyRef" in source else "config map"
            value = f"<set to the key '{reference.get('key')}' in {what} '{reference.get('name')}'>"
        else:
            value = str(variable.get("value", ""))
        yield f"      {variable.get('name')}:  {value}", ()


def _probe_text(probe: dict[str, Any]) -> str:
    """A probe as `kubectl describe` writes it."""
    if probe.get("httpGet"):
        get = probe["httpGet"]
        what = f"http-get {str(get.get('scheme', 'HTTP')).lower()}://:{get.get('port')}{get.get('path', '/')}"
    elif probe.get("tcpSocket"):
        what = f"tcp-socket :{probe['tcpSocket'].get('port')}"
    elif probe.get("exec"):
        what = f"exec [{' '.join(map(str, probe['exec'].get('command') or []))}]"
    else:
        what = "unknown"
    timing = (
        f"delay={probe.get('initialDelaySeconds', 0)}s timeout={probe.get('timeoutSeconds', 1)}s "
        f"period={probe.get('periodSeconds', 10)}s #success={probe.get('successThreshold', 1)} "
        f"#failure={probe.get('failureThreshold', 3)}"
    )
    return f"{what} {timing}"


# -- tables and YAML -------------------------------------------------------------------------------


def _table(text: str) -> list[tuple[dict[str, str], str]]:
    """The rows of a table the Go server printed (columns aligned, names of several words), each
    with its line: cells are cut at the header's column starts."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or not re.match(r"^[A-Z]", lines[0]):
        return []
    header = lines[0]
    starts = [match.start() for match in re.finditer(r"(?:^|(?<=\s{2}))\S", header)]
    names = [header[start:end].strip() for start, end in zip(starts, [*starts[1:], None], strict=True)]
    rows = []
    for line in lines[1:]:
        cells = [line[start:end].strip() for start, end in zip(starts, [*starts[1:], None], strict=True)]
        rows.append((dict(zip(names, cells, strict=True)), line))
    return rows


@dataclass(frozen=True)
class _Yaml:
    """A YAML result, its data and where each value is in its text."""

    text: str
    data: Any
    node: Any

    @classmethod
    def parse(cls, text: str) -> _Yaml:
        try:
            return cls(text, yaml.safe_load(text), yaml.compose(text))
        except yaml.YAMLError:
            return cls(text, None, None)

    def span(self, paths: Sequence[Sequence[Any]]) -> str:
        """The text of the lines that hold these fields (each a path of keys and indexes), from the
        first key to the last value; "" when one is not there."""
        lines = self.text.splitlines()
        first, last = len(lines), -1
        for path in paths:
            found = _yaml_node(self.node, path)
            if found is None:
                return ""
            key, value = found
            first = min(first, key.start_mark.line)
            end = value.end_mark.line if value.end_mark.column == 0 else value.end_mark.line + 1
            last = max(last, end - 1, key.start_mark.line)
        return "\n".join(lines[first : last + 1]).strip() if last >= first else ""


def _yaml_node(node: Any, path: Sequence[Any]) -> tuple[Any, Any] | None:
    """(key node, value node) at `path` in a composed YAML tree (for a sequence item, the item twice)."""
    key = node
    for step in path:
        if isinstance(node, yaml.MappingNode):
            pair = next((pair for pair in node.value if pair[0].value == step), None)
            if pair is None:
                return None
            key, node = pair
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
            key = node = node.value[step]
        else:
            return None
    return (key, node) if node is not None else None


def _statuses(pod: Any) -> list[dict[str, Any]]:
    status = (pod or {}).get("status") or {} if isinstance(pod, dict) else {}
    return [
        s
        for s in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or [])
        if isinstance(s, dict)
    ]


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


def _signature(tool: str, arguments: dict[str, Any]) -> str:
    return f"{tool}:{json.dumps(arguments, sort_keys=True)}"


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
