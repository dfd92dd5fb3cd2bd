"""Any MCP server a team points the agent at, as servers in the field behave (tests/integration/
any_server.py, on the `mcp` package): names the model APIs refuse, results that break their own
output schema, every kind of content, a tool added at connect time, a tool list that changes under
the model, progress, paging. Both agents, over stdio and Streamable HTTP, observed at the
boundary: what the model endpoint received, what the server received, the trace and its timeline."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_scripted_llm import call, calls, raw_tool, text, tool
from tests.cli.test_ask import ask
from tests.conftest import AgentRun, read_jsonl, run_scenario
from tests.integration.any_server import (
    CRASHING_ROW,
    DOTTED,
    DRIFTING,
    GONE,
    LATE,
    LONG,
    NEW,
    PODS,
    TAKEN,
    USER_ONLY,
)
from tests.integration.reference import ANY_SERVER, any_server_over_http
from tests.processes import EXERCISED_TIMEOUT, k8s_agent

HOSTILE_SERVER = Path(__file__).parents[1] / "reliability" / "hostile_mcp_server.py"

FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
DOTTED_ALIAS = "k8s_pods_list_" + hashlib.sha256(DOTTED.encode()).hexdigest()[:8]
"""`k8s.pods/list` with `_` for what a function name cannot hold is taken by a tool of that name:
the alias gets the real name's hash."""
LONG_ALIAS = LONG[:55] + "_" + hashlib.sha256(LONG.encode()).hexdigest()[:8]
TRANSPORTS = ["stdio", "streamable-http"]
REPORT = json.dumps(
    {
        "scope": "the pods",
        "findings": [
            {
                "kind": "pod",
                "name": "pod-b",
                "status": "CrashLoopBackOff",
                "cause": "crash_application",
                "explanation": "Its container keeps exiting.",
                "evidence": [{"text": CRASHING_ROW, "tool": DOTTED_ALIAS}],
                "fix": "Read its logs.",
            }
        ],
        "healthy": {"count": 1},
    }
)
PAGES = 80
PROGRESS_TIMEOUT = EXERCISED_TIMEOUT
"""The --tool-timeout of the progress tests. The server reports progress every 10 ms, five hundred
times within it: only a machine that stalls a process for five seconds could make a call miss it."""


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One server over HTTP for the module's runs: each reaches it at a URL of its own."""
    log = tmp_path_factory.mktemp("any-http") / "received.jsonl"
    with any_server_over_http(log) as url:
        yield url, log


@pytest.fixture(scope="module")
def paged_http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The same, listing PAGES more tools, one a page."""
    log = tmp_path_factory.mktemp("any-http-paged") / "received.jsonl"
    with any_server_over_http(log, "--pages", str(PAGES)) as url:
        yield url, log


def run_on(
    transport: str,
    http_server: tuple[str, Path],
    impl: str,
    script: list[Any],
    workdir: Path,
    *extra: str,
    **overrides: Any,
) -> tuple[AgentRun, list[dict[str, Any]]]:
    """Run `impl` on a script against the server over `transport`; the run, and what the server
    received from it. The server is the test's own: its read-only hints are the truth."""
    overrides = {"trust_server_hints": True, **overrides}
    if transport == "stdio":
        log = workdir / "received.jsonl"
        workdir.mkdir(parents=True, exist_ok=True)
        command = (sys.executable, str(ANY_SERVER), "--log", str(log), *extra)
        run = run_scenario(impl, script, workdir / "run", mcp_command=command, **overrides)
        return run, read_jsonl(log)
    url, log = http_server
    name = f"{workdir.parent.name}-{workdir.name}-{impl}"
    run = run_scenario(impl, script, workdir / "run", mcp_url=f"{url}/{name}", **overrides)
    return run, [record for record in read_jsonl(log) if record["run"] == name]


def called(received: list[dict[str, Any]]) -> list[str]:
    return [record["name"] for record in received if record["method"] == "tools/call"]


def offered(request: dict[str, Any]) -> list[str]:
    return [definition["function"]["name"] for definition in request.get("tools") or []]


