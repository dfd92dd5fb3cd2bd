"""Structured content a server sends next to its text (`structuredContent`) is kept: recorded in
the trace with the call, redacted as the text is; the model reads the text, as before."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from k8s_agent_harness.vocabulary import Impl
from k8s_agent_scripted_llm import call, text
from tests.conftest import run_scenario

SECRET = "sk-live-0123456789abcdefghij"
SERVER = f'''
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

server = MCPServer("structured")

def list_pods(namespace: str = "default") -> CallToolResult:
    """List pods."""
    return CallToolResult(
        content=[TextContent(type="text", text="NAME  STATUS\\napi-7d9f8c-x1z2  CrashLoopBackOff")],
        structured_content={{"pods": [{{"name": "api-7d9f8c-x1z2", "status": "CrashLoopBackOff",
                                        "restarts": 14, "env": {{"API_TOKEN": "{SECRET}"}}}}]}},
    )

server.add_tool(list_pods, annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
server.run()
'''


def test_structured_content_is_kept_in_the_trace_redacted_and_the_model_reads_the_text(
    impl: Impl, tmp_path: Path
) -> None:
    (tmp_path / "server.py").write_text(SERVER)
    script = [call("list_pods", namespace="default"), text("api-7d9f8c-x1z2 is in CrashLoopBackOff.")]

    run = run_scenario(
        impl,
        script,
        tmp_path / "run",
        mcp_command=(sys.executable, str(tmp_path / "server.py")),
        allow_read=("list_pods",),
    )

    assert run.error is None, run.error
    [listing] = run.tool_messages(1)
    assert listing["content"].startswith("NAME  STATUS\napi-7d9f8c-x1z2  CrashLoopBackOff")
    (recorded,) = [e for e in run.trace if e["kind"] == "tool_call"]
    pod = recorded["structured_result"]["pods"][0]
    assert pod["name"] == "api-7d9f8c-x1z2" and pod["restarts"] == 14
    assert pod["env"]["API_TOKEN"] != SECRET and SECRET not in json.dumps(run.trace)
    assert SECRET not in json.dumps(run.requests)


ROWS = 300
LARGE_SERVER = '''
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

server = MCPServer("structured-large")
PODS = [{"name": f"web-5f6d7c8b9-{n:05d}", "namespace": "default", "status": "Running",
         "message": ""} for n in range(ROWS_HERE)]
PODS.append({"name": "api-7d9f8c-x1z2", "namespace": "default", "status": "CrashLoopBackOff",
             "message": "back-off 5m0s restarting failed container=api pod=api-7d9f8c-x1z2"})

def list_pods(namespace: str = "default") -> CallToolResult:
    """List pods."""
    rows = [f"{p['name']:<24}  {p['status']}" for p in PODS]
    text = "NAME                      STATUS\\n" + "\\n".join(rows)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"pods": PODS})

server.add_tool(list_pods, annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
server.run()
'''.replace("ROWS_HERE", str(ROWS))
QUOTE = "back-off 5m0s restarting failed container=api"


def test_a_large_result_s_structured_content_is_outlined_searched_and_verifies_quotes(
    impl: Impl, tmp_path: Path
) -> None:
    (tmp_path / "server.py").write_text(LARGE_SERVER)
    finding = {
        "kind": "pod",
        "name": "api-7d9f8c-x1z2",
        "namespace": "default",
        "status": "CrashLoopBackOff",
        "cause": "crash_application",
        "explanation": "The container keeps failing and is restarted with back-off.",
        "evidence": [{"text": QUOTE, "tool": "list_pods"}],
        "fix": "Read the container's logs to see why it exits.",
    }
    answer = json.dumps(
        {"scope": "pods in namespace default", "findings": [finding], "healthy": {"count": ROWS}}
    )
    script = [
        call("list_pods", namespace="default"),
        call("search_results", pattern="back-off 5m0s"),
        text(answer),
    ]

    run = run_scenario(
        impl,
        script,
        tmp_path / "run",
        mcp_command=(sys.executable, str(tmp_path / "server.py")),
        trust_server_hints=True,  # the test's own server: its read-only hints are the truth
        context_budget=4000,
        report_format="json_schema",
    )

    assert run.error is None, run.error
    [listing] = run.tool_messages(1)
    excerpt = listing["content"]
    assert excerpt.startswith("[Result r1 of list_pods(") and QUOTE not in excerpt  # the model reads the text
    assert f'{{"pods": [{ROWS + 1:,} items]}}' in excerpt.splitlines()[1]  # exact counts, from the structure
    [found] = run.tool_messages(2)
    assert found["content"].startswith("1 of ") and f"r1:$.pods[{ROWS}].message: {QUOTE}" in found["content"]
    (report,) = [e for e in run.trace if e["kind"] == "report"]
    (quote,) = report["report"]["findings"][0]["evidence"]
    assert report["accepted"] and not report["problems"] and quote["verified"] is True
    (recorded,) = [e for e in run.trace if e["kind"] == "tool_call" and e["tool"] == "list_pods"]
    assert recorded["structured_result"]["pods"][ROWS]["message"].startswith(QUOTE)
