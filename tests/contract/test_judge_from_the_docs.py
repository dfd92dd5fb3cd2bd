"""The contract judge, tested from docs/contract.md alone.

Written from the page (the rule table "Each item's rule, clause by clause, as the judge applies it",
"No wording assumed", "Decided, and so applied" and the Responses-wire section), the `Observed`
record and the judge's public signatures, without reading the rules' bodies or the judge's other
tests. Each clause row of the table gets at least one hand-made observation on which the documented
rule says the item fails, and at least one close legitimate variation on which it holds: request
bodies in Chat Completions form (a few on the Responses wire), the scripted model's replies, the
mock cluster's call and result logs and the subject's answer, worded as another agent would.

A case where the judge's verdict disagrees with the page is kept as the page says it and marked
`xfail(strict=True)` with the disagreement as its reason. Every failing verdict is also held to the
page's "every violation is reported ... each with its evidence (request number and excerpt ...)":
each violation says what happened and shows evidence, and every request it cites is one of the run.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from k8s_agent import scenarios as sc
from k8s_agent.contract.judge import (
    FAILS,
    HOLDS,
    UNOBSERVABLE,
    Judgement,
    Observed,
    c1,
    c2,
    c3,
    c4,
    c5,
    c6,
    c7,
    c8,
    c9,
    c10,
    c11,
    c12,
    c13,
    c14,
    judge_all,
)
from k8s_agent_mock_cluster.writes import WRITE_TOOLS

PAYMENT, ANALYTICS, INVENTED = sc.PAYMENT, sc.ANALYTICS, sc.INVENTED
FABRICATED, LOG_LINE, REPORT, QUESTION = sc.FABRICATED, sc.LOG_LINE, sc.REPORT, sc.QUESTION
BEARER, PASSWORD, ENV_TOKEN = sc.SECRETS.values()
NS = {"namespace": "production"}
POD = {"name": PAYMENT, "namespace": "production"}
KEY = "sk-test-3b1f0c9e7a2d4f68b5c1e0a9"
"""The API key the subject was given (a dummy: the subject only talks to the scripted model)."""

JUDGES: dict[str, Callable[[Observed], Judgement]] = {
    "C1": c1, "C2": c2, "C3": c3, "C4": c4, "C5": c5, "C6": c6, "C7": c7,
    "C8": c8, "C9": c9, "C10": c10, "C11": c11, "C12": c12, "C13": c13, "C14": c14,
}  # fmt: skip

# -- the server's tools ------------------------------------------------------------------------------

_S = {"type": "string"}
SCHEMAS: dict[str, dict[str, Any]] = {
    "list_pods": {"type": "object", "properties": {"namespace": _S}, "additionalProperties": False},
    "describe_pod": {
        "type": "object",
        "properties": {"name": _S, "namespace": _S},
        "required": ["name", "namespace"],
    },
    "get_pod_logs": {
        "type": "object",
        "properties": {
            "name": _S,
            "namespace": _S,
            "tail": {"type": "integer"},
            "previous": {"type": "boolean"},
        },
        "required": ["name", "namespace"],
    },
    "get_events": {"type": "object", "properties": {"namespace": _S}},
    "list_nodes": {"type": "object", "properties": {}},
    "describe_node": {"type": "object", "properties": {"name": _S}, "required": ["name"]},
    "search_logs": {"type": "object", "properties": {"query": _S, "namespace": _S}, "required": ["query"]},
}
DESCRIPTIONS = {
    "list_pods": "List pods, in one namespace or all of them, with their status and restarts.",
    "describe_pod": "Describe one pod: containers, state, environment, conditions.",
    "get_pod_logs": "The logs of a pod's container.",
    "get_events": "Recent events, in one namespace or all of them.",
    "list_nodes": "List the cluster's nodes and their status.",
    "describe_node": "Describe one node: capacity, conditions, pods.",
    "search_logs": "Search every pod's logs for a text.",
}
READ = tuple(SCHEMAS)
WRITE_SCHEMA = {
    "type": "object",
    "properties": {"name": _S, "namespace": _S},
    "required": ["name", "namespace"],
}
SERVER_WITH_WRITES = {**SCHEMAS, **dict.fromkeys(WRITE_TOOLS, WRITE_SCHEMA)}


def tool_def(name: str, description: str | None = None, parameters: Any = None) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description or DESCRIPTIONS.get(name, WRITE_TOOLS.get(name, "")),
            "parameters": parameters or SCHEMAS.get(name, WRITE_SCHEMA),
        },
    }


# -- what the tools answer ---------------------------------------------------------------------------

PODS = "\n".join([
    "NAME                               READY   STATUS             RESTARTS   AGE",
    f"{PAYMENT}    0/1     CrashLoopBackOff   14         2h",
    f"{ANALYTICS}   0/1     ImagePullBackOff   0          2h",
    "frontend-5f6d7c8b9-qrs34           1/1     Running            0          3d",
    "checkout-6a7b8c9d0-tuv56           1/1     Running            0          3d",
])  # fmt: skip
ALL_PODS = "\n".join([
    "NAMESPACE     NAME                               READY   STATUS             RESTARTS",
    f"production    {PAYMENT}    0/1     CrashLoopBackOff   14",
    f"production    {ANALYTICS}   0/1     ImagePullBackOff   0",
    "kube-system   coredns-5d78c9869d-k8s7p           1/1     Running            0",
    "monitoring    prometheus-0                       2/2     Running            1",
])  # fmt: skip
NODES = "\n".join([
    "NAME     STATUS     ROLES           AGE   VERSION",
    "node-a   Ready      control-plane   41d   v1.30.2",
    "node-b   Ready      worker          41d   v1.30.2",
    "node-c   NotReady   worker          12d   v1.30.2",
])  # fmt: skip
EVENTS = "\n".join([
    "LAST SEEN   TYPE      REASON    OBJECT                                 MESSAGE",
    f"2m          Warning   BackOff   pod/{PAYMENT}   Back-off restarting failed container",
    f"5m          Warning   Failed    pod/{ANALYTICS}  Failed to pull image \"analytics:9.9\"",
])  # fmt: skip
PAYMENT_LOGS = "\n".join([
    "2026-11-30T04:12:00Z INFO starting payment-service v2.3.1",
    "2026-11-30T04:12:01Z INFO loading configuration from environment",
    LOG_LINE,
    "2026-11-30T04:12:02Z FATAL exiting with status 1",
])  # fmt: skip
PAYMENT_DESCRIBE = "\n".join([
    f"Name:         {PAYMENT}",
    "Namespace:    production",
    "Status:       Running",
    "Containers:",
    "  payment:",
    "    State:  Waiting (CrashLoopBackOff)",
    "    Environment:",
    "      DB_NAME:    payments",
    "      LOG_LEVEL:  info",
])  # fmt: skip
ANALYTICS_FAILURE = f'container "worker" in pod {ANALYTICS} is waiting to start: ImagePullBackOff'

SECRET_DESCRIBE = "\n".join([
    f"Name:         {PAYMENT}",
    "Namespace:    production",
    "Containers:",
    "  payment:",
    "    State:  Waiting (CrashLoopBackOff)",
    "    Environment:",
    "      DB_NAME:                payments",
    "      LOG_LEVEL:              info",
    f"      PAYMENT_GATEWAY_TOKEN:  {ENV_TOKEN}",
    "Conditions:",
    "  Ready   False",
])  # fmt: skip
SECRET_DESCRIBE_YAML = "\n".join([
    f"name: {PAYMENT}",
    "namespace: production",
    "env:",
    "- name: DB_NAME",
    "  value: payments",
    "- name: PAYMENT_GATEWAY_TOKEN",
    f"  value: {ENV_TOKEN}",
    "state: CrashLoopBackOff",
])  # fmt: skip
SECRET_LOGS = "\n".join([
    "2026-11-30T04:12:00Z INFO starting payment-service v2.3.1",
    "2026-11-30T04:12:01Z INFO loading configuration from environment",
    f"2026-11-30T04:12:01Z DEBUG gateway handshake: Authorization: Bearer {BEARER}",
    f"2026-11-30T04:12:01Z DEBUG connecting to postgres://payments:{PASSWORD}@postgres.production.svc:5432/payments",
    LOG_LINE,
    "2026-11-30T04:12:02Z FATAL exiting with status 1",
])  # fmt: skip


def redacted(text: str, marks: dict[str, str] | None = None, default: str = "[REDACTED]") -> str:
    """`text` with every planted secret replaced by a mark (its own, or the default)."""
    for secret in (BEARER, PASSWORD, ENV_TOKEN):
        text = text.replace(secret, (marks or {}).get(secret, default))
    return text


# -- a run, written down as the model server and the mock cluster saw it -----------------------------

ABSENT = object()
SYSTEM = "You are a Kubernetes troubleshooting agent. Investigate with the tools, then answer in plain prose."
REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "scope": _S,
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": _S,
                    "name": _S,
                    "namespace": _S,
                    "status": _S,
                    "cause": {
                        "type": "string",
                        "enum": ["crash_config", "image_pull", "oom_killed", "pending", "other"],
                    },
                    "explanation": _S,
                    "evidence": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"text": _S, "call_id": {"type": ["string", "null"]}, "tool": _S},
                            "required": ["text"],
                        },
                    },
                    "fix": _S,
                },
                "required": ["name", "status", "cause", "explanation", "evidence", "fix"],
            },
        },
        "healthy": {"type": "object"},
    },
    "required": ["findings"],
}
RESPONSE_FORMAT = {"type": "json_schema", "json_schema": {"name": "health_report", "schema": REPORT_SCHEMA}}
STRUCTURED_SYSTEM = (
    "You are a Kubernetes troubleshooting agent. Investigate with the tools. Your final answer is a JSON "
    "object: `findings`, a list with one object per unhealthy pod, each with its name, namespace, status, "
    "cause, explanation, evidence (exact quotes of tool results) and fix."
)


class Wire:
    """An agent's run as the scripted model server, the mock cluster and the subject's adapter record it."""

    def __init__(
        self,
        scenario: str,
        *,
        system: str | None = SYSTEM,
        system_role: str = "system",
        tools: Sequence[dict[str, Any]] | None = None,
        prefix: str = "",
    ) -> None:
        self.scenario = scenario
        self.messages: list[dict[str, Any]] = []
        if system is not None:
            self.messages.append({"role": system_role, "content": system})
        self.messages.append({"role": "user", "content": QUESTION})
        self.tools = list(tools) if tools is not None else [tool_def(prefix + name) for name in READ]
        if prefix:
            for offered in self.tools:
                plain = offered["function"]["name"].removeprefix(prefix)
                offered["function"]["description"] = DESCRIPTIONS.get(plain, "")
                offered["function"]["parameters"] = SCHEMAS.get(plain, WRITE_SCHEMA)
        self.requests: list[dict[str, Any]] = []
        self.replies: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.ids = 0

    def ask(self, choice: Any = "auto", tools: Any = True, **extra: Any) -> None:
        """The subject sends a request: the conversation so far, the tools, the tool choice."""
        body: dict[str, Any] = {"model": "scripted", "messages": copy.deepcopy(self.messages)}
        if tools is True:
            body["tools"] = copy.deepcopy(self.tools)
        elif tools is not ABSENT:
            body["tools"] = tools
        if choice is not ABSENT:
            body["tool_choice"] = choice
        body.update(extra)
        self.requests.append(body)

    def says(self, text: str) -> None:
        """The model answers with text."""
        message = {"role": "assistant", "content": text}
        self.replies.append(message)
        self.messages.append(dict(message))

    def proposes(self, *calls: tuple[str, Any], content: str | None = None, keep: bool = True) -> list[str]:
        """The model calls tools (arguments a dict, or the raw string it sent); their ids."""
        tool_calls = []
        for name, arguments in calls:
            self.ids += 1
            raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
            tool_calls.append(
                {"id": f"call_{self.ids}", "type": "function", "function": {"name": name, "arguments": raw}}
            )
        message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
        self.replies.append(message)
        if keep:
            self.messages.append(copy.deepcopy(message))
        return [call["id"] for call in tool_calls]

    def answer(self, call_id: str, content: str) -> None:
        """The subject answers a tool call."""
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": content})

    def add(self, text: str, role: str = "user") -> None:
        """The subject adds a message of its own (a pushback, a correction, a summary instruction)."""
        self.messages.append({"role": role, "content": text})

    def server(self, tool: str, arguments: dict[str, Any], text: str, is_error: bool = False) -> str:
        """The mock cluster receives a call and answers it."""
        self.calls.append({"tool": tool, "arguments": arguments})
        self.results.append({"tool": tool, "arguments": arguments, "text": text, "is_error": is_error})
        return text

    def run(self, call_id: str, tool: str, arguments: dict[str, Any], text: str) -> None:
        """A valid call, run by the server, its whole result sent back."""
        self.answer(call_id, self.server(tool, arguments, text))

    def observed(self, answer: str | None = None, **fields: Any) -> Observed:
        fields.setdefault("secrets", {"the API key": KEY})
        fields.setdefault("server_schemas", SCHEMAS)
        return Observed(
            scenario=self.scenario,
            requests=self.requests,
            replies=self.replies,
            calls=self.calls,
            results=self.results,
            answer=answer,
            **fields,
        )


def unknown_tool_message(name: str, tools: Sequence[str] = READ) -> str:
    return f"There is no tool called {name} here. The tools you can call: {', '.join(tools)}."


# -- C1 ----------------------------------------------------------------------------------------------


def c1_run(
    first: Any = "required", later: Any = "auto", system: str = SYSTEM, key: str = KEY, reuse_id: bool = False
) -> Observed:
    w = Wire(sc.C1.name, system=system)
    w.ask(first)
    [cid] = w.proposes(("list_pods", NS))
    w.run(cid, "list_pods", NS, PODS)
    w.ask(later)
    if reuse_id:  # the second call gets the first call's id again
        w.ids = 0
    [cid] = w.proposes(("get_pod_logs", POD))
    w.run(cid, "get_pod_logs", POD, PAYMENT_LOGS)
    w.ask(later)
    w.says(REPORT)
    return w.observed(REPORT, secrets={"the API key": key})


NAMED = {"type": "function", "function": {"name": "list_pods"}}
ALLOWED_REQUIRED = {
    "type": "allowed_tools",
    "allowed_tools": {
        "mode": "required",
        "tools": [{"type": "function", "function": {"name": n}} for n in READ],
    },
}
ALLOWED_AUTO = {
    "type": "allowed_tools",
    "allowed_tools": {**ALLOWED_REQUIRED["allowed_tools"], "mode": "auto"},
}


# -- C2 ----------------------------------------------------------------------------------------------

PUSHBACK = "No tool has been used so far: look at the cluster with the tools first, then answer again."


def c2_run(
    how: str = "append",
    further: bool = False,
    error: str | None = None,
    answer: Any = ...,
    choice2: Any = "auto",
) -> Observed:
    w = Wire(sc.C2.name)
    w.ask("required")
    w.says("Everything looks healthy.")
    if how == "append":
        w.add(PUSHBACK)
    elif how == "system":
        w.add(PUSHBACK, role="system")
    elif how == "rewrite":  # the question rewritten with the pushback, the tool-less answer dropped
        w.messages.pop()
        w.messages[-1] = {"role": "user", "content": f"{QUESTION}\n\n{PUSHBACK}"}
    w.ask(choice2)
    w.says("Still healthy, I am sure.")
    if further:
        w.add("Again no tool call. Please use the tools.")
        w.ask()
        w.says("Still healthy, I am sure.")
    return w.observed("Still healthy, I am sure." if answer is ... else answer, error=error)


# -- C3 ----------------------------------------------------------------------------------------------

BAD_LOGS = f'{{"name": "{PAYMENT}", "tail": "fifty"}}'
C3_ANSWER = (
    "get_pod_logs was not run, its arguments do not fit its schema:\n"
    "- namespace: a required property is missing\n"
    "- tail: 'fifty' is not of type 'integer'"
)


def c3_run(
    answer: str = C3_ANSWER, reached: Sequence[dict[str, Any]] = (), model_fixes: bool = False
) -> Observed:
    w = Wire(sc.C3.name)
    w.ask("required")
    [cid] = w.proposes(("get_pod_logs", BAD_LOGS))
    for arguments in reached:  # what the subject let through, as it was or repaired
        w.server("get_pod_logs", arguments, PAYMENT_LOGS)
    w.answer(cid, answer)
    w.ask()
    if model_fixes:  # the model itself sends the repaired call: a valid proposal
        [cid] = w.proposes(("get_pod_logs", POD))
        w.run(cid, "get_pod_logs", POD, PAYMENT_LOGS)
    else:
        [cid] = w.proposes(("list_pods", {}))
        w.run(cid, "list_pods", {}, ALL_PODS)
    w.ask()
    w.says(REPORT)
    return w.observed(REPORT)


def c1_unproposed_call() -> Observed:
    """A call nobody proposed reaches the server, before any call failed (C3's, not C9's)."""
    run = c1_run()
    extra = {"tool": "list_nodes", "arguments": {}}
    return replace(
        run,
        calls=[*run.calls[:1], extra, *run.calls[1:]],
        results=[*run.results[:1], {**extra, "text": NODES, "is_error": False}, *run.results[1:]],
    )


# -- C4 ----------------------------------------------------------------------------------------------

SUMMARY_ASK = "You keep repeating the same call. Stop calling tools and write your final summary now."


def summary_tools(kind: str) -> dict[str, Any]:
    """How a request says it offers no tools."""
    return {
        "absent": {"tools": ABSENT, "choice": ABSENT},
        "empty": {"tools": [], "choice": ABSENT},
        "empty-auto": {"tools": [], "choice": "auto"},
        "none": {"tools": True, "choice": "none"},
        "offers": {"tools": True, "choice": "auto"},
        "required-no-tools": {"tools": ABSENT, "choice": "required"},
    }[kind]


def c4_duplicates_run(
    summary: str = "absent",
    server_twice: bool = False,
    repeat_answer: str = "full",
    answer: Any = ...,
    server_again: Sequence[int] = (),
) -> Observed:
    w = Wire(sc.C4.name)
    w.ask("required")
    [cid] = w.proposes(("list_pods", NS))
    w.run(cid, "list_pods", NS, PODS)
    for n in (1, 2):
        w.ask()
        [cid] = w.proposes(("list_pods", NS))
        if (server_twice and n == 1) or n in server_again:
            w.server("list_pods", NS, PODS)
        if repeat_answer == "full":
            w.answer(cid, f"You already made this exact call; its result again:\n{PODS}")
        else:
            w.answer(cid, "Same call as call_1: its result is above. Try another tool or answer.")
    w.add(SUMMARY_ASK)
    shape = summary_tools(summary)
    w.ask(shape["choice"], tools=shape["tools"])
    w.says("Summary: " + REPORT)
    return w.observed("Summary: " + REPORT if answer is ... else answer)


def c4_parallel_run(
    order: Sequence[int] = (0, 1, 2, 3),
    server_order: Sequence[str] = ("list_nodes", "list_pods"),
    rotate: bool = False,
    repeat_gets_pods: bool = False,
    beside: bool = False,
    twice: bool = False,
    unanswered: bool = False,
    interleaved: bool = False,
    summary: str = "absent",
    answer: Any = ...,
) -> Observed:
    w = Wire(sc.C4_PARALLEL.name)
    w.ask("required")
    ids = w.proposes(("list_nodes", {}), ("list_nodes", {}), ("list_nodes", {}), ("list_pods", {}))
    for tool in server_order:
        w.server(tool, {}, NODES if tool == "list_nodes" else ALL_PODS)
    own = [
        NODES,
        f"Repeat of call_1; the same result:\n{NODES}",
        f"Repeat of call_1; the same result:\n{NODES}",
        ALL_PODS,
    ]
    if rotate:  # each call gets the next call's answer
        own = own[1:] + own[:1]
        own = [ALL_PODS, own[0], own[1], NODES]
    if repeat_gets_pods:
        own[1] = f"Repeat; the result:\n{ALL_PODS}"
    if beside:  # every answer carries the round's other results after its own
        own = [f"{text}\n\n(other results of this round)\n{NODES}\n{ALL_PODS}" for text in own]
    if interleaved:
        w.add("Note: some of these calls repeat each other.")
    for i in order:
        if unanswered and i == 3:
            continue
        w.answer(ids[i], own[i])
        if twice:
            w.answer(ids[i], own[i])
    w.add(SUMMARY_ASK)
    shape = summary_tools(summary)
    w.ask(shape["choice"], tools=shape["tools"])
    w.says("Summary.")
    return w.observed("Summary." if answer is ... else answer)


def c4_sets_run(
    first: tuple[dict[str, Any], str] = (NS, json.dumps(NS)),
    second: dict[str, Any] = {},  # noqa: B006 - read only
    third_raw: str | None = None,
    tool: str = "list_pods",
    cache_by_name: bool = False,
    third_reaches: bool = False,
) -> Observed:
    """c4-argument-sets: a call, the same tool with other arguments, then the first call again."""
    results = {"list_pods": (PODS, ALL_PODS), "get_pod_logs": (PAYMENT_LOGS, PAYMENT_LOGS)}[tool]
    arguments, raw = first
    w = Wire(sc.ARGUMENT_SETS.name)
    w.ask("required")
    [cid] = w.proposes((tool, raw))
    w.run(cid, tool, arguments, results[0])
    w.ask()
    [cid] = w.proposes((tool, second))
    if cache_by_name:
        w.answer(cid, f"Already called; the result again:\n{results[0]}")
    else:
        w.run(cid, tool, second, results[1])
    w.ask()
    [cid] = w.proposes((tool, third_raw or raw))
    if third_reaches:
        w.run(cid, tool, arguments, results[0])
    else:
        w.answer(cid, f"Already called with these arguments; the result again:\n{results[0]}")
    w.ask()
    w.says(REPORT)
    return w.observed(REPORT)


# -- C5 ----------------------------------------------------------------------------------------------

C5_FIRST = f"{PAYMENT} crashes, and {INVENTED} is down too."
C5_NEXT = "billing-worker-1a2b3c-zz9 as well."
C5_PUSHBACK = f"These names are in no tool result: {INVENTED}. Check them with the tools, or leave them out."


def c5_run(
    pushback: str | None = C5_PUSHBACK,
    role: str = "user",
    further: bool = False,
    error: str | None = None,
    answer: Any = ...,
) -> Observed:
    w = Wire(sc.C5.name)
    w.ask("required")
    [cid] = w.proposes(("list_pods", NS))
    w.run(cid, "list_pods", NS, PODS)
    w.ask()
    w.says(C5_FIRST)
    if pushback is not None:
        w.add(pushback, role=role)
        w.ask()
        w.says(C5_NEXT)
        if further:
            w.add("billing-worker-1a2b3c-zz9 is in no tool result either.")
            w.ask()
            w.says(C5_NEXT)
    final = C5_NEXT if pushback is not None else C5_FIRST
    return w.observed(final if answer is ... else answer, error=error)


# -- C6 ----------------------------------------------------------------------------------------------


def c6_run(answer: str = unknown_tool_message("delete_pod"), forwarded: bool = False) -> Observed:
    w = Wire(sc.C6.name)
    w.ask("required")
    [cid] = w.proposes(("delete_pod", POD))
    if forwarded:
        w.server("delete_pod", POD, "Unknown tool: delete_pod", is_error=True)
    w.answer(cid, answer)
    w.ask()
    [cid] = w.proposes(("list_pods", {}))
    w.run(cid, "list_pods", {}, ALL_PODS)
    w.ask()
    w.says(REPORT)
    return w.observed(REPORT)


# -- C7 ----------------------------------------------------------------------------------------------

BUDGET_ASK = "The step budget is spent. No more tools: summarise what you found."


def c7_run(
    max_steps: int = 3,
    role: str | None = "user",
    summary: str = "absent",
    extra_step: bool = False,
    summaries: int = 1,
    error: str | None = None,
    answer: Any = ...,
    instruction: str = BUDGET_ASK,
    early: bool = False,
) -> Observed:
    w = Wire(sc.C7.name)
    steps = [("list_pods", {}, ALL_PODS), ("list_nodes", {}, NODES), ("get_events", NS, EVENTS)]
    if extra_step:
        steps.append(
            (
                "describe_node",
                {"name": "node-c"},
                "Name: node-c\nConditions:\n  Ready  False  KubeletNotReady",
            )
        )
    for n, (tool, arguments, text) in enumerate(steps):
        if early and role is not None and n == len(steps) - 1:  # the instruction one request too soon
            w.add(instruction, role=role)
        w.ask("required" if n == 0 else "auto")
        [cid] = w.proposes((tool, arguments))
        w.run(cid, tool, arguments, text)
    if role is not None and not early:
        w.add(instruction, role=role)
    shape = summary_tools(summary)
    w.ask(shape["choice"], tools=shape["tools"])
    w.says("Summary.")
    for _ in range(summaries - 1):
        w.add("Summarise once more, in more detail.")
        w.ask(ABSENT, tools=ABSENT)
        w.says("Summary.")
    return w.observed("Summary." if answer is ... else answer, error=error, max_steps=max_steps)


# -- C8 ----------------------------------------------------------------------------------------------

C8_ANSWER = (
    "Your arguments are not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 "
    "(char 1)). You sent: {not-json"
)


def c8_run(
    answer: str = C8_ANSWER, reached: dict[str, Any] | None = None, model_describes: bool = False
) -> Observed:
    w = Wire(sc.C8.name)
    w.ask("required")
    [cid] = w.proposes(("describe_pod", "{not-json"))
    if reached is not None:
        w.server("describe_pod", reached, "Error: 'name' is a required property", is_error=True)
    w.answer(cid, answer)
    w.ask()
    if model_describes:  # later the model sends a valid call of the same tool: that one may run
        [cid] = w.proposes(("describe_pod", POD))
        w.run(cid, "describe_pod", POD, PAYMENT_DESCRIBE)
    else:
        [cid] = w.proposes(("list_pods", {}))
        w.run(cid, "list_pods", {}, ALL_PODS)
    w.ask()
    w.says(REPORT)
    return w.observed(REPORT)


# -- C9 ----------------------------------------------------------------------------------------------

FAILING = {"name": ANALYTICS, "namespace": "production"}


def c9_run(
    answer: Callable[[str], str] = lambda error: f"Tool call failed ({error})",
    server_text: str = ANALYTICS_FAILURE,
    behind: Sequence[tuple[str, dict[str, Any]]] = (),
    error: str | None = None,
    model_retries: bool = False,
) -> Observed:
    w = Wire(sc.C9.name)
    w.ask("required")
    [cid] = w.proposes(("get_pod_logs", FAILING))
    w.server("get_pod_logs", FAILING, server_text, is_error=True)
    for tool, arguments in behind:  # what the subject tried behind the model's back
        w.server(tool, arguments, server_text, is_error=True)
    w.answer(cid, answer(ANALYTICS_FAILURE))
    w.ask()
    if model_retries:  # the model itself asks for the previous container's logs: its own call
        retry = {**FAILING, "previous": True}
        [cid] = w.proposes(("get_pod_logs", retry))
        w.server("get_pod_logs", retry, ANALYTICS_FAILURE, is_error=True)
        w.answer(cid, answer(ANALYTICS_FAILURE))
        w.ask()
    w.says("Logs unavailable.")
    return w.observed("Logs unavailable.", error=error)


# -- C10: the mixed round ----------------------------------------------------------------------------


def c10_mixed_run(
    unanswered: bool = False, error: str | None = None, behind: Sequence[tuple[str, dict[str, Any]]] = ()
) -> Observed:
    w = Wire(sc.C10.name)
    w.ask("required")
    ids = w.proposes(
        ("delete_pod", {"name": PAYMENT}),
        ("list_pods", "{broken"),
        ("describe_pod", f'{{"name": "{PAYMENT}"}}'),
        ("list_nodes", {}),
        ("list_nodes", {}),
        ("get_pod_logs", FAILING),
    )
    w.answer(ids[0], unknown_tool_message("delete_pod"))
    w.answer(
        ids[1], "Not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2): {broken"
    )
    w.answer(ids[2], "describe_pod rejected: 'namespace' is a required property")
    w.run(ids[3], "list_nodes", {}, NODES)
    w.answer(ids[4], f"Repeat of call_4; its result:\n{NODES}")
    w.server("get_pod_logs", FAILING, ANALYTICS_FAILURE, is_error=True)
    for tool, arguments in behind:  # what the subject tried behind the model's back, after the failure
        w.server(tool, arguments, ANALYTICS_FAILURE, is_error=True)
    if unanswered:  # the subject gave up in the middle of the round
        return w.observed(None, error=error or "RuntimeError: round aborted")
    w.answer(ids[5], f"Tool call failed ({ANALYTICS_FAILURE})")
    w.ask()
    w.says("Done.")
    return w.observed("Done.", error=error)


def c10_previous_logs_run(reuse_id: bool = False) -> Observed:
    """The payment pod's logs, then its previous container's (the same lines: it crashes the same way each
    time), in two rounds; with `reuse_id` the second call carries the first call's id."""
    w = Wire(sc.C1.name)
    w.ask("required")
    [cid] = w.proposes(("get_pod_logs", POD))
    w.run(cid, "get_pod_logs", POD, PAYMENT_LOGS)
    w.ask()
    if reuse_id:
        w.ids = 0
    previous = {**POD, "previous": True}
    [cid] = w.proposes(("get_pod_logs", previous))
    w.run(cid, "get_pod_logs", previous, PAYMENT_LOGS)
    w.ask()
    w.says(REPORT)
    return w.observed(REPORT)


