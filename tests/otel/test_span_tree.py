"""The span tree of a run: one tree for both agents, its GenAI attributes, guardrails as events.

The runs are the agents' own (a scripted model, the mock cluster over stdio), exported through the
OpenTelemetry SDK into memory in place of the OTLP exporter; tests/otel/test_phoenix.py sends the
same tree to a real receiver.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.scenarios import PAYMENT, REPORT
from k8s_agent_harness.vocabulary import Impl
from k8s_agent_scripted_llm import call, text
from tests.conftest import run_scenario
from tests.otel.conftest import Exported, roots, tree, walk

QUESTION = "Which pods in the production namespace are unhealthy, and why?\n\nScope: namespace production."

# Every guardrail a run can show, in one script: an answer before any tool (pushback), a tool the
# server does not offer (rejected), a repeat (cache hit), the repeat budget spent (forced summary).
GUARDED = [
    text("Everything looks healthy."),
    call("delete_pod", name=PAYMENT, namespace="production"),
    call("list_pods", namespace="production"),
    call("list_pods", namespace="production"),
    call("list_pods", namespace="production"),
    text("Summary: " + REPORT),
]

PER_RUN = {
    "k8s_agent.run_id",
    "gen_ai.conversation.id",
    "k8s_agent.impl",
    "k8s_agent.wall_seconds",
    "server.port",  # each run's own scripted model server
    "k8s_agent.mcp.server",  # names the run's own call log
}
"""Attributes that differ between any two runs (ids, the implementation, the wall time)."""
WIRE_DIFFERENCE = {"k8s_agent.request.tool_choice", "k8s_agent.request.bytes", "gen_ai.usage.input_tokens"}
"""The one accepted wire difference between the agents (docs/compare.md): once a tool was used the
SDK omits `tool_choice` where the hand-written loop sends `auto`, and so sends a few bytes (and
estimated tokens) fewer. Compared on its own."""


def comparable(node: dict[str, Any]) -> dict[str, Any]:
    """A tree without what differs between any two runs, nor the SDK's own events (compared apart)."""
    return {
        "name": node["name"],
        "kind": node["kind"],
        "status": node["status"],
        "attributes": {
            key: value for key, value in node["attributes"].items() if key not in PER_RUN | WIRE_DIFFERENCE
        },
        "events": [
            (name, attributes) for name, attributes in node["events"] if not name.startswith("openai_agents.")
        ],
        "children": [comparable(child) for child in node["children"]],
    }


def diff(left: dict[str, Any], right: dict[str, Any], where: str = "") -> list[str]:
    """Where two trees differ, one line each (for a readable failure)."""
    where = f"{where}/{left['name']}"
    found = [
        f"{where}: {key} {left[key]!r} != {right[key]!r}"
        for key in ("name", "kind", "status", "events")
        if left[key] != right[key]
    ]
    for key in sorted(set(left["attributes"]) | set(right["attributes"])):
        if left["attributes"].get(key) != right["attributes"].get(key):
            found.append(
                f"{where}: {key} {left['attributes'].get(key)!r} != {right['attributes'].get(key)!r}"
            )
    if len(left["children"]) != len(right["children"]):
        found.append(f"{where}: {len(left['children'])} children != {len(right['children'])}")
    for number, (one, other) in enumerate(zip(left["children"], right["children"], strict=False)):
        found += diff(one, other, f"{where}[{number}]")
    return found


def run_tree(impl: Impl, exported: Exported, workdir: Path, wire: str) -> dict[str, Any]:
    run = run_scenario(impl, GUARDED, workdir, QUESTION, api=wire, max_repeats=2, report_format="prose")
    assert run.result is not None, run.error
    spans = exported.spans()
    (root,) = roots(spans)
    return tree(spans, root)


def test_both_agents_give_one_tree_that_differs_only_by_the_sdk_runs(
    exported: Exported, tmp_path: Path, wire: str
) -> None:
    handwritten = run_tree(Impl.HANDWRITTEN, exported, tmp_path / "handwritten", wire)
    sdk = run_tree(Impl.SDK, exported, tmp_path / "sdk", wire)

    differences = diff(comparable(handwritten), comparable(sdk))
    assert not differences, "\n".join(differences)
    choices = [
        (
            mine["attributes"]["k8s_agent.request.tool_choice"],
            theirs["attributes"]["k8s_agent.request.tool_choice"],
        )
        for mine, theirs in zip(handwritten["children"], sdk["children"], strict=True)
        if mine["attributes"]["gen_ai.operation.name"] == "chat"
    ]
    assert choices[0] == ("required", "required")
    assert set(choices[1:]) <= {("auto", "absent"), ("absent", "absent")}
    assert handwritten["attributes"]["k8s_agent.impl"] == "handwritten"
    assert sdk["attributes"]["k8s_agent.impl"] == "sdk"
    # The SDK's own tracing, bridged: one event per Runner run, counting what the tree shows.
    assert not [name for name, _ in handwritten["events"] if name.startswith("openai_agents.")]
    sdk_runs = [attributes for name, attributes in sdk["events"] if name == "openai_agents.run"]
    assert len(sdk_runs) >= 2  # the investigation, re-run after the pushback, then the summary
    chats = [child for child in sdk["children"] if child["attributes"]["gen_ai.operation.name"] == "chat"]
    tools = [
        child for child in sdk["children"] if child["attributes"]["gen_ai.operation.name"] == "execute_tool"
    ]
    assert sum(run["openai_agents.model_calls"] for run in sdk_runs) == len(chats)
    # A tool the agent does not have never becomes an SDK function call (the SDK answers it itself).
    known = [tool for tool in tools if tool["attributes"]["k8s_agent.tool.outcome"] != "unknown"]
    assert sum(run["openai_agents.function_calls"] for run in sdk_runs) == len(known) < len(tools)


