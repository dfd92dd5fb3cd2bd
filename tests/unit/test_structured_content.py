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
        impl, script, tmp_path / "run", mcp_command=(sys.executable, str(tmp_path / "server.py"))
    )

    assert run.error is None, run.error
    [listing] = run.tool_messages(1)
    assert listing["content"].startswith("NAME  STATUS\napi-7d9f8c-x1z2  CrashLoopBackOff")
    (recorded,) = [e for e in run.trace if e["kind"] == "tool_call"]
    pod = recorded["structured_result"]["pods"][0]
    assert pod["name"] == "api-7d9f8c-x1z2" and pod["restarts"] == 14
    assert pod["env"]["API_TOKEN"] != SECRET and SECRET not in json.dumps(run.trace)
    assert SECRET not in json.dumps(run.requests)