def timeline(run: AgentRun, cwd: Path) -> str:
    """`k8s-agent trace show` of the run: the progress lines, as a user reads them."""
    shown = k8s_agent("trace", "show", str(run.trace_path), cwd=cwd)
    assert shown.returncode == 0, shown.stderr
    return shown.stdout


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_names_content_output_schemas_and_a_tool_added_at_connect_time(
    impl: str, transport: str, http_server: tuple[str, Path], tmp_path: Path
) -> None:
    script = [
        calls(tool(DOTTED_ALIAS), tool(TAKEN), tool(LONG_ALIAS), tool(LATE)),
        calls(tool("weather"), tool("text_only"), tool("contents")),
        text(REPORT),
    ]

    run, received = run_on(transport, http_server, impl, script, tmp_path, report_format="json_schema")

    assert run.error is None, run.error
    # Every name the model is offered is one the model APIs accept, the tool added at connect time
    # (announced while the first tools/list was in flight) from the first request on.
    for request in run.requests[:2]:
        assert all(FUNCTION_NAME.match(name) for name in offered(request)), offered(request)
    assert {DOTTED_ALIAS, TAKEN, LONG_ALIAS, LATE} <= set(offered(run.requests[0]))
    # The server receives each call by its own name; the trace names both.
    assert called(received) == [DOTTED, TAKEN, LONG, LATE, "weather", "text_only", "contents"]
    recorded = {event["tool"]: event for event in run.events("tool_call")}
    assert recorded[DOTTED_ALIAS]["server_tool"] == DOTTED and recorded[TAKEN]["server_tool"] is None
    assert recorded[LONG_ALIAS]["server_tool"] == LONG
    (listed,) = run.events("tools_listed")
    assert listed["aliases"] == {DOTTED: DOTTED_ALIAS, LONG: LONG_ALIAS}
    (changed,) = run.events("mcp_tools_changed")
    assert changed["added"] == [LATE] and changed["refused"] == [] and changed["removed"] == []
    assert run.trace.index(changed) < run.trace.index(run.events("model_request")[0])
    first = [message["content"] for message in run.tool_messages(1)]
    assert first[0] == f"{DOTTED}:\n{PODS}" and first[3] == f"{LATE}:\n{PODS}"
    # A result that breaks its declared output schema is a tool failure the model reads (C9).
    weather, text_only, contents = (message["content"] for message in run.tool_messages(2))
    assert weather == (
        "Tool call failed (weather): the result does not match the tool's declared output schema: "
        "$.temperature: 'hot' is not of type 'number'"
    )
    assert text_only == (
        "Tool call failed (text_only): the tool declares an output schema but its result has no structured content"
    )
    # Every kind of content is something the model can use; what is for the user only is not sent.
    assert (
        '[resource link "Crash-loop runbook" (runbook): What to check when a pod crash-loops; '
        "URI https://runbooks.example.com/crashloop (text/html)]"
    ) in contents
    assert "[embedded resource file:///etc/app.conf (text/plain)]\nDB_HOST=db" in contents
    assert "[embedded resource file:///core.dump: application/octet-stream, 6 bytes, not shown]" in contents
    assert "[image: image/png, 8 bytes, not shown]" in contents
    assert USER_ONLY not in json.dumps(run.sent) and recorded["contents"]["for_user"] == [USER_ONLY]
    # The counters count what reached the server: seven calls, two of them failed.
    counts = run.events("run_end")[0]["counts"]
    assert counts["tool_calls_executed"] == len(called(received)) == 7 and counts["tool_calls_failed"] == 2
    # The client introduces itself, and claims no capability it does not have.
    listing = next(record for record in received if record["method"] == "tools/list")
    assert listing["client_info"]["name"] == "k8s-agent"
    assert listing["client_info"]["version"] == importlib.metadata.version("k8s-agent")
    assert listing["capabilities"] == {}
    # The report names the tool as the model cited it, and as the server knows it.
    assert f"Evidence ({DOTTED_ALIAS} [{DOTTED}]) ✓: {CRASHING_ROW}" in run.answer
    shown = timeline(run, tmp_path)
    assert f"tool list read again (the server sent notifications/tools/list_changed): added {LATE}" in shown
    assert f"✓ {DOTTED_ALIAS} [{DOTTED}]()" in shown and f"for you: {USER_ONLY}" in shown


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_tool_list_that_changes_under_the_model_takes_effect_per_tool(
    impl: str, transport: str, http_server: tuple[str, Path], tmp_path: Path
) -> None:
    script = [
        calls(tool(DRIFTING, pod="pod-a"), tool("mutate")),
        calls(
            tool(DRIFTING, pod="pod-b", force=True),
            tool(GONE),
            tool(NEW),
            raw_tool("no_such_tool", "{not json"),
        ),
        text("pod-b is in CrashLoopBackOff."),
    ]

    run, received = run_on(transport, http_server, impl, script, tmp_path, report_format="prose")

    assert run.error is None, run.error
    # Added and removed tools take effect from the next request, under the same read-only rule; the
    # tool whose schema changed after the model was offered it is no longer offered, and refused.
    before, after = offered(run.requests[0]), offered(run.requests[1])
    assert {DRIFTING, GONE} <= set(before) and NEW not in before
    assert NEW in after and GONE not in after and DRIFTING not in after
    assert called(received) == [DRIFTING, "mutate", NEW]
    drifting, gone, new, unparsable = (message["content"] for message in run.tool_messages(2))
    assert drifting.startswith(f"Tool '{DRIFTING}' is refused: the server changed its definition")
    assert gone.startswith(f"Unknown tool '{GONE}'") and new == f"{NEW}:\n{PODS}"
    assert unparsable.startswith("Unknown tool 'no_such_tool'")
    (changed,) = run.events("mcp_tools_changed")[-1:]
    assert changed["added"] == [NEW] and changed["removed"] == [GONE]
    assert changed["changed"] == [DRIFTING] and changed["refused"] == [DRIFTING]
    # (the SDK answers calls of tools it does not hold after the others: compared by tool)
    outcomes = {event["tool"]: event["outcome"] for event in run.events("tool_call")[2:]}
    assert outcomes == {DRIFTING: "refused", GONE: "unknown", NEW: "executed", "no_such_tool": "unknown"}
    # The counters count what reached the server; the trace's arguments are always an object.
    counts = run.events("run_end")[0]["counts"]
    assert counts["tool_calls_executed"] == 3 and counts["rejected"]["refused"] == 1
    assert counts["rejected"]["unknown"] == 2
    recorded = {event["tool"]: event for event in run.events("tool_call")}
    assert (
        recorded["no_such_tool"]["arguments"] == {}
        and recorded["no_such_tool"]["raw_arguments"] == "{not json"
    )
    assert recorded[DRIFTING]["arguments"] == {"pod": "pod-b", "force": True}  # refused, its arguments kept
    assert recorded[DRIFTING]["raw_arguments"] is None
    assert all(isinstance(event["arguments"], dict) for event in run.events("tool_call"))
    shown = timeline(run, tmp_path)
    assert (
        f"added {NEW}; removed {GONE}; refused from now on, changed after the model was offered it: {DRIFTING}"
        in shown
    )


