"""The calls of each round: the describes, logs and events an investigation needs, capped to what
the harness runs in one turn, and the searches that read a listing too large to see whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from k8s_agent_scripted_llm.playbook.conversation import Conversation, logs_of, readable
from k8s_agent_scripted_llm.playbook.init_containers import init_log_reads
from k8s_agent_scripted_llm.playbook.pods import FAILED_AND_STOPPED
from k8s_agent_scripted_llm.playbook.questions import asks_about_restarts, question_namespace
from k8s_agent_scripted_llm.playbook.report import nothing_to_diagnose, pods_scope, report_header
from k8s_agent_scripted_llm.playbook.tables import Container, Pod, containers_of, parse_pod_table
from k8s_agent_scripted_llm.script import Reply, Step, ToolCall

MAX_CALLS_PER_ROUND = 24
"""The harness runs at most this many calls of one turn by default: a round stays within it."""

_EXCERPT = re.compile(r"^\[Result (r\d+) of ")

_SEARCH_LINE = re.compile(r"^r\d+:\d+: ")

_POD_COUNT = re.compile(r"^([\d,]+) pods? in (?:namespace \S+|\d+ namespaces)\.$", re.M)

_HEALTHY_ROW = r"\s(?:Running|Completed|Succeeded)\s"

_NOT_READY_ROW = r"\s(\d+)/(?!\1\s)\d+\s+Running\s"

_RESTARTED_ROW = r"\s\d+/\d+\s+\S+\s+[1-9]\d*\s"


def list_pods_call(chat: Conversation) -> ToolCall:
    namespace = question_namespace(chat.question)
    return ToolCall("list_pods", json.dumps({"namespace": namespace} if namespace else {}))


def investigation_calls(chat: Conversation, chosen: Sequence[Pod]) -> list[ToolCall]:
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
        stopped = [pod.namespace for pod in chosen if pod.status in FAILED_AND_STOPPED and pod.namespace]
        for namespace in dict.fromkeys(stopped):
            calls.append(ToolCall("get_events", json.dumps({"namespace": namespace, "type": "Warning"})))
    return calls


def container_reads(containers: Sequence[Container]) -> list[tuple[str, bool]]:
    """Rule: a pod of several containers is read container by container, by name, once describe_pod
    shows them: every init container that ran, in order (init_log_reads), and each app container in
    trouble (restarted, killed, or running and not ready): its current log, and its previous
    instance's when it restarted. (container, previous) of each read."""
    if len(containers) < 2:
        return []
    reads = init_log_reads(containers)
    for container in containers:
        if container.init or not (container.restarted or container.oom_killed or not container.ready):
            continue
        if container.ran:
            reads.append((container.name, False))
        if container.restarted:
            reads.append((container.name, True))
    return reads


def silent_crash_read(chat: Conversation, pod: Pod, containers: Sequence[Container]) -> bool:
    """Rule: a pod of one container that restarted, whose current log (the pod's default read) has
    no line, has its previous instance read: a crash-looping container's current instance has not
    written yet (or is waiting to start again), the words of its crash are in the one before."""
    if len(containers) != 1 or not containers[0].restarted:
        return False
    current, current_id = logs_of(chat, pod.name)
    return current_id is not None and not readable(current) and logs_of(chat, pod.name, True)[1] is None


def container_calls(chat: Conversation, pods: Sequence[Pod]) -> list[ToolCall]:
    """The container reads (container_reads) of the described pods not made yet, and the previous
    instance of a pod whose current log is silent (silent_crash_read)."""
    if "get_pod_logs" not in chat.offered:
        return []
    calls = []
    for pod in pods:
        description = chat.latest("describe_pod", pod.name) or ""
        if description.startswith("Tool call failed"):
            continue
        containers = containers_of(description)
        if silent_crash_read(chat, pod, containers):
            where = {"name": pod.name, "namespace": pod.namespace, "tail": 20, "previous": True}
            calls.append(ToolCall("get_pod_logs", json.dumps(where)))
        for container, previous in container_reads(containers):
            if logs_of(chat, pod.name, previous, container=container)[1] is not None:
                continue
            arguments: dict[str, Any] = {"name": pod.name, "namespace": pod.namespace, "tail": 20}
            arguments["container"] = container
            if previous:
                arguments["previous"] = True
            calls.append(ToolCall("get_pod_logs", json.dumps(arguments)))
    return calls


def capped(calls: list[ToolCall]) -> tuple[ToolCall, ...]:
    """The calls of one round, at most MAX_CALLS_PER_ROUND: when there are more, the describes go
    first, then the events, and the logs that do not fit are left out."""
    if len(calls) <= MAX_CALLS_PER_ROUND:
        return tuple(calls)
    order = {"describe_node": 0, "describe_pod": 1, "get_events": 2}
    return tuple(sorted(calls, key=lambda call: order.get(call.name, 3))[:MAX_CALLS_PER_ROUND])


def excerpt_handle(text: str) -> str | None:
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


def search_excerpt(chat: Conversation, listing: str, may_call: bool) -> Step:
    """Ask the search tool for the rows of a listing too large to see whole that it judges."""
    handle = excerpt_handle(listing) or ""
    tool = _search_tool(chat)
    if tool is None or not may_call:
        said = f"The pod listing was too large to read whole ({listing.splitlines()[0]}) and it could not be searched."
        return nothing_to_diagnose(chat, report_header(chat) + "\n", said, pods_scope(chat))
    searches = _excerpt_searches(chat, handle)
    return Reply(tool_calls=tuple(ToolCall(tool, json.dumps(arguments)) for arguments in searches))


def listing_view(chat: Conversation, listing: str) -> tuple[list[Pod], int] | None:
    """The pods to judge and how many the listing holds in all; None while an excerpt is unsearched.

    A listing seen whole is parsed whole. Of an excerpt, the pods are its header's and shown rows'
    plus the rows the searches found (see _excerpt_searches), and the total is the listing's own
    closing count ("5000 pods in namespace x.") or its line count.
    """
    handle = excerpt_handle(listing)
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
