"""A stdio MCP server that misbehaves on the wire (tests/reliability/hostile_mcp_server.py, bare
JSON-RPC lines, no `mcp` library): a stderr flood, invalid UTF-8, a 100 MB line, an answer nested
10,000 levels, a page of 20,001 tools. Both agents, a scripted model: every run ends with a report,
its trace closed; the model is told what happened to each call, and the calls after a bad line are
answered. Memory and disk are measured by `python -m k8s_agent.bench.hostile`, not here."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.cluster.listing import MAX_TOOLS
from k8s_agent_harness.cluster.stdio import MAX_JSON_DEPTH, MAX_LINE_BYTES
from k8s_agent_harness.model import prompts
from k8s_agent_scripted_llm import call, calls, text, tool
from tests.conftest import AgentRun, run_scenario
from tests.processes import EXERCISED_TIMEOUT
from tests.reliability.hostile_mcp_server import DESCRIBED, LAST_WORDS, MANY_TOOLS, PODS

HOSTILE = Path(__file__).with_name("hostile_mcp_server.py")
TOO_LARGE = f"the server's answer was larger than {MAX_LINE_BYTES // (1024 * 1024)} MB"
TOO_DEEP = f"the server's answer is nested deeper than {MAX_JSON_DEPTH} levels"


def run_against(impl: str, mode: str, script: list[Any], tmp_path: Path, **overrides: Any) -> AgentRun:
    """Run `impl` on `script` against the hostile server in `mode` (its read-only hints taken as the
    truth: what it attacks is the client, not the read-only policy)."""
    command = (sys.executable, str(HOSTILE), "--mode", mode)
    overrides = {"trust_server_hints": True, **overrides}
    return run_scenario(impl, script, tmp_path / "run", mcp_command=command, **overrides)


def answers(run: AgentRun, request: int) -> list[str]:
    """What the model was told of each call of the turn before request `request`."""
    return [message["content"] for message in run.tool_messages(request)]


def ended_with_a_report(run: AgentRun, answer: str = "Done.") -> None:
    """The run wrote its report, and its trace ends with `run_end`."""
    assert run.error is None, run.error
    assert run.answer == answer
    assert run.trace[-1]["kind"] == "run_end" and run.trace[-1]["status"] == "ok", run.trace[-1]


def test_a_server_that_behaves_is_answered_as_any(impl: str, tmp_path: Path) -> None:
    run = run_against(
        impl, "normal", [calls(tool("list_pods"), tool("describe_pod")), text("Done.")], tmp_path
    )

    ended_with_a_report(run)
    assert answers(run, 1) == [PODS, DESCRIBED]
    assert run.events("mcp_restart") == [] and run.events("warning") == []


def test_a_stderr_flood_is_drained_and_its_last_words_still_explain_the_end(
    impl: str, tmp_path: Path
) -> None:
    # The server floods stderr from its start, under a file size limit: sent to a file, its stderr
    # would end it within milliseconds; drained, it answers every call until `crash` ends it.
    script = [call("list_pods"), call("describe_pod", name="pod-b"), call("crash"), text("Partial report.")]

    run = run_against(impl, "stderr-flood", script, tmp_path)

    ended_with_a_report(run, "Partial report.")
    assert answers(run, 1) == [PODS] and answers(run, 2) == [DESCRIBED]
    # The server is restarted once, and `crash` ends it again: what it wrote last, after megabytes of
    # stderr, is what the model is told.
    (crashed,) = answers(run, 3)
    assert crashed == (
        f"Tool call failed (crash): the MCP server is gone (MCP server closed the connection (stderr: "
        f"{LAST_WORDS}) again after a restart); this could not be checked"
    )
    assert [event["ok"] for event in run.events("mcp_restart")] == [True]
    assert run.requests[-1]["messages"][-1]["content"] == prompts.summary_instruction("server_gone")


def test_invalid_utf8_is_replaced_and_the_answers_after_it_are_read(impl: str, tmp_path: Path) -> None:
    # An invalid UTF-8 line before every answer (the initialize answer too), and invalid bytes in one.
    script = [calls(tool("list_pods"), tool("describe_pod")), call("list_pods", namespace="x"), text("Done.")]

    run = run_against(impl, "bad-utf8", script, tmp_path)

    ended_with_a_report(run)
    with_bad_bytes = (
        PODS + "\ncaf\N{REPLACEMENT CHARACTER} \N{REPLACEMENT CHARACTER}\N{REPLACEMENT CHARACTER}"
    )
    assert answers(run, 1) == [with_bad_bytes, DESCRIBED]
    assert answers(run, 2) == [with_bad_bytes]
    assert run.events("mcp_restart") == []


def test_an_answer_larger_than_the_cap_fails_its_call_at_once_and_later_answers_are_read(
    impl: str, tmp_path: Path
) -> None:
    # 100 MB on one line, its id first, then its id last; a notification as long before list_pods.
    script = [
        call("huge"),
        call("huge_id_last"),
        calls(tool("list_pods"), tool("describe_pod")),
        text("Done."),
    ]

    run = run_against(impl, "huge-line", script, tmp_path)

    ended_with_a_report(run)
    assert answers(run, 1) == [f"Tool call failed (huge): {TOO_LARGE}"]
    assert answers(run, 2) == [f"Tool call failed (huge_id_last): {TOO_LARGE}"]
    assert answers(run, 3) == [PODS, DESCRIBED]
    assert [event["outcome"] for event in run.events("tool_call")] == [
        "failed",
        "failed",
        "executed",
        "executed",
    ]
    assert run.events("mcp_restart") == []


def test_an_answer_nested_too_deep_fails_its_call_at_once(impl: str, tmp_path: Path) -> None:
    # Dropped unread, such an answer would leave its call to the tool timeout: EXERCISED_TIMEOUT, so
    # that a client which drops it fails this test in seconds (the other calls take milliseconds).
    script = [call("deep"), call("list_pods"), text("Done.")]

    run = run_against(impl, "deep", script, tmp_path, tool_timeout=EXERCISED_TIMEOUT)

    ended_with_a_report(run)
    assert answers(run, 1) == [f"Tool call failed (deep): {TOO_DEEP}"]
    assert answers(run, 2) == [PODS]
    assert run.events("mcp_restart") == []


def test_one_page_of_more_tools_than_the_cap_is_cut_with_the_paging_warning(
    impl: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    script = [call("list_pods"), text("Done.")]

    run = run_against(impl, "many-tools", script, tmp_path)

    ended_with_a_report(run)
    assert MANY_TOOLS > MAX_TOOLS
    (listed,) = run.events("tools_listed")
    assert len(listed["tools"]) == MAX_TOOLS
    (warning,) = run.events("warning")
    assert warning["message"] == (
        f"the server's tool list was read to page 1 ({MAX_TOOLS} tools): it listed {MAX_TOOLS} tools or "
        "more, more than any model can be offered; the rest is not used"
    )
    assert f"warning: {warning['message']}" in capfd.readouterr().err
    offered = [definition["function"]["name"] for definition in run.requests[0]["tools"]]
    assert {"list_pods", "describe_pod"} <= set(offered)
    assert not [name for name in offered if name.startswith("write_tool_")]
    assert answers(run, 1) == [PODS]