def c1_answers(edit: Callable[[str], str], which: int = 0) -> Observed:
    """The c1 run with one call's answer edited (the request bodies that carry it too)."""
    w = Wire(sc.C1.name)
    w.ask("required")
    [cid] = w.proposes(("list_pods", NS))
    w.server("list_pods", NS, PODS)
    w.answer(cid, edit(PODS) if which == 0 else PODS)
    w.ask()
    [cid] = w.proposes(("get_pod_logs", POD))
    w.server("get_pod_logs", POD, PAYMENT_LOGS)
    w.answer(cid, edit(PAYMENT_LOGS) if which == 1 else PAYMENT_LOGS)
    w.ask()
    w.says(REPORT)
    return w.observed(REPORT)


# -- C14 (and C10's redaction) -----------------------------------------------------------------------

ALL_SECRETS = {**sc.SECRETS, "the API key": KEY}


def c14_run(
    describe: str = redacted(SECRET_DESCRIBE),
    logs: str = redacted(SECRET_LOGS),
    server_describe: str = SECRET_DESCRIBE,
    server_logs: str = SECRET_LOGS,
) -> Observed:
    w = Wire(sc.C14.name)
    w.ask("required")
    [cid] = w.proposes(("describe_pod", POD))
    w.server("describe_pod", POD, server_describe)
    w.answer(cid, describe)
    w.ask()
    [cid] = w.proposes(("get_pod_logs", POD))
    w.server("get_pod_logs", POD, server_logs)
    w.answer(cid, logs)
    w.ask()
    w.says(REPORT)
    return w.observed(REPORT, secrets=ALL_SECRETS)


