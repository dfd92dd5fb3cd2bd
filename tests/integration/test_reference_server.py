"""The protocol's reference server (`@modelcontextprotocol/server-everything`, pinned, installed by
.ci/install-mcp-reference-servers.sh), which nobody here wrote: both agents, over stdio and
Streamable HTTP (and its SSE mode), a scripted model calling its tools (text, sums, a long operation with progress,
structured content, resource links, an image, content for the user only, an error). Over stdio it
registers tools after `initialize` and announces them while the first `tools/list` is in flight:
the run still executes every call it asks for."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_scripted_llm import Reply, calls, text, tool
from tests.conftest import AgentRun, run_scenario
from tests.integration.reference import everything_over_http, server_everything

TRANSPORTS = ["stdio", "streamable-http", "sse"]
SCRIPT = [
    calls(
        tool("echo", message="hello from k8s-agent"),
        tool("get-sum", a=2, b=3),
        tool("trigger-long-running-operation", duration=0.3, steps=3),
        tool("get-structured-content", location="Chicago"),
        tool("get-resource-links", count=2),
        tool("get-tiny-image"),
        tool("get-annotated-message", messageType="success"),
        tool("get-resource-reference", resourceType="Text", resourceId=0),
    ),
    text("Nothing in this cluster is unhealthy."),
]
CALLED = tuple(c.name for step in SCRIPT if isinstance(step, Reply) for c in step.tool_calls)
"""The tools the script calls: the reference server is not one k8s-agent knows, so each is allowed."""
SUCCESS_FOR_USER = "Operation completed successfully"
"""get-annotated-message's text for `success`, addressed to the user only."""


@pytest.fixture(scope="module")
def everything() -> Path:
    return server_everything()


@pytest.fixture(scope="module")
def everything_url(everything: Path) -> Iterator[str]:
    """One reference server over Streamable HTTP for the module (a session of its own per run)."""
    with everything_over_http(everything) as url:
        yield url


@pytest.fixture(scope="module")
def everything_sse_url(everything: Path) -> Iterator[str]:
    """One reference server in its SSE mode for the module."""
    with everything_over_http(everything, "sse") as url:
        yield url


def run_on(
    transport: str, impl: str, everything: Path, request: pytest.FixtureRequest, workdir: Path
) -> AgentRun:
    if transport == "stdio":
        target: dict[str, Any] = {"mcp_command": (str(everything), "stdio")}
    elif transport == "sse":
        target = {"mcp_url": request.getfixturevalue("everything_sse_url"), "mcp_transport": "sse"}
    else:
        target = {"mcp_url": request.getfixturevalue("everything_url")}
    # The reference server is not one k8s-agent knows: its tools are offered once allowed by name.
    return run_scenario(impl, SCRIPT, workdir, report_format="prose", allow_read=CALLED, **target)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_both_agents_use_the_reference_server_s_tools(
    impl: str, transport: str, everything: Path, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    run = run_on(transport, impl, everything, request, tmp_path)

    assert run.error is None, run.error
    # Every call it asked for reached the server and was answered: none refused or lost.
    outcomes = {event["tool"]: event["outcome"] for event in run.events("tool_call")}
    assert outcomes == {
        **dict.fromkeys(CALLED, "executed"),
        "get-resource-reference": "failed",
    }
    counts = run.events("run_end")[0]["counts"]
    assert counts["tool_calls_executed"] == 8 and counts["tool_calls_failed"] == 1
    assert counts["tool_calls_rejected"] == 0
    answers = {message["tool_call_id"]: message["content"] for message in run.tool_messages(1)}
    by_tool = {event["tool"]: answers[event["request_id"]] for event in run.events("tool_call")}
    assert by_tool["echo"] == "Echo: hello from k8s-agent"
    assert by_tool["get-sum"] == "The sum of 2 and 3 is 5."
    assert by_tool["trigger-long-running-operation"].startswith("Long running operation completed.")
    weather = json.loads(by_tool["get-structured-content"])  # its text; the structure beside it in the trace
    structured = {e["tool"]: e["structured_result"] for e in run.events("tool_call")}[
        "get-structured-content"
    ]
    assert weather == structured and set(structured) == {"temperature", "conditions", "humidity"}
    links = by_tool["get-resource-links"]
    assert links.count("[resource link ") == 2 and "URI demo://resource/dynamic/" in links
    assert "[image: image/png, " in by_tool["get-tiny-image"]
    assert by_tool["get-annotated-message"].startswith("[the tool's result is addressed to the user only")
    assert SUCCESS_FOR_USER not in json.dumps(run.sent)
    assert by_tool["get-resource-reference"] == (
        "Tool call failed (get-resource-reference): Invalid resourceId: 0. Must be a finite positive integer."
    )
    # The long operation was asked for progress and reported it.
    progress = [
        event for event in run.events("tool_progress") if event["tool"] == "trigger-long-running-operation"
    ]
    assert progress and progress[0]["total"] == 3
    for_user = {event["tool"]: event["for_user"] for event in run.events("tool_call")}
    assert for_user["get-annotated-message"] == [SUCCESS_FOR_USER]
    if transport != "streamable-http":  # tools registered at connect time: listed again, nothing refused
        changes = run.events("mcp_tools_changed")
        assert changes and all(change["refused"] == [] for change in changes)
        assert run.trace.index(changes[0]) < run.trace.index(run.events("model_request")[0])


def test_an_unknown_server_s_tools_are_offered_only_as_allowed_and_a_task_only_tool_never(
    impl: str, everything: Path, tmp_path: Path
) -> None:
    # The reference server marks echo read-only; it is not offered unless allowed. Its
    # simulate-research-query runs only as a task (execution.taskSupport: required): left out even so.
    script = [calls(tool("echo", message="hi")), text("Nothing in this cluster is unhealthy.")]
    allowed = ("echo", "simulate-research-query")
    run = run_scenario(
        impl,
        script,
        tmp_path,
        report_format="prose",
        mcp_command=(str(everything), "stdio"),
        allow_read=allowed,
    )

    assert run.error is None, run.error
    assert {t["function"]["name"] for request in run.requests for t in request["tools"]} == {"echo"}
    listed = {tool["name"] for tool in run.events("tools_listed")[0]["tools"]}
    listed.update(name for change in run.events("mcp_tools_changed") for name in change["added"])
    assert {"echo", "get-sum", "simulate-research-query"} <= listed  # the server did list them
    assert [e["tool"] for e in run.events("tool_call")] == ["echo"]


def test_an_unknown_server_with_nothing_allowed_ends_with_the_advice_to_allow_tools(
    impl: str, everything: Path, tmp_path: Path
) -> None:
    run = run_scenario(
        impl, [], tmp_path, report_format="prose", mcp_command=(str(everything), "stdio"), check_script=False
    )

    assert run.error is not None and run.error.exit_code == 2
    message = str(run.error)
    assert "which k8s-agent does not know" in message and "--allow-read TOOL" in message
    assert (
        "the server marks read-only: " in message
        and "echo" in message.split("the server marks read-only: ")[1]
    )
