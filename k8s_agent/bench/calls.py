"""Per tool call: what the gateway adds (allowlist, JSON, schema, cache, redaction, trace) next to
what one MCP stdio round trip costs."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from k8s_agent_harness.cluster.client import McpClient
from k8s_agent_harness.cluster.results import ToolResult
from k8s_agent_harness.evidence.grounding import Evidence
from k8s_agent_harness.evidence.redact import Redactor
from k8s_agent_harness.guards.gateway import ToolGateway
from k8s_agent_harness.guards.read_policy import ReadPolicy
from k8s_agent_harness.guards.supervisor import Supervisor
from k8s_agent_harness.traces.trace import Recorder, TraceWriter
from k8s_agent_harness.vocabulary import Impl


class InstantServer:
    """Answers every call at once with a fixed text of realistic size."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def call(
        self, name: str, arguments: Mapping[str, Any], on_progress: Any = None, within: float | None = None
    ) -> ToolResult:
        return ToolResult(self.text)


async def gateway_overhead_us(mcp: McpClient, calls: int, sample: str) -> float:
    """Microseconds the gateway spends per call when the server answers instantly."""
    with tempfile.TemporaryDirectory() as folder:
        writer = TraceWriter(Path(folder) / "t.jsonl")
        recorder = Recorder(
            writer, run_id="bench", impl=Impl.HANDWRITTEN, redactor=Redactor(["sk-bench-key-0000"])
        )
        supervisor = Supervisor(max_steps=10, max_repeats=calls + 1, max_seconds=3600)
        policy = ReadPolicy.of(mcp.server[0] if mcp.server else None)
        gateway = ToolGateway(
            mcp.tools, InstantServer(sample), recorder, supervisor, Evidence(), policy=policy
        )
        started = time.perf_counter()
        for n in range(calls):
            await gateway.call(
                f"c{n}", "search_logs", json.dumps({"pattern": f"p-{n}", "namespace": "production"})
            )
        elapsed = time.perf_counter() - started
        writer.close()
    return elapsed / calls * 1e6


async def mcp_round_trip_us(mcp: McpClient, calls: int) -> float:
    """Microseconds of one MCP stdio round trip (a cheap tool, distinct arguments)."""
    started = time.perf_counter()
    for n in range(calls):
        await mcp.call("search_logs", {"pattern": f"rt-{n}", "namespace": "production"})
    return (time.perf_counter() - started) / calls * 1e6


async def sample_result(mcp: McpClient) -> str:
    """A realistic result text (a describe_pod) for the instant server to return."""
    result = await mcp.call(
        "describe_pod", {"name": "payment-service-6f7b8d9c8-ghj56", "namespace": "production"}
    )
    return result.text