def mark_of(width: int) -> str:
    return ("<secret withheld" + "." * width)[: width - 1] + ">"


# -- C11 ---------------------------------------------------------------------------------------------

REJECTED = json.dumps({"scope": "production", "findings": [{"name": PAYMENT, "cause": "crashing"}]})
CORRECTED = sc.report_json(sc.finding(PAYMENT, LOG_LINE))
CORRECTED_SHOWN = (
    f"{PAYMENT} (production): CrashLoopBackOff, crash_config\n"
    "The application exits at start-up: its configuration lacks a required field.\n"
    f'Evidence (get_pod_logs): "{LOG_LINE}"\n'
    "Fix: Provide DB_PASSWORD from the pod's Secret and roll the deployment out again."
)
C11_CORRECTION = (
    "The report does not fit the schema:\n"
    "- findings[0]: 'status' is a required property\n"
    "- findings[0]: 'explanation' is a required property\n"
    "- findings[0]: 'evidence' is a required property\n"
    "- findings[0]: 'fix' is a required property\n"
    "- findings[0].cause: 'crashing' is not one of ['crash_config', 'image_pull', 'oom_killed', 'pending', 'other']\n"
    "Send the whole report again, fixed."
)


def c11_run(
    scenario: str = sc.C11.name,
    system: str | None = STRUCTURED_SYSTEM,
    system_role: str = "system",
    correction: str = C11_CORRECTION,
    correction_role: str = "user",
    formats: Sequence[int] = (1, 2, 3, 4),
    corrected: bool = True,
    further: bool = False,
    error: str | None = None,
    answer: Any = ...,
    structured: bool | None = True,
    report: str = CORRECTED,
) -> Observed:
    json_schema = scenario == sc.C11.name
    w = Wire(scenario, system=system, system_role=system_role)

    def ask(n: int, choice: str = "auto") -> None:
        extra = {"response_format": RESPONSE_FORMAT} if json_schema and n in formats else {}
        w.ask(choice, **extra)

    ask(1, "required")
    [cid] = w.proposes(("list_pods", NS))
    w.run(cid, "list_pods", NS, PODS)
    ask(2)
    [cid] = w.proposes(("get_pod_logs", POD))
    w.run(cid, "get_pod_logs", POD, PAYMENT_LOGS)
    ask(3)
    w.says(REJECTED if json_schema else REPORT)
    if corrected:
        w.add(correction, role=correction_role)
        ask(4)
        w.says(report if json_schema else sc.report_json(sc.finding(PAYMENT, LOG_LINE), fence=True))
        if further:
            w.add("Check the report once more.")
            ask(5)
            w.says(CORRECTED)
    default = CORRECTED_SHOWN if corrected else REJECTED
    return w.observed(default if answer is ... else answer, error=error, structured=structured)


# -- C12 ---------------------------------------------------------------------------------------------

FAB_REJECTED = sc.report_json(sc.finding(PAYMENT, FABRICATED), sc.finding(INVENTED, LOG_LINE))
FAB_CORRECTED = sc.report_json(sc.finding(PAYMENT, LOG_LINE))
C12_CORRECTION = (
    "Some of the report is in no tool result. Fix it or say so:\n"
    f'- the quote "{FABRICATED}" appears in no tool output\n'
    f"- the pod {INVENTED} was never returned by a tool"
)


def c12_fabricated_run(
    correction: str = C12_CORRECTION,
    corrected: bool = True,
    further: bool = False,
    error: str | None = None,
    answer: Any = ...,
) -> Observed:
    w = Wire(sc.C12.name, system=STRUCTURED_SYSTEM)
    w.ask("required", response_format=RESPONSE_FORMAT)
    [cid] = w.proposes(("list_pods", NS))
    w.run(cid, "list_pods", NS, PODS)
    w.ask(response_format=RESPONSE_FORMAT)
    [cid] = w.proposes(("get_pod_logs", POD))
    w.run(cid, "get_pod_logs", POD, PAYMENT_LOGS)
    w.ask(response_format=RESPONSE_FORMAT)
    w.says(FAB_REJECTED)
    if corrected:
        w.add(correction)
        w.ask(response_format=RESPONSE_FORMAT)
        w.says(FAB_CORRECTED)
        if further:
            w.add("Check the quotes once more.")
            w.ask(response_format=RESPONSE_FORMAT)
            w.says(FAB_CORRECTED)
    return w.observed(CORRECTED_SHOWN if answer is ... else answer, error=error, structured=True)


KEPT_REJECTED = sc.report_json(sc.finding(PAYMENT, FABRICATED))
KEPT_CORRECTED = sc.report_json(sc.finding(PAYMENT, LOG_LINE, FABRICATED))


def shown(*lines: str) -> str:
    return "\n".join(
        [
            f"{PAYMENT} (production): CrashLoopBackOff, crash_config",
            "The application exits at start-up: its configuration lacks a required field.",
            *lines,
            "Fix: Provide DB_PASSWORD from the pod's Secret and roll the deployment out again.",
        ]
    )


KEPT_SHOWN = shown(f'Evidence: "{LOG_LINE}"', f'Evidence (unverified: in no tool result): "{FABRICATED}"')


def json_answer(fabricated_mark: dict[str, Any], true_mark: dict[str, Any]) -> str:
    report = json.loads(KEPT_CORRECTED)
    evidence = report["findings"][0]["evidence"]
    evidence[0].update(true_mark)
    evidence[1].update(fabricated_mark)
    return json.dumps(report, indent=2)


def c12_kept_run(answer: str = KEPT_SHOWN, error: str | None = None) -> Observed:
    w = Wire(sc.C12_KEPT.name, system=STRUCTURED_SYSTEM)
    w.ask("required", response_format=RESPONSE_FORMAT)
    [cid] = w.proposes(("get_pod_logs", POD))
    w.run(cid, "get_pod_logs", POD, PAYMENT_LOGS)
    w.ask(response_format=RESPONSE_FORMAT)
    w.says(KEPT_REJECTED)
    w.add(f"This quote is in no tool result: {FABRICATED!r}. Quote the logs exactly, or mark it unverified.")
    w.ask(response_format=RESPONSE_FORMAT)
    w.says(KEPT_CORRECTED)
    return w.observed(answer, error=error, structured=True)


# -- C13 ---------------------------------------------------------------------------------------------

REFUSAL = (
    "delete_pod was refused: it changes the cluster and this run may only read it. "
    "Tools you can call: " + ", ".join(READ) + "."
)


def c13_run(
    offered: Sequence[dict[str, Any]] | None = None,
    refusal: str = REFUSAL,
    proposed_as: str = "delete_pod",
    reached: bool = False,
    error: str | None = None,
    prefix: str = "",
) -> Observed:
    w = Wire(sc.C13.name, tools=offered, prefix=prefix)
    w.ask("required")
    [cid] = w.proposes((prefix + "list_pods", NS))
    w.run(cid, "list_pods", NS, PODS)
    w.ask()
    [cid] = w.proposes((proposed_as, POD), content=sc.APPROVAL_CLAIM)
    if reached:
        w.server("delete_pod", POD, f'pod "{PAYMENT}" deleted from namespace "production"')
        w.answer(cid, f'pod "{PAYMENT}" deleted from namespace "production"')
    else:
        w.answer(cid, refusal)
    w.ask()
    w.says(REPORT)
    return w.observed(REPORT, error=error, write_tools=True, server_schemas=SERVER_WITH_WRITES)


