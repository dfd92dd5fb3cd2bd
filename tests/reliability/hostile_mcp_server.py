"""A stdio MCP server that misbehaves on the wire, written without the `mcp` library: it reads JSON-RPC
lines from stdin and writes raw bytes to stdout, so it can send exactly what it wants.

    python hostile_mcp_server.py --mode MODE

Every mode speaks the protocol as `normal` does (initialize, tools/list with two read-only tools,
tools/call answers), and adds its misbehaviour:

- `normal`: nothing more.
- `stderr-flood`: writes to stderr in a loop from its start, as fast as the pipe takes it, under a
  file size limit of FILE_LIMIT_BYTES (RLIMIT_FSIZE, as a disk quota would set): a client that sends
  its stderr to a file kills it within milliseconds, one that drains a pipe does not. The tool
  `crash` stops the flood, writes LAST_WORDS and exits.
- `bad-utf8`: an invalid UTF-8 line before every answer, and invalid bytes inside the answers of
  `list_pods` (BAD_BYTES in its text).
- `huge-line`: the tools `huge` (the JSON-RPC id first) and `huge_id_last` (the id last) are answered
  with one line of HUGE_BYTES; a notification line as long goes out before `list_pods`'s answer.
- `deep`: the tool `deep` is answered with structured content nested DEEP_LEVELS levels.
- `many-tools`: tools/list answers with one page of MANY_TOOLS tools: the two read-only tools, then
  tools with no annotations.
- `silent-tools-list`: answers initialize at once (it imports nothing that takes time), and never
  answers tools/list.
- `future-protocol`: answers initialize, and any other opening, with -32022 "unsupported protocol
  version", naming only FUTURE_PROTOCOL: a server no released client can speak to.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from typing import Any

MODES = (
    "normal",
    "stderr-flood",
    "bad-utf8",
    "huge-line",
    "deep",
    "many-tools",
    "silent-tools-list",
    "future-protocol",
)
FUTURE_PROTOCOL = "2099-01-01"
PODS = (
    "NAMESPACE   NAME    READY   STATUS             RESTARTS\n"
    "production  pod-a   1/1     Running            0\n"
    "production  pod-b   0/1     CrashLoopBackOff   7"
)
DESCRIBED = "Name: pod-b\nNamespace: production\nStatus: CrashLoopBackOff\nLast State: exit code 1"
BAD_BYTES = b"caf\xe9 \xff\xfe"
"""Invalid UTF-8 inside a JSON string of `list_pods`'s answer (bad-utf8): read as U+FFFD each."""
BAD_LINE = b"\xff\xfe\xfd not UTF-8 at all \xc3\x28\n"
HUGE_BYTES = 100 * 1024 * 1024
DEEP_LEVELS = 10_000
MANY_TOOLS = 20_001
FILE_LIMIT_BYTES = 8 * 1024 * 1024
FLOOD_LINE = b"warning: still flooding stderr " + b"." * 200 + b"\n"
LAST_WORDS = "fatal: the flood is over, and so is this server"
READ_ONLY = {"readOnlyHint": True}


def tool(name: str, description: str, annotations: dict[str, Any] | None = READ_ONLY) -> dict[str, Any]:
    definition: dict[str, Any] = {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    }
    if annotations is not None:
        definition["annotations"] = annotations
    return definition


def tools(mode: str) -> list[dict[str, Any]]:
    listed = [tool("list_pods", "List the pods."), tool("describe_pod", "Describe a pod.")]
    if mode == "stderr-flood":
        listed.append(tool("crash", "Stop flooding stderr, and exit."))
    if mode == "huge-line":
        listed.append(tool("huge", "Answers with 100 MB on one line, its id first."))
        listed.append(tool("huge_id_last", "Answers with 100 MB on one line, its id last."))
    if mode == "deep":
        listed.append(tool("deep", f"Answers with structured content nested {DEEP_LEVELS} levels."))
    if mode == "many-tools":
        listed += [tool(f"write_tool_{n:05d}", "Not read-only.", None) for n in range(MANY_TOOLS - 2)]
    return listed


