"""Three models that are not LLMs, the floor every eval is read against.

- `baseline:parrot` calls no tool. It guesses from the question alone: a word of it that looks
  like a resource name (`checkout-api`, `ledger-7c9d-x2w`) is reported unhealthy, with a cause from
  the question's keywords ("crash", "memory", "image", "pending", ...); without one it answers
  "all healthy". Its evidence is the question itself.
- `baseline:status` makes one listing (the pods of the namespace the question names, else of all;
  the nodes for a question about nodes) and reports every row whose STATUS or READY column is not
  healthy, with a cause read off the STATUS column alone and the row as its evidence.
- `baseline:rules` reads events (`baseline_rules`): it lists the pods in scope, describes each
  unhealthy one, reads its Warning events and a crashing one's logs, and quotes the first line that
  tells a cause (OOMKilled, a Warning, an error line of the logs, the STATUS), its cause by keywords.

A real model that does not beat them on the eval has learnt nothing a listing, or a reading of the
events, does not say. They play on the mock cluster's tools and on kubernetes-mcp-server's
(`baseline_surfaces`), read a Chat Completions or a Responses request, answer in the report format it
asks for (the JSON schema, JSON text, or prose) and ignore `tool_choice`: they do what they do
whatever the harness asks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from k8s_agent_scripted_llm.baseline_causes import of_status
from k8s_agent_scripted_llm.baseline_rules import RULES, rules
from k8s_agent_scripted_llm.baseline_surfaces import HEALTHY_STATUSES, nodes, pods, surface_for
from k8s_agent_scripted_llm.baseline_wire import Conversation, report
from k8s_agent_scripted_llm.responses_api import chat_request
from k8s_agent_scripted_llm.script import Step

PARROT = "baseline:parrot"
STATUS = "baseline:status"
HEALTHY = HEALTHY_STATUSES | {"Ready"}
_NAME = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")
_NODES = re.compile(r"\bnodes?\b", re.I)
# The cause a word of the question suggests, in this order (the STATUS column's: baseline_causes.of_status).
_QUESTION_CAUSES = (
    (re.compile(r"(?i)memory|\boom"), "oom_killed"),
    (re.compile(r"(?i)image|pull|registry"), "image_pull_failed"),
    (re.compile(r"(?i)pending|schedul|stuck"), "insufficient_resources"),
    (re.compile(r"(?i)secret|config"), "missing_config_reference"),
    (re.compile(r"(?i)ready|probe"), "readiness_probe_failure"),
    (re.compile(r"(?i)\bnode"), "node_not_ready"),
    (re.compile(r"(?i)crash|restart|down|broken|fail|error|wrong|issue|problem"), "crash_application"),
)


def parrot(body: dict[str, Any]) -> Step:
    """Answer from the question's words alone, with no tool call."""
    talk = Conversation(chat_request(body))
    question, namespace = talk.question, talk.namespace
    cause = next((cause for pattern, cause in _QUESTION_CAUSES if pattern.search(question)), None)
    names = [name for name in dict.fromkeys(_NAME.findall(question)) if name != namespace]
    findings = [
        {
            "kind": "node" if cause == "node_not_ready" else "pod",
            "name": name,
            "namespace": None if cause == "node_not_ready" else namespace,
            "status": "unhealthy",
            "cause": cause,
            "explanation": "The question says so.",
            "evidence": [{"text": question[:1000]}],
            "fix": "Look at it.",
        }
        for name in names
        if cause
    ]
    scope = f"pods in namespace {namespace}" if namespace else "the question"
    return report(talk, scope, findings, [])


def status(body: dict[str, Any]) -> Step:
    """One listing, then every row whose STATUS or READY is not healthy, its cause from STATUS alone."""
    talk = Conversation(chat_request(body))
    surface = surface_for(talk.tools | {read.call.tool for read in talk.reads})
    about_nodes = bool(_NODES.search(talk.question)) and not re.search(r"(?i)\bpods?\b", talk.question)
    namespace = None if about_nodes else talk.namespace
    if surface is None:
        return report(talk, "nothing listed", [], [])
    call = surface.list_nodes() if about_nodes else surface.list_pods(namespace)
    listing = talk.read(call)
    if listing is None:
        if not talk.tools:
            return report(talk, "nothing listed", [], [])
        return talk.ask([call])
    listed = (
        [(node.name, None, node.status, "", node.line) for node in nodes(listing.text)]
        if about_nodes
        else [(pod.name, pod.namespace, pod.status, pod.ready, pod.line) for pod in pods(listing.text)]
    )
    findings, healthy = [], []
    for name, pod_namespace, state, ready, row in listed:
        counts = ready.split("/") if "/" in ready else []
        not_ready = len(counts) == 2 and counts[0] != counts[1] and state != "Completed"
        if state in HEALTHY and not not_ready:
            healthy.append(name)
            continue
        cause = of_status(state)
        findings.append(
            {
                "kind": "node" if about_nodes else "pod",
                "name": name,
                "namespace": pod_namespace or namespace,
                "status": f"{state}, READY {ready}" if ready else state,
                "cause": cause,
                "explanation": f"The listing shows it {state}.",
                "evidence": [{"text": row, "call_id": listing.call_id, "tool": call.tool}],
                "fix": "Look at its events and logs.",
            }
        )
    scope = (
        "nodes"
        if about_nodes
        else (f"pods in namespace {namespace}" if namespace else "pods in all namespaces")
    )
    return report(talk, scope, findings[:30], healthy)


RESPONDERS: dict[str, Callable[[dict[str, Any]], Step]] = {PARROT: parrot, STATUS: status, RULES: rules}