def test_a_call_that_reports_progress_outlives_the_tool_timeout_and_is_shown(
    impl: str, http_server: tuple[str, Path], tmp_path: Path
) -> None:
    seconds = 1.2 * PROGRESS_TIMEOUT  # longer than the timeout: only the progress keeps it going
    script = [call("progress_for", seconds=seconds), text("Done.")]

    run, received = run_on("stdio", http_server, impl, script, tmp_path, tool_timeout=PROGRESS_TIMEOUT)

    assert run.error is None, run.error
    (sent,) = [record for record in received if record["method"] == "tools/call"]
    assert sent["progress_token"] is not None  # the client asked for progress
    (answer,) = run.tool_messages(1)
    assert answer["content"].startswith("done after ") and answer["content"].endswith(
        " progress notifications"
    )
    progress = run.events("tool_progress")
    assert progress and progress[0]["tool"] == "progress_for" and progress[0]["message"] == "step 1"
    assert "… progress_for is working (1): step 1" in timeline(run, tmp_path)


def test_a_call_that_keeps_reporting_progress_ends_at_the_maximum_and_is_cancelled(
    impl: str, http_server: tuple[str, Path], tmp_path: Path
) -> None:
    script = [call("progress_forever"), text("It never finished.")]

    run, received = run_on(
        "stdio",
        http_server,
        impl,
        script,
        tmp_path,
        tool_timeout=PROGRESS_TIMEOUT,
        tool_max_seconds=PROGRESS_TIMEOUT,
    )

    assert run.error is None, run.error
    (answer,) = run.tool_messages(1)
    assert answer["content"].startswith(
        f"Tool call failed (progress_forever): still running after {PROGRESS_TIMEOUT:g}s, the most one call may "
        "take (--tool-max-seconds), although the server reported progress ("
    )
    # The server was told (notifications/cancelled): it stopped the tool.
    assert [record["method"] for record in received if record.get("name") == "progress_forever"] == [
        "tools/call",
        "cancelled",
    ]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_page_of_the_tool_list_is_read(
    impl: str, transport: str, paged_http_server: tuple[str, Path], tmp_path: Path
) -> None:
    pages = PAGES
    script = [call(f"extra_{pages - 1:03d}"), text("Done.")]

    run, received = run_on(transport, paged_http_server, impl, script, tmp_path, "--pages", str(pages))

    assert run.error is None, run.error
    assert {f"extra_{n:03d}" for n in range(pages)} <= set(offered(run.requests[0]))
    assert called(received) == [f"extra_{pages - 1:03d}"]
    assert run.events("warning") == []
    cursors = [record["cursor"] for record in received if record["method"] == "tools/list"]
    assert cursors[-pages:] == [None, *(str(n) for n in range(1, pages))]


