"""`python -m k8s_agent.bench.hostile`: what a stdio MCP server that misbehaves costs the agent's process.

Two servers of this module's own (bare JSON-RPC lines, no `mcp` library), each met by the agent's MCP
client (`McpClient`: its own stdio transport) and, for comparison, by the `mcp` library's stdio client
as the agent used it before (stderr to a temporary file, lines read whole):

- `stderr flood`: the server writes to stderr in a loop from its start; the client calls a tool over
  and over for `--seconds`. Printed: the stderr bytes the server wrote, the bytes the client holds
  for them (in memory, or in the deleted temporary file on disk), the calls answered.
- `100 MB line`: the server answers one call with 100 MB on one line, then a call that behaves.
  Printed: what became of each call, and how long the first took (bounded by `--seconds` x 4).

Each measurement runs in a process of its own; its peak RSS is that process's `VmHWM` (the
server's memory is not counted). A run with a server that behaves gives the floor. The figures are
this machine's; nothing is asserted, the exit code is 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

SERVER = r"""
import json, sys, threading
mode = sys.argv[1]
out = sys.stdout.buffer
def send(data):
    out.write(data)
    out.flush()
if mode == "flood":
    def flood():
        block = (b"warning: still flooding stderr " + b"." * 100 + b"\n") * 512
        while True:
            sys.stderr.buffer.write(block)
    threading.Thread(target=flood, daemon=True).start()
tools = [
    {"name": name, "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
    for name in ("list_pods", "huge")
]
for line in sys.stdin.buffer:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    ident, method = message["id"], message["method"]
    if method == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bench-hostile", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call" and message["params"]["name"] == "huge":
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(ident).encode() + b',"result":{"content":[{"type":"text","text":"'
        send(head + b"x" * (100 * 1024 * 1024) + b'"}]}}\n')
        continue
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "pod-a  1/1  Running"}]}
    else:
        result = {}
    send(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode() + b"\n")
"""
CASES = ("behaves", "stderr flood", "100 MB line")
CLIENTS = ("k8s-agent", "mcp library")
_MIB = 1024 * 1024


def _peak_rss_mib() -> float:
    with open("/proc/self/status") as status:
        return int(next(line.split()[1] for line in status if line.startswith("VmHWM:"))) / 1024


def _mode(case: str) -> str:
    return {"behaves": "normal", "stderr flood": "flood", "100 MB line": "normal"}[case]


async def _with_agent_client(case: str, seconds: float) -> dict[str, Any]:
    from k8s_agent_harness.cluster.client import McpClient

    figures: dict[str, Any] = {}
    command = (sys.executable, "-c", SERVER, _mode(case))
    async with McpClient.running(command, call_timeout=seconds * 4, start_timeout=seconds * 4) as client:
        if case == "100 MB line":
            started = time.monotonic()
            huge = await client.call("huge", {})
            figures["huge_seconds"] = round(time.monotonic() - started, 2)
            figures["huge"] = huge.failure.reason if huge.failure else f"{len(huge.text):,} characters"
            after = await client.call("list_pods", {})
            figures["next_call"] = "answered" if after.ok else f"failed: {after.failure}"
        else:
            figures["calls"] = await _calls(lambda: client.call("list_pods", {}), seconds)
        stderr = client._stderr  # the figure measured is this buffer
        figures["stderr_written"] = stderr.total
        figures["stderr_held"] = stderr.held
        figures["stderr_held_where"] = "memory"
    return figures


async def _with_library_client(case: str, seconds: float) -> dict[str, Any]:
    import anyio
    from mcp import Client, StdioServerParameters, stdio_client

    figures: dict[str, Any] = {}
    params = StdioServerParameters(command=sys.executable, args=["-c", SERVER, _mode(case)])
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy", cache=None) as client:
            if case == "100 MB line":
                started = time.monotonic()
                figures["huge"] = f"no answer within {seconds * 4:g} s"
                with anyio.move_on_after(seconds * 4):
                    result = await client.call_tool("huge", {})
                    text = "".join(getattr(block, "text", "") for block in result.content)
                    figures["huge"] = f"{len(text):,} characters"
                figures["huge_seconds"] = round(time.monotonic() - started, 2)
                figures["next_call"] = f"no answer within {seconds:g} s"
                with anyio.move_on_after(seconds):
                    await client.call_tool("list_pods", {})
                    figures["next_call"] = "answered"
            else:
                figures["calls"] = await _calls(lambda: client.call_tool("list_pods", {}), seconds)
            written = os.fstat(errlog.fileno()).st_size
        figures["stderr_written"] = written
        figures["stderr_held"] = written
        figures["stderr_held_where"] = "disk (a deleted temporary file)"
    return figures


async def _calls(call: Any, seconds: float) -> int:
    answered = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await call()
        answered += 1
    return answered


def measure_one(case: str, client: str, seconds: float) -> dict[str, Any]:
    """One case with one client, in this process: its figures and this process's peak RSS."""
    measure = _with_agent_client if client == "k8s-agent" else _with_library_client
    started = time.monotonic()
    figures = asyncio.run(measure(case, seconds))
    figures["wall_seconds"] = round(time.monotonic() - started, 2)
    figures["peak_rss_mib"] = round(_peak_rss_mib(), 1)
    return {"case": case, "client": client, **figures}


def measure(case: str, client: str, seconds: float) -> dict[str, Any]:
    """One case with one client, in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-m", "k8s_agent.bench.hostile", "--one", case, client, "--seconds", f"{seconds:g}"],
        capture_output=True,
        text=True,
        timeout=seconds * 20 + 120,
        check=False,
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"case": case, "client": client, "error": f"exit {done.returncode}: {tail[0]}"}
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _size(value: Any) -> str:
    if not isinstance(value, int):
        return "-"
    if value < 1024:
        return f"{value} B"
    return f"{value / _MIB:,.1f} MiB" if value >= _MIB else f"{value / 1024:,.1f} KiB"


def render(rows: list[dict[str, Any]], seconds: float) -> str:
    lines = [
        f"A stdio MCP server that misbehaves, {seconds:g} s per case; each row a process of its own "
        f"(Python {sys.version.split()[0]}).",
        "",
        "| case | client | calls answered | stderr written | stderr held | peak RSS MiB | the 100 MB answer | the call after it |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['case']} | {row['client']} | {row['error']} | | | | | |")
            continue
        held = _size(row.get("stderr_held"))
        if row.get("stderr_held") and "disk" in row.get("stderr_held_where", ""):
            held += " on disk"
        huge = f"{row['huge']} ({row['huge_seconds']:g} s)" if "huge" in row else "-"
        lines.append(
            f"| {row['case']} | {row['client']} | {row.get('calls', '-')} | {_size(row.get('stderr_written'))} "
            f"| {held} | {row['peak_rss_mib']:g} | {huge} | {row.get('next_call', '-')} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m k8s_agent.bench.hostile",
        description="What a stdio MCP server that floods stderr or sends a 100 MB line costs the agent's "
        "process (peak RSS, stderr bytes held), next to the mcp library's stdio client.",
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="how long each flood runs (default 2)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--one", nargs=2, metavar=("CASE", "CLIENT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.one[0], args.one[1], args.seconds)))
        return 0
    rows = [measure(case, client, args.seconds) for case in CASES for client in CLIENTS]
    print(json.dumps(rows, indent=2) if args.json else render(rows, args.seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