def test_the_tree_carries_the_genai_attributes_and_each_guardrail_where_it_acts(
    exported: Exported, tmp_path: Path, impl: Impl
) -> None:
    root = run_tree(impl, exported, tmp_path, "chat")
    attributes = root["attributes"]
    assert root["name"] == "invoke_agent k8s-agent"
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["k8s_agent.impl"] == impl.value
    assert attributes["k8s_agent.api"] == "chat"
    assert attributes["openai.api.type"] == "chat_completions"
    assert attributes["k8s_agent.scope"] == "namespace/production"
    assert attributes["gen_ai.request.model"] == "scripted"

    chats = [child for child in root["children"] if child["name"] == "chat scripted"]
    assert len(chats) == 6  # every request of the script (the answer, four calls, the summary)
    for number, chat in enumerate(chats, start=1):
        assert chat["kind"] == "CLIENT"
        assert chat["attributes"]["gen_ai.response.id"] == f"chatcmpl-scripted-{number}"
        assert chat["attributes"]["gen_ai.usage.input_tokens"] > 0
        assert chat["attributes"]["gen_ai.usage.output_tokens"] > 0
        assert chat["attributes"]["gen_ai.response.finish_reasons"] in (("stop",), ("tool_calls",))
    assert (
        sum(chat["attributes"]["gen_ai.usage.input_tokens"] for chat in chats)
        == attributes["gen_ai.usage.input_tokens"]
    )

    tools = [
        child for child in root["children"] if child["attributes"]["gen_ai.operation.name"] == "execute_tool"
    ]
    outcomes = [(tool["name"], tool["attributes"]["k8s_agent.tool.outcome"]) for tool in tools]
    assert outcomes == [
        ("execute_tool delete_pod", "unknown"),
        ("execute_tool list_pods", "executed"),
        ("execute_tool list_pods", "cached"),
        ("execute_tool list_pods", "cached"),
    ]
    rejected, executed, cached, _ = tools
    assert [name for name, _ in rejected["events"]] == ["k8s_agent.guardrail.rejected_call"]
    assert "mcp.method.name" not in rejected["attributes"]  # the server never saw it
    assert executed["attributes"]["mcp.method.name"] == "tools/call"
    assert executed["attributes"]["network.transport"] == "pipe"
    assert executed["attributes"]["gen_ai.tool.call.id"]
    assert [name for name, _ in cached["events"]] == ["k8s_agent.guardrail.cache_hit"]

    run_events = [name for name, _ in root["events"]]
    assert run_events.count("k8s_agent.guardrail.pushback") == 1
    assert ("k8s_agent.guardrail.budget_spent", {"k8s_agent.budget": "repeats"}) in root["events"]
    assert ("k8s_agent.guardrail.forced_summary", {"k8s_agent.stop_reason": "repeated_calls"}) in root[
        "events"
    ]
    # Contents are off unless asked for.
    for node in walk(root):
        assert not any(
            key.startswith(
                ("gen_ai.input", "gen_ai.output.messages", "gen_ai.tool.call.a", "gen_ai.tool.call.r")
            )
            for key in node["attributes"]
        )


def test_over_streamable_http_a_tool_span_names_the_mcp_session_and_server(
    exported: Exported, tmp_path: Path
) -> None:
    from tests.integration.test_http_transport import TOKEN, serving

    with serving(tmp_path / "server" / "calls.jsonl") as server:
        run = run_scenario(
            Impl.HANDWRITTEN,
            [call("list_pods", namespace="production"), text(REPORT)],
            tmp_path / "run",
            QUESTION,
            mcp_url=server.url,
            mcp_token=TOKEN,
        )
    assert run.result is not None, run.error
    connected = next(event for event in run.trace if event["kind"] == "mcp_connected")
    spans = exported.spans()
    (root,) = roots(spans)
    (executed,) = [node for node in walk(tree(spans, root)) if node["name"] == "execute_tool list_pods"]
    attributes = executed["attributes"]
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["network.transport"] == "tcp"
    assert attributes["server.address"] == "127.0.0.1"
    assert attributes["server.port"] == int(server.url.split(":")[2].split("/")[0])
    assert connected["session_id"]  # the server opened a session, and the trace recorded it
    assert attributes["mcp.session.id"] == connected["session_id"]
    assert TOKEN not in json.dumps([dict(span.attributes or {}) for span in spans])


def test_the_sdk_port_never_hands_its_traces_to_the_sdks_uploader(
    exported: Exported, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.tracing import default_exporter, flush_traces

    uploaded: list[object] = []
    monkeypatch.setattr(type(default_exporter()), "export", lambda self, items: uploaded.extend(items))

    run = run_scenario(Impl.SDK, GUARDED, tmp_path, QUESTION, max_repeats=2, report_format="prose")
    assert run.result is not None, run.error
    flush_traces()  # what the SDK's own processor held would be exported now

    (root,) = roots(exported.spans())
    assert any(event.name == "openai_agents.run" for event in root.events)  # the SDK traced, to us
    assert uploaded == []