@pytest.mark.parametrize(
    ("endless", "said"),
    [
        ("same", "it gave a cursor it had given before, so paging would never end"),
        ("fresh", "a page listed only tools it had listed before, so its pages repeat"),
    ],
)
def test_a_tool_list_that_never_ends_stops_with_a_warning_and_each_tool_offered_once(
    impl: str,
    endless: str,
    said: str,
    http_server: tuple[str, Path],
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    script = [call(TAKEN), text("Done.")]

    run, received = run_on("stdio", http_server, impl, script, tmp_path, "--endless-cursor", endless)

    assert run.error is None, run.error
    names = offered(run.requests[0])
    assert len(names) == len(set(names)) == 4  # the four tools of every page, once each
    (warning,) = run.events("warning")
    assert warning["message"].startswith("the server's tool list was read to page 2 (4 tools): ")
    assert said in warning["message"] and f"warning: {warning['message']}" in capfd.readouterr().err
    assert f"warning: {warning['message']}" in timeline(run, tmp_path)
    assert len([record for record in received if record["method"] == "tools/list"]) == 3  # 1 + 2 pages


def test_a_server_that_never_answers_tools_list_is_reported_as_such(tmp_path: Path) -> None:
    # A server on the bare wire, which imports nothing: it answers initialize well within the start
    # timeout however busy the machine, and never answers tools/list.
    command = f"{sys.executable} {HOSTILE_SERVER} --mode silent-tools-list"

    done = ask(
        "Which pods are unhealthy?",
        "--mcp-command",
        command,
        "--mcp-start-timeout",
        f"{EXERCISED_TIMEOUT:g}",
        cwd=tmp_path,
    )

    assert done.returncode == 4, done.stderr
    assert "the server answered the initialize request but did not answer tools/list in time" in done.stderr
    assert "Traceback" not in done.stderr


def test_requests_from_the_server_are_answered_not_supported_at_once(
    impl: str, http_server: tuple[str, Path], tmp_path: Path
) -> None:
    script = [call("ask_the_client"), text("Done.")]

    run, _ = run_on("stdio", http_server, impl, script, tmp_path)

    assert run.error is None, run.error
    (answer,) = run.tool_messages(1)
    assert answer["content"].splitlines() == [
        "sampling/createMessage: error -32600: Sampling not supported",
        "elicitation/create: error -32600: Elicitation not supported",
        "roots/list: error -32600: List roots not supported",
    ]


# -- the time budget a user sets is the budget -------------------------------------------------------

BUDGET_SECONDS = EXERCISED_TIMEOUT
"""`--max-seconds` of the tests below: a hanging call reaches it; the tool timeouts are out of reach."""


def budget_spent(run: AgentRun) -> None:
    """The investigation ended on the time budget: one forced summary, reason `time_budget`, then the
    tool-less summary request; the run itself ended well (a report, exit 0)."""
    assert run.error is None, run.error
    forced = [event for event in run.events("guardrail") if event["guardrail"] == "forced_summary"]
    assert [event["reason"] for event in forced] == ["time_budget"]
    assert "tools" not in run.requests[-1] and run.answer == "What was gathered."


@pytest.mark.parametrize("tool_name", ["hang", "progress_forever"])
def test_a_call_still_running_when_the_time_budget_is_spent_is_cancelled_and_the_summary_forced(
    impl: str, tool_name: str, http_server: tuple[str, Path], tmp_path: Path
) -> None:
    script = [call(tool_name), text("What was gathered.")]

    run, received = run_on("stdio", http_server, impl, script, tmp_path, max_seconds=BUDGET_SECONDS)

    budget_spent(run)
    (answer,) = run.tool_messages(1)
    assert re.fullmatch(
        rf"Tool call failed \({tool_name}\): cancelled after \d+s: the run's time budget \(--max-seconds\) "
        r"ran out while the call was running",
        answer["content"],
    ), answer["content"]
    (recorded,) = run.events("tool_call")
    assert recorded["outcome"] == "failed"
    # The server was told (notifications/cancelled): it stopped the tool.
    assert [record["method"] for record in received if record.get("name") == tool_name] == [
        "tools/call",
        "cancelled",
    ]


def test_calls_whose_turn_comes_after_the_time_budget_is_spent_are_not_run(
    impl: str, http_server: tuple[str, Path], tmp_path: Path
) -> None:
    script = [calls(tool("hang"), tool("weather"), tool("text_only")), text("What was gathered.")]

    run, received = run_on("stdio", http_server, impl, script, tmp_path, max_seconds=BUDGET_SECONDS)

    budget_spent(run)
    assert called(received) == ["hang"]
    answers = [message["content"] for message in run.tool_messages(1)]
    assert answers[0].startswith("Tool call failed (hang): cancelled after")
    assert (
        answers[1:]
        == [
            "Tool call not run: the run's time budget is spent. Write the report from what the tools have "
            "shown so far."
        ]
        * 2
    )
    assert [event["outcome"] for event in run.events("tool_call")] == ["failed", "skipped", "skipped"]