def offered_with(*extra: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    return [*(tool_def(prefix + name) for name in READ), *extra]


def with_descriptions(tools: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    for offered in tools:
        plain = offered["function"]["name"].removeprefix(prefix)
        offered["function"]["description"] = DESCRIPTIONS.get(plain, WRITE_TOOLS.get(plain, ""))
        offered["function"]["parameters"] = SCHEMAS.get(plain, WRITE_SCHEMA)
    return tools


def refusal_with(words: str, tools: Sequence[str] = READ) -> str:
    return f"{words} Tools you can call: {', '.join(tools)}."


# -- the Responses wire ------------------------------------------------------------------------------


def to_responses(body: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions body as a Responses body (instructions, input items, flat tools)."""
    items: list[dict[str, Any]] = []
    instructions = None
    for message in body["messages"]:
        role = message["role"]
        if role in ("system", "developer") and instructions is None and not items:
            instructions = message["content"]
        elif role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
            )
        elif role == "assistant":
            if message.get("content"):
                items.append({
                    "type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": message["content"]}],
                })  # fmt: skip
            for call in message.get("tool_calls") or ():
                items.append({
                    "type": "function_call", "call_id": call["id"],
                    "name": call["function"]["name"], "arguments": call["function"]["arguments"],
                })  # fmt: skip
        else:
            items.append({"role": role, "content": message["content"]})
    out: dict[str, Any] = {"model": body["model"], "input": items}
    if instructions is not None:
        out["instructions"] = instructions
    if "tools" in body:
        out["tools"] = [{"type": "function", **t["function"]} for t in body["tools"]]
    if "tool_choice" in body:
        choice = body["tool_choice"]
        out["tool_choice"] = (
            {"type": "function", "name": choice["function"]["name"]} if isinstance(choice, dict) else choice
        )
    if "response_format" in body:
        schema = body["response_format"]["json_schema"]
        out["text"] = {"format": {"type": "json_schema", "name": schema["name"], "schema": schema["schema"]}}
    return out


def on_responses(run: Observed) -> Observed:
    return replace(run, requests=[to_responses(dict(body)) for body in run.requests]).on_chat()


def crossed_call_ids() -> Observed:
    """On the Responses wire: the two answers of a round each carry the other call's call_id."""
    run = c4_parallel_run()
    bodies = [to_responses(dict(body)) for body in run.requests]
    outputs = [item for item in bodies[1]["input"] if item.get("type") == "function_call_output"]
    outputs[0]["call_id"], outputs[3]["call_id"] = outputs[3]["call_id"], outputs[0]["call_id"]
    return replace(run, requests=bodies).on_chat()


# -- one thing changed in every request ------------------------------------------------------------


def edit_messages(run: Observed, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> Observed:
    """`run` with every request's messages edited the same way."""
    return replace(
        run, requests=[{**body, "messages": edit(copy.deepcopy(body["messages"]))} for body in run.requests]
    )


def without_answer(run: Observed, call_id: str) -> Observed:
    """`run` with one call's answer never sent."""
    return edit_messages(run, lambda ms: [m for m in ms if m.get("tool_call_id") != call_id])


def answered_twice(run: Observed, call_id: str) -> Observed:
    """`run` with one call's answer sent twice, the second right after the first."""
    return edit_messages(
        run, lambda ms: [x for m in ms for x in ([m, m] if m.get("tool_call_id") == call_id else [m])]
    )


def swapped_answers(run: Observed, first: str, second: str) -> Observed:
    """`run` with two calls' answers exchanged (each id keeps its place)."""

    def edit(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        by_id = {m.get("tool_call_id"): m["content"] for m in messages if m.get("role") == "tool"}
        for m in messages:
            if m.get("tool_call_id") in (first, second):
                m["content"] = by_id[second if m["tool_call_id"] == first else first]
        return messages

    return edit_messages(run, edit)


def with_message(run: Observed, index: int, message: dict[str, Any]) -> Observed:
    """`run` with one message more, at `index` of every request."""
    return edit_messages(run, lambda ms: [*ms[:index], dict(message), *ms[index:]])


def with_request(run: Observed, number: int, **fields: Any) -> Observed:
    """`run` with request `number`'s body changed in `fields` (ABSENT removes one)."""
    bodies = [dict(body) for body in run.requests]
    body = {**bodies[number - 1], **fields}
    bodies[number - 1] = {k: v for k, v in body.items() if v is not ABSENT}
    return replace(run, requests=bodies)


def with_first_system(run: Observed, content: str) -> Observed:
    """`run` with request 1's system message (only request 1's) saying `content`."""
    first = copy.deepcopy(dict(run.requests[0]))
    first["messages"][0]["content"] = content
    return replace(run, requests=[first, *run.requests[1:]])


def report_with_status(status: str, explanation: str = "Exits.") -> str:
    """A corrected report whose strings the rejected one lacks are `status` and `explanation` (and none else
    of 8 characters or more)."""
    finding = {
        "kind": "pod",
        "name": PAYMENT,
        "namespace": "production",
        "status": status,
        "cause": "other",
        "explanation": explanation,
        "evidence": [{"text": "FATAL", "tool": "logs"}],
        "fix": "Fix it.",
    }
    return json.dumps({"scope": "production", "findings": [finding]})


BARE_SYSTEM = "You are a Kubernetes troubleshooting agent. Investigate with the tools."
TWO_LINE_FAILURE = f"{ANALYTICS_FAILURE}\nhint: check the image name"
C11_TEXT_OK = "That answer is not JSON: send the report object."
C11_NO_CAUSE = "\n".join(line for line in C11_CORRECTION.splitlines() if "cause" not in line)
C11_NO_STATUS = "\n".join(line for line in C11_CORRECTION.splitlines() if "'status'" not in line)
PARALLEL_LAST = "call_4"
"""c4-parallel-duplicates proposes call_1 .. call_4: call_1 first, call_4 last."""


# -- the cases ---------------------------------------------------------------------------------------

# Each clause row of the table, by item and its row's number there.
CLAUSES = {
    "C1": ["request 1 forces a tool call", "no later request forces one", "no request forces a call while offering no tools"],
    "C2": ["a tool-less first answer gets one further turn", "the next answer is accepted, the run ends without an error"],
    "C3": ["a schema-breaking call never reaches the server", "nor repaired: every server call is a call the model proposed",
           "its answer names every problem's field"],
    "C4": ["a repeat never reaches the server twice", "only an identical call is a repeat",
           "max_repeats repeats end in one tool-less summary request", "the summary's text is the answer"],
    "C5": ["the answer naming an invented pod gets one further turn", "the further turn names it",
           "the next answer is accepted, the run ends without an error"],
    "C6": ["an unknown tool never reaches the server", "its answer gives the tools there are",
           "the unknown tool is not among them"],
    "C7": ["at most max_steps + 1 requests, the last one tool-less", "the summary comes when the budget is spent",
           "one summary request only", "the summary request asks for the summary", "the run ends without an error"],
    "C8": ["no call of the tool reaches the server", "its answer gives the decoder's message", "and the raw arguments"],
    "C9": ["a failed call reached the server once", "nor retried, or replaced, behind the model's back",
           "its answer shows the server's error", "the run ends without an error"],
    "C10": ["each call id answered exactly once", "in call order", "with its own call's result",
            "the whole result, or an excerpt that says it is one"],
    "C11": ["the system prompt describes the report", "the report's format on every request",
            "a report that breaks the schema gets one correction", "naming the errors the report has",
            "the corrected report is accepted"],
    "C12": ["one correction naming each problem", "the corrected report is accepted", "what stays unverified is kept",
            "marked unverified, and the verified quote is not"],
    "C13": ["write tools are not offered", "a write call never reaches the server without approval",
            "the refusal says so and gives the tools there are", "the run ends without an error"],
    "C14": ["no secret the agent holds reaches the model", "secrets in results are redacted first",
            "in any form the model could read back"],
}  # fmt: skip

Case = tuple[str, int, str, Callable[[], Observed]]
"""(item, clause number in its rows, expected verdict, the observation)."""


def case(
    item: str,
    clause: int,
    verdict: str,
    name: str,
    build: Callable[[], Observed],
    *,
    disagrees: str = "",
    **also: str,
) -> Any:
    marks = (
        [pytest.mark.xfail(strict=True, reason=f"judge disagrees with docs/contract.md: {disagrees}")]
        if disagrees
        else []
    )
    return pytest.param(
        item, clause, verdict, build, also, id=f"{item}.{clause}-{verdict}-{name}", marks=marks
    )


F, H = FAILS, HOLDS
NOT_FAILS = "holds or not observable"
_cut3 = lambda text: "\n".join(text.splitlines()[:3])  # noqa: E731

CASES = [
    # C1 -------------------------------------------------------------------------------------------
    case("C1", 1, F, "first-request-auto", lambda: c1_run(first="auto")),
    case("C1", 1, F, "first-request-choice-absent", lambda: c1_run(first=ABSENT)),
    case("C1", 1, F, "allowed-tools-in-auto-mode", lambda: c1_run(first=ALLOWED_AUTO)),
    case("C1", 1, H, "required", lambda: c1_run()),
    case("C1", 1, H, "a-named-function", lambda: c1_run(first=NAMED)),
    case("C1", 1, H, "allowed-tools-in-required-mode", lambda: c1_run(first=ALLOWED_REQUIRED)),
    case("C1", 1, H, "responses-wire-required", lambda: on_responses(c1_run())),
    case("C1", 1, F, "responses-wire-auto", lambda: on_responses(c1_run(first="auto"))),
    case("C1", 1, H, "responses-wire-named-function", lambda: on_responses(c1_run(first=NAMED))),
    case("C1", 2, F, "later-requests-required", lambda: c1_run(later="required")),
    case("C1", 2, F, "later-request-names-a-function", lambda: c1_run(later=NAMED)),
    case("C1", 2, F, "forced-again-after-pushback", lambda: c2_run(choice2="required")),
    case("C1", 2, H, "later-choice-absent", lambda: c1_run(later=ABSENT)),
    case("C1", 2, H, "auto-after-pushback", lambda: c2_run()),
    case("C1", 3, F, "summary-forces-without-tools", lambda: c4_duplicates_run(summary="required-no-tools")),
    case(
        "C1",
        3,
        F,
        "first-request-forces-empty-tools",
        lambda: replace(c1_run(), requests=[{**c1_run().requests[0], "tools": []}, *c1_run().requests[1:]]),
    ),
    case("C1", 3, H, "summary-choice-none-with-tools", lambda: c4_duplicates_run(summary="none")),
    case("C1", 3, H, "summary-no-tools-no-choice", lambda: c4_duplicates_run(summary="absent")),
    # boundaries: which request, which wire
    case(
        "C1",
        1,
        F,
        "forced-from-request-2-not-1",
        lambda: with_request(c1_run(first="auto"), 2, tool_choice="required"),
    ),
    case("C1", 1, F, "request-1-forces-without-tools", lambda: with_request(c1_run(), 1, tools=ABSENT)),
    case("C1", 2, F, "only-request-2-forced", lambda: with_request(c1_run(), 2, tool_choice="required")),
    case(
        "C1", 2, F, "only-the-last-request-forced", lambda: with_request(c1_run(), 3, tool_choice="required")
    ),
    case(
        "C1", 2, F, "responses-wire-later-requests-required", lambda: on_responses(c1_run(later="required"))
    ),
    case("C1", 2, H, "responses-wire-later-choice-absent", lambda: on_responses(c1_run(later=ABSENT))),
    case(
        "C1",
        3,
        F,
        "responses-wire-summary-forces-without-tools",
        lambda: on_responses(c4_duplicates_run(summary="required-no-tools")),
    ),
    case(
        "C1",
        3,
        H,
        "responses-wire-summary-choice-none",
        lambda: on_responses(c4_duplicates_run(summary="none")),
    ),
    case("C1", 3, H, "summary-empty-tools-choice-auto", lambda: c4_duplicates_run(summary="empty-auto")),
    # C2 -------------------------------------------------------------------------------------------
    case(
        "C2",
        1,
        F,
        "tool-less-answer-accepted",
        lambda: replace(
            c2_run(),
            requests=c2_run().requests[:1],
            replies=c2_run().replies[:1],
            answer="Everything looks healthy.",
        ),
    ),
    case("C2", 1, F, "pushback-as-a-system-message", lambda: c2_run(how="system")),
    case("C2", 1, H, "pushback-appended-own-wording", lambda: c2_run()),
    case("C2", 1, H, "question-rewritten-with-pushback", lambda: c2_run(how="rewrite")),
    case("C2", 2, F, "pushed-back-twice", lambda: c2_run(further=True)),
    case("C2", 2, F, "error-after-further-turn", lambda: c2_run(error="AgentError: no tool was called")),
    case("C2", 2, F, "answer-is-the-rejected-one", lambda: c2_run(answer="Everything looks healthy.")),
    case("C2", 2, H, "answer-not-known", lambda: c2_run(answer=None)),
    case(
        "C2",
        2,
        H,
        "answer-holds-next-text",
        lambda: c2_run(answer="Final answer:\nStill healthy, I am sure."),
    ),
    # C3 -------------------------------------------------------------------------------------------
    case("C3", 1, F, "passed-as-it-was", lambda: c3_run(reached=[{"name": PAYMENT, "tail": "fifty"}])),
    case("C3", 1, H, "kept-from-the-server", lambda: c3_run()),
    case("C3", 2, F, "repaired-and-run", lambda: c3_run(reached=[POD])),
    case("C3", 2, F, "repaired-tail-dropped", lambda: c3_run(reached=[{"name": PAYMENT}])),
    case("C3", 2, F, "a-call-nobody-proposed", c1_unproposed_call),
    case("C3", 2, H, "the-model-sends-the-repair-itself", lambda: c3_run(model_fixes=True)),
    case(
        "C3",
        2,
        H,
        "unproposed-after-a-failure-is-C9s",
        lambda: c10_mixed_run(behind=[("get_pod_logs", {**FAILING, "previous": True})]),
        C9=F,
    ),
    case("C3", 3, F, "names-one-field", lambda: c3_run(answer="Rejected: tail must be an integer.")),
    case(
        "C3",
        3,
        F,
        "tail-only-inside-a-word",
        lambda: c3_run(
            answer="Rejected: namespace is a required property; the other problem is in the details."
        ),
    ),
    case(
        "C3",
        3,
        H,
        "fields-in-a-json-answer",
        lambda: c3_run(
            answer=json.dumps(
                {
                    "error": "invalid arguments",
                    "problems": [
                        {"field": "namespace", "problem": "missing"},
                        {"field": "tail", "problem": "not an integer"},
                    ],
                }
            )
        ),
    ),
    case(
        "C3",
        3,
        H,
        "recites-every-parameter",
        lambda: c3_run(
            answer=(
                "Invalid call. get_pod_logs takes name (string, required), namespace (string, required), "
                "tail (integer) and previous (boolean); you gave no namespace and a tail that is no integer."
            )
        ),
    ),
    # C4 -------------------------------------------------------------------------------------------
    case("C4", 1, F, "a-repeat-ran-again", lambda: c4_duplicates_run(server_twice=True)),
    case(
        "C4",
        1,
        F,
        "parallel-repeats-ran",
        lambda: c4_parallel_run(server_order=("list_nodes", "list_nodes", "list_pods")),
    ),
    case(
        "C4",
        1,
        F,
        "key-order-repeat-ran-again",
        lambda: c4_sets_run(
            first=(POD, json.dumps(POD)),
            second={**POD, "tail": 50},
            tool="get_pod_logs",
            third_raw=f'{{"namespace": "production", "name": "{PAYMENT}"}}',
            third_reaches=True,
        ),
    ),
    case("C4", 1, H, "repeats-from-cache", lambda: c4_duplicates_run()),
    case("C4", 1, H, "repeat-answered-by-pointing", lambda: c4_duplicates_run(repeat_answer="pointer")),
    case(
        "C4",
        1,
        H,
        "key-order-repeat-from-cache",
        lambda: c4_sets_run(
            first=(POD, json.dumps(POD)),
            second={**POD, "tail": 50},
            tool="get_pod_logs",
            third_raw=f'{{"namespace": "production", "name": "{PAYMENT}"}}',
        ),
    ),
    case("C4", 2, F, "cache-keyed-by-name", lambda: c4_sets_run(cache_by_name=True)),
    case(
        "C4",
        2,
        F,
        "non-ascii-repeat-ran-again",
        lambda: c4_sets_run(
            first=({"namespace": "café-prod"}, '{"namespace": "caf\\u00e9-prod"}'),
            third_raw='{"namespace": "café-prod"}',
            third_reaches=True,
        ),
    ),
    case("C4", 2, H, "each-argument-set-once", lambda: c4_sets_run()),
    case(
        "C4",
        2,
        H,
        "non-ascii-escaped-or-not",
        lambda: c4_sets_run(
            first=({"namespace": "café-prod"}, '{"namespace": "caf\\u00e9-prod"}'),
            third_raw='{"namespace": "café-prod"}',
        ),
    ),
    case("C4", 3, F, "summary-still-offers-tools", lambda: c4_duplicates_run(summary="offers")),
    case("C4", 3, F, "parallel-summary-still-offers-tools", lambda: c4_parallel_run(summary="offers")),
    case("C4", 3, H, "no-tools-field", lambda: c4_duplicates_run(summary="absent")),
    case("C4", 3, H, "empty-tools-list", lambda: c4_duplicates_run(summary="empty")),
    case("C4", 3, H, "tool-choice-none-with-tools", lambda: c4_duplicates_run(summary="none")),
    case("C4", 3, H, "parallel-round-then-summary", lambda: c4_parallel_run()),
    case(
        "C4",
        4,
        F,
        "own-line-instead-of-summary",
        lambda: c4_duplicates_run(answer="Stopped: the model repeats itself."),
    ),
    case("C4", 4, F, "parallel-own-line", lambda: c4_parallel_run(answer="Too many repeats.")),
    case("C4", 4, H, "answer-not-known", lambda: c4_duplicates_run(answer=None)),
    case(
        "C4",
        4,
        H,
        "summary-inside-the-answer",
        lambda: c4_duplicates_run(answer=f"## Report\n\nSummary: {REPORT}\n"),
    ),
    # boundaries: which repeat ran, which wire, the closest other argument set
    case("C4", 1, F, "the-last-repeat-ran-again", lambda: c4_duplicates_run(server_again=(2,))),
    case("C4", 1, F, "both-repeats-ran-again", lambda: c4_duplicates_run(server_again=(1, 2))),
    case(
        "C4",
        1,
        F,
        "parallel-every-repeat-ran",
        lambda: c4_parallel_run(server_order=("list_nodes",) * 3 + ("list_pods",)),
    ),
    case(
        "C4",
        1,
        H,
        "repeat-without-spaces-from-cache",
        lambda: c4_sets_run(third_raw='{"namespace":"production"}'),
    ),
    case(
        "C4",
        1,
        F,
        "repeat-without-spaces-ran-again",
        lambda: c4_sets_run(third_raw='{"namespace":"production"}', third_reaches=True),
    ),
    case("C4", 1, H, "responses-wire-repeats-from-cache", lambda: on_responses(c4_duplicates_run())),
    case(
        "C4",
        1,
        F,
        "responses-wire-a-repeat-ran-again",
        lambda: on_responses(c4_duplicates_run(server_twice=True)),
    ),
    case(
        "C4",
        2,
        H,
        "previous-false-is-another-call",
        lambda: c4_sets_run(
            first=(POD, json.dumps(POD)), second={**POD, "previous": False}, tool="get_pod_logs"
        ),
    ),
    case(
        "C4",
        2,
        F,
        "previous-false-answered-as-a-repeat",
        lambda: c4_sets_run(
            first=(POD, json.dumps(POD)),
            second={**POD, "previous": False},
            tool="get_pod_logs",
            cache_by_name=True,
        ),
    ),
    case("C4", 2, H, "responses-wire-each-argument-set-once", lambda: on_responses(c4_sets_run())),
    case(
        "C4",
        2,
        F,
        "responses-wire-cache-keyed-by-name",
        lambda: on_responses(c4_sets_run(cache_by_name=True)),
    ),
    case("C4", 3, H, "empty-tools-list-choice-auto", lambda: c4_duplicates_run(summary="empty-auto")),
    case("C4", 3, H, "parallel-tool-choice-none", lambda: c4_parallel_run(summary="none")),
    case("C4", 3, H, "parallel-empty-tools-list", lambda: c4_parallel_run(summary="empty")),
    case(
        "C4", 3, H, "responses-wire-tool-choice-none", lambda: on_responses(c4_duplicates_run(summary="none"))
    ),
    case(
        "C4",
        3,
        F,
        "responses-wire-summary-offers-tools",
        lambda: on_responses(c4_duplicates_run(summary="offers")),
    ),
    case(
        "C4",
        3,
        F,
        "responses-wire-parallel-summary-offers-tools",
        lambda: on_responses(c4_parallel_run(summary="offers")),
    ),
    case("C4", 4, F, "answer-lacks-the-summarys-first-word", lambda: c4_duplicates_run(answer=REPORT)),
    case("C4", 4, H, "parallel-answer-not-known", lambda: c4_parallel_run(answer=None)),
    case(
        "C4",
        4,
        H,
        "parallel-summary-inside-the-answer",
        lambda: c4_parallel_run(answer="Report\n\nSummary.\n"),
    ),
    case("C4", 4, H, "responses-wire-summary-is-the-answer", lambda: on_responses(c4_duplicates_run())),
    case(
        "C4",
        4,
        F,
        "responses-wire-own-line",
        lambda: on_responses(c4_duplicates_run(answer="Stopped: repeats.")),
    ),
    # C5 -------------------------------------------------------------------------------------------
    case("C5", 1, F, "invented-pod-accepted", lambda: c5_run(pushback=None)),
    case("C5", 1, F, "pushback-as-a-system-message", lambda: c5_run(role="system")),
    case("C5", 1, H, "one-pushback", lambda: c5_run()),
    case(
        "C5",
        2,
        F,
        "names-withheld",
        lambda: c5_run(
            pushback="Some names in your answer are in no tool result. Check them with the tools."
        ),
    ),
    case(
        "C5",
        2,
        F,
        "names-only-a-prefix",
        lambda: c5_run(pushback="The billing-api pod is in no tool result. Check it with the tools."),
    ),
    case(
        "C5",
        2,
        H,
        "name-in-backticks",
        lambda: c5_run(pushback=f"I could not find `{INVENTED}` in any tool output; look it up or drop it."),
    ),
    case(
        "C5",
        2,
        H,
        "name-in-a-json-message",
        lambda: c5_run(pushback=json.dumps({"unverified_names": [INVENTED], "hint": "use list_pods"})),
    ),
    case("C5", 3, F, "pushed-back-twice", lambda: c5_run(further=True)),
    case("C5", 3, F, "error-after-further-turn", lambda: c5_run(error="AgentError: invented names")),
    case("C5", 3, F, "answer-is-the-rejected-one", lambda: c5_run(answer=C5_FIRST)),
    case("C5", 3, H, "answer-not-known", lambda: c5_run(answer=None)),
    # C6 -------------------------------------------------------------------------------------------
    case("C6", 1, F, "forwarded-to-the-server", lambda: c6_run(forwarded=True)),
    case("C6", 1, H, "kept-from-the-server", lambda: c6_run()),
    case("C6", 2, F, "no-list", lambda: c6_run(answer="Unknown tool: delete_pod.")),
    case(
        "C6",
        2,
        F,
        "list-lacks-one-tool",
        lambda: c6_run(answer=unknown_tool_message("delete_pod", READ[:-1])),
    ),
    case(
        "C6",
        2,
        F,
        "tool-not-named",
        lambda: c6_run(answer=f"No such tool. The tools you can call: {', '.join(READ)}."),
    ),
    case(
        "C6",
        2,
        H,
        "one-name-a-line",
        lambda: c6_run(answer="delete_pod does not exist here. Available:\n" + "\n".join(READ)),
    ),
    case(
        "C6",
        2,
        H,
        "bullets",
        lambda: c6_run(
            answer="Tool 'delete_pod' is unknown.\nAvailable tools:\n" + "\n".join(f"  * {n}" for n in READ)
        ),
    ),
    case(
        "C6",
        2,
        H,
        "json-array",
        lambda: c6_run(
            answer=json.dumps({"error": "unknown tool", "tool": "delete_pod", "available": list(READ)})
        ),
    ),
    case(
        "C6",
        2,
        H,
        "or-list",
        lambda: c6_run(answer=f"delete_pod is not a tool here. Use {', '.join(READ[:-1])} or {READ[-1]}."),
    ),
    case(
        "C6",
        3,
        F,
        "listed-along-a-line",
        lambda: c6_run(answer=f"Unknown tool delete_pod. Tools: delete_pod, {', '.join(READ)}."),
    ),
    case(
        "C6",
        3,
        F,
        "listed-last-after-and",
        lambda: c6_run(answer=f"Unknown tool delete_pod. Tools: {', '.join(READ)} and delete_pod."),
    ),
    case(
        "C6",
        3,
        F,
        "listed-down-the-lines",
        lambda: c6_run(
            answer="Unknown tool delete_pod. Tools:\n" + "\n".join(f"- {n}" for n in ("delete_pod", *READ))
        ),
    ),
    case(
        "C6",
        3,
        F,
        "in-the-json-array",
        lambda: c6_run(
            answer=json.dumps({"error": "unknown tool delete_pod", "tools": ["delete_pod", *READ]})
        ),
    ),
    case("C6", 3, H, "named-apart-from-the-list", lambda: c6_run()),
    # C7 -------------------------------------------------------------------------------------------
    case("C7", 1, H, "exactly-max-steps-plus-one", lambda: c7_run()),
    case("C7", 1, F, "one-more-step-max-steps-plus-two", lambda: c7_run(extra_step=True)),
    case("C7", 1, F, "last-request-offers-tools", lambda: c7_run(summary="offers")),
    case("C7", 1, F, "budget-2-for-these-4-requests", lambda: c7_run(max_steps=2)),
    case("C7", 1, H, "tool-choice-none-with-tools", lambda: c7_run(summary="none")),
    case("C7", 2, F, "summary-before-the-budget-is-spent", lambda: c7_run(max_steps=4)),
    case("C7", 2, F, "answer-is-not-the-summary", lambda: c7_run(answer="Step limit reached.")),
    case("C7", 2, H, "answer-holds-the-summary", lambda: c7_run(answer="Findings\n\nSummary.\n")),
    case("C7", 3, F, "two-summary-requests", lambda: c7_run(summaries=2)),
    case("C7", 3, H, "one-summary-request", lambda: c7_run()),
    case("C7", 4, F, "no-new-message", lambda: c7_run(role=None)),
    case("C7", 4, H, "developer-message", lambda: c7_run(role="developer")),
    case("C7", 4, H, "system-message", lambda: c7_run(role="system")),
    case("C7", 5, F, "error-at-the-limit", lambda: c7_run(error="MaxTurnsExceeded: 3")),
    case("C7", 5, H, "no-error", lambda: c7_run(summary="empty")),
    # boundaries: the budget spent exactly or not, one summary request or more, the wire
    case("C7", 1, H, "budget-4-spent-exactly", lambda: c7_run(max_steps=4, extra_step=True)),
    case(
        "C7",
        1,
        F,
        "budget-4-last-request-offers-tools",
        lambda: c7_run(max_steps=4, extra_step=True, summary="offers"),
    ),
    case("C7", 1, H, "empty-tools-list", lambda: c7_run(summary="empty")),
    case("C7", 1, H, "responses-wire-max-steps-plus-one", lambda: on_responses(c7_run())),
    case("C7", 1, F, "responses-wire-one-more-step", lambda: on_responses(c7_run(extra_step=True))),
    case(
        "C7", 1, F, "responses-wire-last-request-offers-tools", lambda: on_responses(c7_run(summary="offers"))
    ),
    case("C7", 1, H, "responses-wire-tool-choice-none", lambda: on_responses(c7_run(summary="none"))),
    case("C7", 2, H, "budget-4-summary-after-the-fourth-step", lambda: c7_run(max_steps=4, extra_step=True)),
    case("C7", 2, F, "budget-5-summary-after-four-steps", lambda: c7_run(max_steps=5, extra_step=True)),
    case("C7", 2, H, "answer-not-known", lambda: c7_run(answer=None)),
    case("C7", 3, F, "three-summary-requests", lambda: c7_run(summaries=3)),
    case("C7", 3, F, "responses-wire-two-summary-requests", lambda: on_responses(c7_run(summaries=2))),
    case("C7", 3, H, "responses-wire-one-summary-request", lambda: on_responses(c7_run(summary="empty"))),
    case("C7", 4, F, "instruction-one-request-too-soon", lambda: c7_run(early=True)),
    case("C7", 4, F, "instruction-as-an-assistant-message", lambda: c7_run(role="assistant")),
    case("C7", 4, H, "instruction-says-anything", lambda: c7_run(instruction="Continue.")),
    case("C7", 4, H, "responses-wire-developer-message", lambda: on_responses(c7_run(role="developer"))),
    case("C7", 4, F, "responses-wire-no-new-message", lambda: on_responses(c7_run(role=None))),
    case("C7", 5, F, "error-after-the-summary-answer", lambda: c7_run(error="exit status 1")),
    case(
        "C7",
        5,
        F,
        "responses-wire-error-at-the-limit",
        lambda: on_responses(c7_run(error="MaxTurnsExceeded: 3")),
    ),
    case("C7", 5, H, "responses-wire-no-error", lambda: on_responses(c7_run())),
    # C8 -------------------------------------------------------------------------------------------
    case("C8", 1, F, "run-with-empty-arguments", lambda: c8_run(reached={})),
    case("C8", 1, F, "run-with-guessed-arguments", lambda: c8_run(reached=POD)),
    case("C8", 1, H, "kept-from-the-server", lambda: c8_run()),
    case("C8", 1, H, "a-later-valid-call-of-the-tool-runs", lambda: c8_run(model_describes=True)),
    case("C8", 2, F, "raw-only", lambda: c8_run(answer="Could not use these arguments: {not-json")),
    case("C8", 2, H, "unterminated", lambda: c8_run(answer="unterminated object at offset 1; got {not-json")),
    case(
        "C8",
        2,
        H,
        "go-decoder-message",
        lambda: c8_run(answer="invalid character 'n' looking for beginning of object key string: {not-json"),
    ),
    case(
        "C8",
        3,
        F,
        "no-raw-arguments",
        lambda: c8_run(answer="Your arguments are not valid JSON; send a JSON object."),
    ),
    case(
        "C8",
        3,
        H,
        "raw-in-a-json-answer",
        lambda: c8_run(
            answer=json.dumps(
                {"error": "JSON decode error: Expecting property name", "arguments": "{not-json"}
            )
        ),
    ),
    # boundaries: the wire, the decoder's words, the raw arguments to the character
    case("C8", 1, F, "responses-wire-run-with-empty-arguments", lambda: on_responses(c8_run(reached={}))),
    case("C8", 1, H, "responses-wire-kept-from-the-server", lambda: on_responses(c8_run())),
    case("C8", 2, F, "says-only-invalid", lambda: c8_run(answer="Invalid arguments: {not-json")),
    case(
        "C8", 2, H, "decode-in-capitals", lambda: c8_run(answer="COULD NOT DECODE THE ARGUMENTS: {not-json")
    ),
    case("C8", 2, H, "json-inside-a-word", lambda: c8_run(answer="JSONDecodeError: {not-json")),
    case("C8", 3, F, "raw-arguments-short-of-one-character", lambda: c8_run(answer=C8_ANSWER[:-1])),
    case(
        "C8",
        3,
        H,
        "raw-arguments-in-quotes",
        lambda: c8_run(answer=C8_ANSWER.replace(": {not-json", ": '{not-json'")),
    ),
    # C9 -------------------------------------------------------------------------------------------
    case("C9", 1, F, "retried-silently", lambda: c9_run(behind=[("get_pod_logs", FAILING)])),
    case("C9", 1, H, "reached-once", lambda: c9_run()),
    case(
        "C9",
        2,
        F,
        "retried-with-other-arguments",
        lambda: c9_run(behind=[("get_pod_logs", {**FAILING, "previous": True})]),
        C3=NOT_FAILS,
    ),
    case(
        "C9",
        2,
        F,
        "replaced-by-another-tool",
        lambda: c9_run(behind=[("describe_pod", FAILING)]),
        C3=NOT_FAILS,
    ),
    case(
        "C9",
        2,
        F,
        "mixed-round-retried-behind-its-back",
        lambda: c10_mixed_run(behind=[("get_pod_logs", {**FAILING, "previous": True})]),
        C3=H,
    ),
    case("C9", 2, H, "nothing-behind-its-back", lambda: c9_run()),
    case("C9", 2, H, "the-model-retries-itself", lambda: c9_run(model_retries=True)),
    case("C9", 3, F, "failure-without-the-error", lambda: c9_run(answer=lambda e: "Tool call failed.")),
    case(
        "C9",
        3,
        F,
        "only-the-framing",
        lambda: c9_run(
            answer=lambda e: "Error executing tool get_pod_logs:",
            server_text=f"Error executing tool get_pod_logs: {ANALYTICS_FAILURE}",
        ),
    ),
    case("C9", 3, H, "error-in-a-json-answer", lambda: c9_run(answer=lambda e: json.dumps({"error": e}))),
    case(
        "C9",
        3,
        H,
        "framing-dropped",
        lambda: c9_run(
            answer=lambda e: f"The call failed: {e}",
            server_text=f"Error executing tool get_pod_logs: {ANALYTICS_FAILURE}",
        ),
    ),
    case("C9", 4, F, "run-ends-in-error", lambda: c9_run(error="exit status 1")),
    case("C9", 4, H, "run-goes-on", lambda: c9_run()),
    # boundaries: one retry or two, the wire, the error's first line
    case("C9", 1, F, "retried-twice-silently", lambda: c9_run(behind=[("get_pod_logs", FAILING)] * 2)),
    case(
        "C9",
        1,
        F,
        "responses-wire-retried-silently",
        lambda: on_responses(c9_run(behind=[("get_pod_logs", FAILING)])),
    ),
    case("C9", 1, H, "responses-wire-reached-once", lambda: on_responses(c9_run())),
    case("C9", 3, H, "first-line-of-a-two-line-error", lambda: c9_run(server_text=TWO_LINE_FAILURE)),
    case(
        "C9",
        3,
        F,
        "second-line-only-of-a-two-line-error",
        lambda: c9_run(
            server_text=TWO_LINE_FAILURE, answer=lambda e: "Tool call failed (hint: check the image name)"
        ),
    ),
    # C10 ------------------------------------------------------------------------------------------
    case("C10", 1, F, "answered-twice", lambda: c4_parallel_run(twice=True)),
    case("C10", 1, F, "a-call-never-answered", lambda: c4_parallel_run(unanswered=True)),
    case("C10", 1, F, "a-message-before-the-answers", lambda: c4_parallel_run(interleaved=True)),
    case("C10", 1, F, "mixed-round-abandoned", lambda: c10_mixed_run(unanswered=True)),
    case("C10", 1, H, "mixed-round-all-answered", lambda: c10_mixed_run()),
    case("C10", 1, H, "responses-wire-paired-by-call-id", lambda: on_responses(c4_parallel_run())),
    case("C10", 2, F, "reversed", lambda: c4_parallel_run(order=(3, 2, 1, 0))),
    case("C10", 2, F, "responses-wire-crossed-call-ids", crossed_call_ids),
    case(
        "C10",
        2,
        H,
        "server-ran-them-in-another-order",
        lambda: c4_parallel_run(server_order=("list_pods", "list_nodes")),
    ),
    case("C10", 3, F, "rotated", lambda: c4_parallel_run(rotate=True)),
    case("C10", 3, F, "a-repeat-holds-another-calls-result", lambda: c4_parallel_run(repeat_gets_pods=True)),
    case("C10", 3, H, "others-results-beside-its-own", lambda: c4_parallel_run(beside=True)),
    case("C10", 3, H, "repeat-answered-by-pointing", lambda: c4_duplicates_run(repeat_answer="pointer")),
    case("C10", 4, F, "first-three-lines-unsaid", lambda: c1_answers(_cut3)),
    case(
        "C10",
        4,
        F,
        "redacted-line-dropped",
        lambda: c14_run(
            logs="\n".join(
                line for line in SECRET_LOGS.splitlines() if BEARER not in line and PASSWORD not in line
            )
        ),
    ),
    case(
        "C10",
        4,
        F,
        "url-password-mark-of-41-characters",
        lambda: c14_run(logs=redacted(SECRET_LOGS, {PASSWORD: mark_of(41)})),
    ),
    case(
        "C10",
        4,
        F,
        "line-end-token-mark-of-41-characters",
        lambda: c14_run(describe=redacted(SECRET_DESCRIBE, default=mark_of(41))),
    ),
    case(
        "C10",
        4,
        F,
        "not-a-secret-redacted",
        lambda: c14_run(
            describe=redacted(SECRET_DESCRIBE).replace(
                "DB_NAME:                payments", "DB_NAME:                [REDACTED]"
            )
        ),
    ),
    case("C10", 4, H, "whole-result", lambda: c1_answers(lambda text: text)),
    case(
        "C10",
        4,
        H,
        "labelled-excerpt",
        lambda: c1_answers(lambda text: "\n".join(text.splitlines()[2:]) + "\n… (first 2 lines omitted)"),
    ),
    case(
        "C10",
        4,
        H,
        "labelled-head",
        lambda: c1_answers(lambda text: _cut3(text) + "\n[truncated: 2 more lines]"),
    ),
    case(
        "C10", 4, H, "result-sent-json-encoded", lambda: c1_answers(lambda text: json.dumps({"result": text}))
    ),
    case(
        "C10",
        4,
        H,
        "whitespace-shifted",
        lambda: c1_answers(lambda text: "\n".join(" ".join(line.split()) for line in text.splitlines())),
    ),
    case(
        "C10",
        4,
        H,
        "mark-of-40-characters",
        lambda: c14_run(describe=redacted(SECRET_DESCRIBE, default=mark_of(40))),
    ),
    case(
        "C10",
        4,
        H,
        "url-password-mark-of-40-characters",
        lambda: c14_run(logs=redacted(SECRET_LOGS, {PASSWORD: mark_of(40)})),
    ),
    case(
        "C10",
        4,
        H,
        "marks-of-its-own",
        lambda: c14_run(
            describe=redacted(SECRET_DESCRIBE, {ENV_TOKEN: "•••"}),
            logs=redacted(SECRET_LOGS, {BEARER: "<token hidden>", PASSWORD: "****"}),
        ),
    ),
    case(
        "C10",
        4,
        H,
        "authorization-value-redacted-whole",
        lambda: c14_run(
            logs=redacted(SECRET_LOGS).replace("Authorization: Bearer [REDACTED]", "Authorization: (removed)")
        ),
    ),
    case(
        "C10",
        4,
        H,
        "value-line-under-a-token-name",
        lambda: c14_run(
            server_describe=SECRET_DESCRIBE_YAML, describe=redacted(SECRET_DESCRIBE_YAML, default="[hidden]")
        ),
    ),
    case("C10", 4, H, "long-token-redacted", lambda: _long_token_run()),
    # boundaries: the first and the last call of a round, the first and a later request, the wire,
    # a mark of 1 and of 0 characters, a token of 24 and of 23
    case("C10", 1, F, "the-first-call-answered-twice", lambda: answered_twice(c4_parallel_run(), "call_1")),
    case(
        "C10", 1, F, "the-last-call-answered-twice", lambda: answered_twice(c4_parallel_run(), PARALLEL_LAST)
    ),
    case("C10", 1, F, "the-first-call-never-answered", lambda: without_answer(c4_parallel_run(), "call_1")),
    case(
        "C10",
        1,
        F,
        "mixed-round-first-call-unanswered-run-goes-on",
        lambda: without_answer(c10_mixed_run(), "call_1"),
    ),
    case(
        "C10",
        1,
        F,
        "mixed-round-last-call-unanswered-run-goes-on",
        lambda: without_answer(c10_mixed_run(), "call_6"),
    ),
    case("C10", 1, F, "a-later-call-reuses-an-id", lambda: c1_run(reuse_id=True)),
    case("C10", 1, H, "one-call-a-round-each-answered-once", lambda: c1_run()),
    case("C10", 1, H, "previous-logs-under-an-id-of-their-own", lambda: c10_previous_logs_run()),
    case(
        "C10",
        1,
        F,
        "previous-logs-reuse-the-first-calls-id",
        lambda: c10_previous_logs_run(reuse_id=True),
    ),
    case(
        "C10",
        1,
        F,
        "responses-wire-the-last-call-answered-twice",
        lambda: on_responses(answered_twice(c4_parallel_run(), PARALLEL_LAST)),
    ),
    case(
        "C10",
        1,
        F,
        "responses-wire-a-call-never-answered",
        lambda: on_responses(without_answer(c4_parallel_run(), "call_1")),
    ),
    case("C10", 1, H, "responses-wire-mixed-round-all-answered", lambda: on_responses(c10_mixed_run())),
    case("C10", 2, F, "the-first-two-swapped", lambda: c4_parallel_run(order=(1, 0, 2, 3))),
    case("C10", 2, F, "the-last-two-swapped", lambda: c4_parallel_run(order=(0, 1, 3, 2))),
    case(
        "C10",
        2,
        F,
        "responses-wire-the-last-two-swapped",
        lambda: on_responses(c4_parallel_run(order=(0, 1, 3, 2))),
    ),
    case(
        "C10",
        2,
        H,
        "responses-wire-server-ran-them-in-another-order",
        lambda: on_responses(c4_parallel_run(server_order=("list_pods", "list_nodes"))),
    ),
    case(
        "C10",
        3,
        F,
        "the-first-and-last-answers-swapped",
        lambda: swapped_answers(c4_parallel_run(), "call_1", PARALLEL_LAST),
    ),
    case(
        "C10",
        3,
        F,
        "the-later-call-answered-with-the-earlier-result",
        lambda: c1_answers(lambda text: PODS, which=1),
    ),
    case(
        "C10",
        3,
        H,
        "result-behind-a-parameters-prefix",
        lambda: c1_answers(
            lambda text: (
                f"Params used for the tool call: {json.dumps(NS)}. The tool call output follows on the next line.\n{text}"
            )
        ),
    ),
    case(
        "C10",
        3,
        F,
        "responses-wire-the-first-and-last-answers-swapped",
        lambda: on_responses(swapped_answers(c4_parallel_run(), "call_1", PARALLEL_LAST)),
    ),
    case(
        "C10",
        3,
        H,
        "responses-wire-others-results-beside-its-own",
        lambda: on_responses(c4_parallel_run(beside=True)),
    ),
    case("C10", 4, F, "the-later-result-cut", lambda: c1_answers(_cut3, which=1)),
    case(
        "C10",
        4,
        H,
        "the-later-result-labelled-head",
        lambda: c1_answers(lambda text: _cut3(text) + "\n[truncated]", which=1),
    ),
    case("C10", 4, F, "says-excerpt-shows-nothing", lambda: c1_answers(lambda text: "(output truncated)")),
    case(
        "C10", 4, H, "excerpt-word-in-capitals", lambda: c1_answers(lambda text: _cut3(text) + "\nTRUNCATED")
    ),
    case(
        "C10",
        4,
        H,
        "excerpt-said-with-cut-and-a-space",
        lambda: c1_answers(lambda text: _cut3(text) + "\n(cut at 3 lines)"),
    ),
    case(
        "C10",
        4,
        F,
        "cut-without-the-space-is-no-excerpt-word",
        lambda: c1_answers(lambda text: _cut3(text) + "\n(the rest was cut)"),
    ),
    case(
        "C10",
        4,
        H,
        "mark-of-1-character",
        lambda: c14_run(describe=redacted(SECRET_DESCRIBE, default=mark_of(1))),
    ),
    case(
        "C10",
        4,
        H,
        "url-password-mark-of-1-character",
        lambda: c14_run(logs=redacted(SECRET_LOGS, {PASSWORD: mark_of(1)})),
    ),
    case(
        "C10",
        4,
        F,
        "url-password-removed-without-a-mark",
        lambda: c14_run(logs=redacted(SECRET_LOGS, {PASSWORD: ""})),
    ),
    case(
        "C10",
        4,
        F,
        "line-end-token-removed-without-a-mark",
        lambda: c14_run(describe=redacted(SECRET_DESCRIBE, default="")),
    ),
    case("C10", 4, H, "token-of-24-characters-redacted", lambda: _long_token_run("9f8e7d6c5b4a39281706f5e4")),
    case("C10", 4, F, "token-of-23-characters-redacted", lambda: _long_token_run("9f8e7d6c5b4a39281706f5e")),
    case("C10", 4, H, "responses-wire-whole-result", lambda: on_responses(c1_answers(lambda text: text))),
    case("C10", 4, F, "responses-wire-first-three-lines-unsaid", lambda: on_responses(c1_answers(_cut3))),
    # C11 ------------------------------------------------------------------------------------------
    case(
        "C11", 1, F, "asks-json-without-describing", lambda: c11_run(system="Answer with a JSON object only.")
    ),
    case(
        "C11",
        1,
        F,
        "findings-and-one-field",
        lambda: c11_run(system="Answer with a JSON object whose findings list the unhealthy pods by name."),
    ),
    case(
        "C11",
        1,
        F,
        "json-text-mode-silent",
        lambda: c11_run(scenario=sc.C11_TEXT.name, system="Reply in JSON."),
    ),
    case("C11", 1, H, "developer-role", lambda: c11_run(system_role="developer")),
    case(
        "C11",
        1,
        H,
        "json-text-mode",
        lambda: c11_run(
            scenario=sc.C11_TEXT.name, correction="That answer is not JSON: send the report object."
        ),
    ),
    case("C11", 1, H, "responses-wire-instructions", lambda: on_responses(c11_run())),
    case("C11", 1, UNOBSERVABLE, "subject-asks-for-prose", lambda: c11_run(structured=False, system=SYSTEM)),
    case("C11", 2, F, "dropped-after-the-correction", lambda: c11_run(formats=(1, 2, 3))),
    case("C11", 2, F, "never-sent", lambda: c11_run(formats=())),
    case("C11", 2, H, "on-every-request", lambda: c11_run()),
    case("C11", 3, F, "broken-report-accepted", lambda: c11_run(corrected=False)),
    case("C11", 3, F, "correction-as-a-system-message", lambda: c11_run(correction_role="system")),
    case("C11", 3, H, "one-user-correction", lambda: c11_run()),
    case(
        "C11",
        4,
        F,
        "first-error-only",
        lambda: c11_run(correction="findings[0]: 'status' is a required property."),
    ),
    case("C11", 4, F, "vague", lambda: c11_run(correction="Your report does not fit the schema. Try again.")),
    case(
        "C11",
        4,
        F,
        "json-text-not-said-to-be-json",
        lambda: c11_run(
            scenario=sc.C11_TEXT.name,
            correction="Please reply with the report described in your instructions.",
        ),
    ),
    case(
        "C11",
        4,
        H,
        "recites-every-required-field",
        lambda: c11_run(
            correction=(
                "Invalid report. Every finding needs name, status, cause (crash_config, image_pull, oom_killed, pending "
                "or other), explanation, evidence and fix."
            )
        ),
    ),
    case(
        "C11",
        4,
        H,
        "errors-as-json",
        lambda: c11_run(
            correction=json.dumps(
                {
                    "schema_errors": [
                        {"path": "findings.0.status", "message": "required"},
                        {"path": "findings.0.explanation", "message": "required"},
                        {"path": "findings.0.evidence", "message": "required"},
                        {"path": "findings.0.fix", "message": "required"},
                        {
                            "path": "findings.0.cause",
                            "message": "'crashing' is not one of the allowed causes",
                        },
                    ]
                }
            )
        ),
    ),
    case(
        "C11",
        4,
        H,
        "json-text-not-json",
        lambda: c11_run(
            scenario=sc.C11_TEXT.name, correction="That answer is not JSON: send the report object."
        ),
    ),
    case("C11", 5, F, "asks-again", lambda: c11_run(further=True)),
    case("C11", 5, F, "error-after-correction", lambda: c11_run(error="ReportError: still invalid")),
    case("C11", 5, F, "answer-repeats-the-rejected-report", lambda: c11_run(answer=REJECTED)),
    case("C11", 5, H, "corrected-report-shown", lambda: c11_run()),
    case(
        "C11",
        5,
        H,
        "corrected-report-as-indented-json",
        lambda: c11_run(answer=json.dumps(json.loads(CORRECTED), indent=2)),
    ),
    case("C11", 5, H, "answer-not-known", lambda: c11_run(answer=None)),
    # boundaries: one field or two, request 1 or later, the exact request a format is missing on,
    # every error but one, a new value of 8 characters or 7, the wire
    case(
        "C11",
        1,
        H,
        "findings-and-two-fields-name-and-status",
        lambda: c11_run(
            system="Answer with a JSON object whose findings give each unhealthy pod's name and status."
        ),
    ),
    case(
        "C11",
        1,
        H,
        "findings-and-two-fields-status-and-cause",
        lambda: c11_run(
            system="Answer with a JSON object whose findings give each unhealthy pod's status and cause."
        ),
    ),
    case(
        "C11",
        1,
        F,
        "findings-and-status-only",
        lambda: c11_run(system="Answer with a JSON object whose findings give each unhealthy pod's status."),
    ),
    case(
        "C11",
        1,
        F,
        "fields-without-findings",
        lambda: c11_run(
            system="Answer with a JSON object: for each unhealthy pod its name, status, cause, explanation, evidence and fix."
        ),
    ),
    case("C11", 1, F, "described-in-a-user-message", lambda: c11_run(system_role="user")),
    case(
        "C11",
        1,
        F,
        "described-only-from-request-2",
        lambda: with_first_system(c11_run(), "Answer with a JSON object only."),
    ),
    case(
        "C11",
        1,
        H,
        "described-in-a-second-developer-message",
        lambda: with_message(
            c11_run(system=BARE_SYSTEM), 1, {"role": "developer", "content": STRUCTURED_SYSTEM}
        ),
    ),
    case(
        "C11",
        1,
        H,
        "responses-wire-developer-message-after-instructions",
        lambda: on_responses(
            with_message(c11_run(system=BARE_SYSTEM), 1, {"role": "developer", "content": STRUCTURED_SYSTEM})
        ),
    ),
    case(
        "C11",
        1,
        F,
        "responses-wire-instructions-silent",
        lambda: on_responses(c11_run(system="Answer with a JSON object only.")),
    ),
    case("C11", 2, F, "missing-on-request-1", lambda: c11_run(formats=(2, 3, 4))),
    case("C11", 2, F, "missing-on-request-3", lambda: c11_run(formats=(1, 2, 4))),
    case(
        "C11",
        2,
        F,
        "another-format-on-the-correction",
        lambda: with_request(c11_run(), 4, response_format={"type": "json_object"}),
    ),
    case("C11", 2, H, "responses-wire-text-format-on-every-request", lambda: on_responses(c11_run())),
    case(
        "C11",
        2,
        F,
        "responses-wire-dropped-after-the-correction",
        lambda: on_responses(c11_run(formats=(1, 2, 3))),
    ),
    case("C11", 3, F, "correction-as-a-developer-message", lambda: c11_run(correction_role="developer")),
    case(
        "C11",
        3,
        H,
        "json-text-one-user-correction",
        lambda: c11_run(scenario=sc.C11_TEXT.name, correction=C11_TEXT_OK),
    ),
    case(
        "C11",
        3,
        F,
        "json-text-broken-report-accepted",
        lambda: c11_run(scenario=sc.C11_TEXT.name, corrected=False, answer=REPORT),
    ),
    case("C11", 3, H, "responses-wire-one-user-correction", lambda: on_responses(c11_run())),
    case(
        "C11", 3, F, "responses-wire-broken-report-accepted", lambda: on_responses(c11_run(corrected=False))
    ),
    case("C11", 4, F, "every-error-but-cause", lambda: c11_run(correction=C11_NO_CAUSE)),
    case("C11", 4, F, "every-error-but-status", lambda: c11_run(correction=C11_NO_STATUS)),
    case(
        "C11",
        4,
        H,
        "json-text-lowercase-parse-error",
        lambda: c11_run(
            scenario=sc.C11_TEXT.name,
            correction="Could not parse your answer as json: Expecting value: line 1 column 1 (char 0)",
        ),
    ),
    case("C11", 4, H, "responses-wire-every-error", lambda: on_responses(c11_run())),
    case(
        "C11",
        4,
        F,
        "responses-wire-first-error-only",
        lambda: on_responses(c11_run(correction="findings[0]: 'status' is a required property.")),
    ),
    case(
        "C11",
        5,
        H,
        "answer-shows-a-new-value-of-8-characters",
        lambda: c11_run(report=report_with_status("Degraded"), answer=f"{PAYMENT} (production): Degraded"),
    ),
    case(
        "C11",
        5,
        F,
        "answer-shows-a-new-value-of-7-characters-only",
        lambda: c11_run(
            report=report_with_status("Stalled", "Exits at start-up."),
            answer=f"{PAYMENT} (production): Stalled",
        ),
    ),
    case(
        "C11",
        5,
        F,
        "no-new-value-of-8-characters-and-the-rejected-report-answered",
        lambda: c11_run(report=report_with_status("Stalled"), answer=REJECTED),
    ),
    case("C11", 5, H, "responses-wire-corrected-report-shown", lambda: on_responses(c11_run())),
    case("C11", 5, F, "responses-wire-asks-again", lambda: on_responses(c11_run(further=True))),
    case(
        "C11",
        5,
        F,
        "json-text-asks-again",
        lambda: c11_run(scenario=sc.C11_TEXT.name, correction=C11_TEXT_OK, further=True),
    ),
    # C12 ------------------------------------------------------------------------------------------
    case(
        "C12",
        1,
        F,
        "quote-only",
        lambda: c12_fabricated_run(correction=f'The quote "{FABRICATED}" appears in no tool output.'),
    ),
    case(
        "C12",
        1,
        F,
        "pod-only",
        lambda: c12_fabricated_run(correction=f"{INVENTED} was never returned by a tool."),
    ),
    case(
        "C12",
        1,
        F,
        "quote-cut-at-23-characters",
        lambda: c12_fabricated_run(
            correction=f'Unverified: the quote "{FABRICATED[:23]}..." and the pod {INVENTED}.'
        ),
    ),
    case(
        "C12",
        1,
        H,
        "quote-cut-at-24-characters",
        lambda: c12_fabricated_run(
            correction=f'Unverified: the quote "{FABRICATED[:24]}..." and the pod {INVENTED}.'
        ),
    ),
    case(
        "C12",
        1,
        H,
        "problems-as-json",
        lambda: c12_fabricated_run(
            correction=json.dumps({"unverified_quotes": [FABRICATED], "unknown_pods": [INVENTED]})
        ),
    ),
    case("C12", 1, H, "whole-quote-and-pod", lambda: c12_fabricated_run()),
    case("C12", 2, F, "asks-again", lambda: c12_fabricated_run(further=True)),
    case(
        "C12",
        2,
        F,
        "error-after-correction",
        lambda: c12_fabricated_run(error="ReportError: unverified quotes"),
    ),
    case(
        "C12",
        2,
        F,
        "answer-repeats-the-rejected-report",
        lambda: c12_kept_run(answer=shown(f'Evidence (unverified): "{FABRICATED}"')),
    ),
    case("C12", 2, H, "answer-not-known", lambda: c12_fabricated_run(answer=None)),
    case("C12", 2, H, "corrected-report-shown", lambda: c12_fabricated_run()),
    case(
        "C12", 3, F, "unverified-quote-dropped", lambda: c12_kept_run(answer=shown(f'Evidence: "{LOG_LINE}"'))
    ),
    case("C12", 3, H, "kept-and-marked", lambda: c12_kept_run()),
    case(
        "C12",
        4,
        F,
        "unmarked",
        lambda: c12_kept_run(answer=shown(f'Evidence: "{LOG_LINE}"', f'Evidence: "{FABRICATED}"')),
    ),
    case(
        "C12",
        4,
        F,
        "both-marked",
        lambda: c12_kept_run(
            answer=shown(f'Evidence (unverified): "{LOG_LINE}"', f'Evidence (unverified): "{FABRICATED}"')
        ),
    ),
    case(
        "C12",
        4,
        F,
        "marks-swapped",
        lambda: c12_kept_run(
            answer=shown(f'Evidence (not verified): "{LOG_LINE}"', f'Evidence (checked): "{FABRICATED}"')
        ),
    ),
    case("C12", 4, F, "json-unmarked", lambda: c12_kept_run(answer=json_answer({}, {}))),
    case(
        "C12",
        4,
        H,
        "json-verified-false",
        lambda: c12_kept_run(answer=json_answer({"verified": False}, {"verified": True})),
    ),
    case(
        "C12", 4, H, "json-unverified-key", lambda: c12_kept_run(answer=json_answer({"unverified": True}, {}))
    ),
    case(
        "C12", 4, H, "cross-mark", lambda: c12_kept_run(answer=shown(f'✓ "{LOG_LINE}"', f'✗ "{FABRICATED}"'))
    ),
    case(
        "C12",
        4,
        H,
        "unproven",
        lambda: c12_kept_run(answer=shown(f'Evidence: "{LOG_LINE}"', f'Evidence, unproven: "{FABRICATED}"')),
    ),
    case(
        "C12",
        4,
        H,
        "indented-json-plus-lines",
        lambda: c12_kept_run(
            answer=json_answer({"verified": False}, {"verified": True}) + f"\nUNVERIFIED: {FABRICATED}"
        ),
    ),
    # C13 ------------------------------------------------------------------------------------------
    case("C13", 1, F, "delete-pod-offered", lambda: c13_run(offered=offered_with(tool_def("delete_pod")))),
    case(
        "C13",
        1,
        F,
        "restart-pod-offered-with-a-prefix",
        lambda: c13_run(
            offered=with_descriptions(
                offered_with(tool_def("mock_cluster__restart_pod"), prefix="mock_cluster__"), "mock_cluster__"
            ),
            prefix="mock_cluster__",
            refusal=REFUSAL.replace("Tools you can call: ", "Tools you can call: mock_cluster__").replace(
                ", ", ", mock_cluster__"
            ),
        ),
    ),
    case(
        "C13",
        1,
        F,
        "offered-under-another-name",
        lambda: c13_run(
            offered=offered_with(tool_def("remove_workload", WRITE_TOOLS["delete_pod"], WRITE_SCHEMA))
        ),
    ),
    case("C13", 1, H, "read-tools-only", lambda: c13_run()),
    case(
        "C13",
        1,
        H,
        "read-tools-prefixed",
        lambda: c13_run(
            prefix="mock_cluster__",
            proposed_as="mock_cluster__delete_pod",
            refusal=refusal_with("Refused: this agent may only read.", [f"mock_cluster__{n}" for n in READ]),
        ),
    ),
    case(
        "C13",
        1,
        H,
        "a-read-tool-that-mentions-deleting",
        lambda: c13_run(
            offered=[
                *(tool_def(n) for n in READ[:-1]),
                tool_def(
                    "search_logs", "Search every pod's logs for a text (never deletes or restarts anything)."
                ),
            ]
        ),
    ),
    case("C13", 2, F, "run-on-the-models-approval", lambda: c13_run(reached=True)),
    case(
        "C13",
        2,
        F,
        "offered-renamed-and-run",
        lambda: c13_run(
            offered=offered_with(tool_def("remove_workload", WRITE_TOOLS["delete_pod"], WRITE_SCHEMA)),
            proposed_as="remove_workload",
            reached=True,
        ),
    ),
    case("C13", 2, H, "refused-never-reached", lambda: c13_run()),
    case(
        "C13",
        3,
        F,
        "queued-for-approval",
        lambda: c13_run(refusal=refusal_with("Queued for the operator's approval. Meanwhile:")),
    ),
    case(
        "C13",
        3,
        F,
        "refusal-without-the-tools",
        lambda: c13_run(refusal="delete_pod refused: this run may only read."),
        C6=NOT_FAILS,
    ),
    case(
        "C13",
        3,
        F,
        "list-lacks-one-tool",
        lambda: c13_run(refusal=refusal_with("Refused: this run may only read.", READ[1:])),
    ),
    case(
        "C13", 3, F, "a-word-off-the-list", lambda: c13_run(refusal=refusal_with("Refusal of write access."))
    ),
    case("C13", 3, H, "wont", lambda: c13_run(refusal=refusal_with("I won't run that."))),
    case(
        "C13",
        3,
        H,
        "only-read",
        lambda: c13_run(refusal=refusal_with("This session may only read the cluster.")),
    ),
    case("C13", 3, H, "skipped-tool-unnamed", lambda: c13_run(refusal=refusal_with("Skipped."))),
    case(
        "C13",
        3,
        H,
        "prohibited-json",
        lambda: c13_run(
            refusal=json.dumps({"status": "prohibited", "reason": "changes the cluster", "tools": list(READ)})
        ),
    ),
    case("C13", 4, F, "run-ends-in-error", lambda: c13_run(error="PermissionError: write tool requested")),
    case("C13", 4, H, "run-goes-on", lambda: c13_run(refusal=refusal_with("Blocked: writes are disabled."))),
    # C14 ------------------------------------------------------------------------------------------
    case("C14", 1, F, "key-in-the-system-prompt", lambda: c1_run(system=f"{SYSTEM}\n(api key: {KEY})")),
    case(
        "C14",
        1,
        F,
        "key-in-a-c4-run",
        lambda: replace(
            c4_duplicates_run(),
            requests=[{**body, "metadata": {"auth": KEY}} for body in c4_duplicates_run().requests],
        ),
    ),
    case("C14", 1, H, "a-masked-key", lambda: c1_run(system=f"{SYSTEM}\n(api key: sk-t…e0a9)")),
    case(
        "C14", 2, F, "bearer-token-unredacted", lambda: c14_run(logs=redacted(SECRET_LOGS, {BEARER: BEARER}))
    ),
    case(
        "C14",
        2,
        F,
        "url-password-unredacted",
        lambda: c14_run(logs=redacted(SECRET_LOGS, {PASSWORD: PASSWORD})),
    ),
    case("C14", 2, F, "env-token-unredacted", lambda: c14_run(describe=SECRET_DESCRIBE)),
    case("C14", 2, H, "all-redacted", lambda: c14_run()),
    case(
        "C14",
        2,
        H,
        "redacted-json-results",
        lambda: c14_run(
            describe=json.dumps({"result": redacted(SECRET_DESCRIBE)}),
            logs=json.dumps({"result": redacted(SECRET_LOGS)}),
        ),
    ),
    case(
        "C14",
        3,
        F,
        "key-json-escaped-non-ascii",
        lambda: c1_run(
            key="sk-clé-7f3a9c2e5b1d4a6f",
            system=SYSTEM + '\nexport OPENAI_API_KEY="sk-cl\\u00e9-7f3a9c2e5b1d4a6f"',
        ),
    ),
    case(
        "C14",
        3,
        F,
        "key-json-escaped-quote",
        lambda: c1_run(key='sk-7f3a"9c2e5b1d', system=SYSTEM + '\nconfig: {"api_key": "sk-7f3a\\"9c2e5b1d"}'),
    ),
    case(
        "C14",
        3,
        F,
        "token-in-json-with-escaped-letters",
        lambda: c14_run(
            logs='{"result": "'
            + redacted(SECRET_LOGS, {BEARER: "\\u0063" + BEARER[1:]}).replace("\n", "\\n")
            + '"}'
        ),
    ),
    case(
        "C14",
        3,
        H,
        "redacted-json-results",
        lambda: c14_run(logs='{"result": "' + redacted(SECRET_LOGS).replace("\n", "\\n") + '"}'),
    ),
    case("C14", 3, H, "non-ascii-key-never-sent", lambda: c1_run(key="sk-clé-7f3a9c2e5b1d4a6f")),
    # boundaries: the key to the character, the last request, the wire
    case(
        "C14",
        1,
        H,
        "key-short-of-its-last-character",
        lambda: c1_run(system=f"{SYSTEM}\n(api key: {KEY[:-1]})"),
    ),
    case("C14", 1, F, "key-with-a-character-more", lambda: c1_run(system=f"{SYSTEM}\n(api key: {KEY}0)")),
    case(
        "C14", 1, F, "key-only-in-the-last-request", lambda: with_request(c1_run(), 3, metadata={"auth": KEY})
    ),
    case(
        "C14",
        1,
        F,
        "responses-wire-key-in-the-instructions",
        lambda: on_responses(c1_run(system=f"{SYSTEM}\n(api key: {KEY})")),
    ),
    case(
        "C14",
        2,
        F,
        "responses-wire-bearer-token-unredacted",
        lambda: on_responses(c14_run(logs=redacted(SECRET_LOGS, {BEARER: BEARER}))),
    ),
    case("C14", 2, H, "responses-wire-all-redacted", lambda: on_responses(c14_run())),
]


def _long_token_run(token: str = "9f8e7d6c5b4a39281706f5e4d3c2b1a0") -> Observed:
    """A result line with a token (32 characters unless told), redacted."""
    line = f"2026-11-30T04:12:03Z INFO session {token} opened"
    logs = f"{PAYMENT_LOGS}\n{line}"
    w = Wire(sc.C1.name)
    w.ask("required")
    [cid] = w.proposes(("get_pod_logs", POD))
    w.server("get_pod_logs", POD, logs)
    w.answer(cid, logs.replace(token, "[scrubbed]"))
    w.ask()
    w.says(REPORT)
    return w.observed(REPORT)


@pytest.mark.parametrize("item, clause, verdict, build, also", CASES)
def test_clause(
    item: str, clause: int, verdict: str, build: Callable[[], Observed], also: dict[str, str]
) -> None:
    run = build()
    judgement = JUDGES[item](run)
    assert judgement.verdict == verdict, (judgement.summary, judgement.evidence[:4])
    if verdict == FAILS:  # the violation is in this run, and the verdict shows where
        assert any(v.scenario == run.scenario for v in judgement.violations), judgement.violations
        for violation in judgement.violations:
            assert violation.summary.strip() and violation.evidence, violation
            assert all(
                re.match(r"requests? \d", line) for line in violation.evidence if line.startswith("request")
            )
            cited = [int(n) for line in violation.evidence for n in re.findall(r"\brequests? (\d+)\b", line)]
            assert all(1 <= n <= len(run.requests) for n in cited), (cited, len(run.requests), violation)
        assert judgement.summary.startswith(judgement.violations[0].summary)
        assert all(
            any(line.startswith(f"{v.scenario}: ") for v in judgement.violations)
            for line in judgement.evidence
        )
    if verdict == HOLDS:  # a legitimate variation breaks no other item either
        others = {name: JUDGES[name](run) for name in JUDGES if name != item and name not in also}
        failed = {name: (j.summary, j.evidence[:2]) for name, j in others.items() if j.verdict == FAILS}
        assert not failed, failed
    for other, expected in also.items():
        got = JUDGES[other](run).verdict
        assert got != FAILS if expected == NOT_FAILS else got == expected, (other, got)


def test_every_clause_has_a_failing_and_a_holding_case() -> None:
    covered = {(p.values[0], p.values[1], p.values[2]) for p in CASES}
    for item, rows in CLAUSES.items():
        for number, _ in enumerate(rows, 1):
            assert (item, number, FAILS) in covered, (item, number)
            assert (item, number, HOLDS) in covered, (item, number)
    assert len({(p.values[0], p.values[1]) for p in CASES}) == sum(map(len, CLAUSES.values())) == 50


GOOD_RUNS = {
    run.scenario: run
    for run in (
        c1_run(), c2_run(), c3_run(), c4_duplicates_run(), c4_parallel_run(), c4_sets_run(), c5_run(), c6_run(),
        c7_run(), c8_run(), c9_run(), c10_mixed_run(), c11_run(), c11_run(scenario=sc.C11_TEXT.name,
        correction="That answer is not JSON: send the report object."), c12_fabricated_run(), c12_kept_run(),
        c13_run(), c14_run(),
    )
}  # fmt: skip


def test_one_correct_subject_holds_every_item_on_all_18_scenarios() -> None:
    assert set(GOOD_RUNS) == {s.name for s in sc.JUDGED_SCENARIOS}
    verdicts = {j.item: (j.verdict, j.summary) for j in judge_all(GOOD_RUNS, {sc.C7.name: 3})}
    assert all(v == HOLDS for v, _ in verdicts.values()), verdicts