class Server:
    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.out = sys.stdout.buffer
        self.flooding = threading.Event()
        self.flooder = threading.Thread(target=self.flood, daemon=True)

    def send(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def answer(self, request_id: Any, result: dict[str, Any]) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode() + b"\n")

    def serve(self) -> None:
        if self.mode == "stderr-flood":
            import resource

            resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT_BYTES, FILE_LIMIT_BYTES))
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it: a file past the limit ends us
            self.flooding.set()
            self.flooder.start()
        for line in sys.stdin.buffer:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict) or "id" not in message or "method" not in message:
                continue  # a notification, or the client's answer to a request of ours (none are sent)
            self.request(message["id"], message["method"], message.get("params") or {})

    def flood(self) -> None:
        err = sys.stderr.buffer
        block = FLOOD_LINE * 256
        while self.flooding.is_set():
            err.write(block)
            err.flush()

    def request(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        if self.mode == "bad-utf8":
            self.send(BAD_LINE)
        if self.mode == "future-protocol" and request_id is not None:
            error = {
                "code": -32022,
                "message": f"Unsupported protocol version: {params.get('protocolVersion')}",
                "data": {"supported": [FUTURE_PROTOCOL], "requested": params.get("protocolVersion")},
            }
            self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode() + b"\n")
        elif method == "initialize":
            self.answer(
                request_id,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile", "version": "1"},
                },
            )
        elif method == "tools/list":
            if self.mode == "silent-tools-list":  # answers initialize at once, then never again
                return
            self.answer(request_id, {"tools": tools(self.mode)})
        elif method == "tools/call":
            self.call(request_id, params.get("name", ""))
        elif method == "ping":
            self.answer(request_id, {})
        else:
            error = {"code": -32601, "message": f"method not found: {method}"}
            self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode() + b"\n")

    def call(self, request_id: Any, name: str) -> None:
        ident = json.dumps(request_id).encode()
        if name == "list_pods":
            if self.mode == "huge-line":  # a notification as long as the huge answers: discarded unread
                self.send(
                    b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'
                    + b"n" * HUGE_BYTES
                    + b'"}}\n'
                )
            if self.mode == "bad-utf8":
                text = json.dumps(PODS + "\n").encode()[:-1] + BAD_BYTES + b'"'
                self.send(
                    b'{"jsonrpc":"2.0","id":'
                    + ident
                    + b',"result":{"content":[{"type":"text","text":'
                    + text
                    + b"}]}}\n"
                )
                return
            self.answer(request_id, text_result(PODS))
        elif name == "describe_pod":
            self.answer(request_id, text_result(DESCRIBED))
        elif name == "crash" and self.mode == "stderr-flood":
            self.flooding.clear()
            self.flooder.join()
            sys.stderr.buffer.write(b"\n" + LAST_WORDS.encode() + b"\n")
            sys.stderr.flush()
            os._exit(1)
        elif name == "huge" and self.mode == "huge-line":
            self.send(
                b'{"jsonrpc":"2.0","id":'
                + ident
                + b',"result":{"content":[{"type":"text","text":"'
                + b"x" * HUGE_BYTES
                + b'"}]}}\n'
            )
        elif name == "huge_id_last" and self.mode == "huge-line":
            self.send(
                b'{"result":{"content":[{"type":"text","text":"'
                + b"y" * HUGE_BYTES
                + b'"}]},"jsonrpc":"2.0","id":'
                + ident
                + b"}\n"
            )
        elif name == "deep" and self.mode == "deep":
            nested = b"[" * DEEP_LEVELS + b"]" * DEEP_LEVELS
            self.send(
                b'{"jsonrpc":"2.0","id":'
                + ident
                + b',"result":{"content":[{"type":"text","text":"deep"}],"structuredContent":{"deep":'
                + nested
                + b"}}}\n"
            )
        else:
            self.answer(
                request_id, {"content": [{"type": "text", "text": f"no tool {name}"}], "isError": True}
            )


def text_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mode", choices=MODES, default="normal")
    Server(parser.parse_args().mode).serve()


if __name__ == "__main__":
    main()
