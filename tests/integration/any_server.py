"""A small MCP server on the `mcp` package (tests only) that does what servers in the field do and
the mock cluster never does: names the model APIs refuse, a result that breaks its own output
schema, a tool added at connect time, a tool list that changes under the model, progress, every
kind of content, paging.

    python tests/integration/any_server.py --log FILE [--http] [--pages N] [--endless-cursor same|fresh]

Everything it receives (initialize's client info and capabilities, each tools/list page asked
for, each tools/call, each cancellation) is one JSON line in the log: what the server received, at
the boundary. Over HTTP each MCP session keeps a tool list of its own, and a client that reaches
it at `/mcp/RUN` has its records marked with RUN.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

READ_ONLY = types.ToolAnnotations(read_only_hint=True)
DOTTED = "k8s.pods/list"
TAKEN = "k8s_pods_list"
"""A tool whose own name is what the dotted one's would be with `_` for every odd character."""
LONG = "describe_" + "a_pod_by_a_name_longer_than_the_model_apis_allow_" * 2
LATE = "late_tool"
"""Listed only once the server has announced it (during the first tools/list: at connect time)."""
DRIFTING, GONE, NEW = "drifting_tool", "gone_tool", "new_tool"
PODS = (
    "NAME    READY   STATUS             RESTARTS   AGE\n"
    "pod-a   1/1     Running            0          2d\n"
    "pod-b   0/1     CrashLoopBackOff   7          2d"
)
CRASHING_ROW = PODS.splitlines()[-1]
USER_ONLY = "Only for the person at the terminal: the cluster's bill is due."
RUN_HEADER = "x-any-server-run"
"""Set by the server itself from the URL `/mcp/RUN` (over HTTP): the run each logged record belongs to."""


def tool(name: str, description: str, properties: dict[str, Any] | None = None, **extra: Any) -> types.Tool:
    schema = {"type": "object", "properties": properties or {}}
    if "required" in extra:
        schema["required"] = extra.pop("required")
    return types.Tool(name=name, description=description, input_schema=schema, annotations=READ_ONLY, **extra)


BASE = [
    tool(DOTTED, "List the pods (a dotted name, as MCP allows)."),
    tool(TAKEN, "List the pods, named as the model APIs allow."),
    tool(LONG, "A tool whose name is longer than 64 characters."),
    tool(
        "weather",
        "Structured content that breaks its own output schema.",
        output_schema={
            "type": "object",
            "properties": {"temperature": {"type": "number"}},
            "required": ["temperature"],
        },
    ),
    tool(
        "text_only",
        "Declares an output schema and returns text only.",
        output_schema={"type": "object", "properties": {"count": {"type": "integer"}}},
    ),
    tool(
        "mutate", "Changes this server's tool list: removes gone_tool, changes drifting_tool, adds new_tool."
    ),
    tool(DRIFTING, "A tool whose schema changes when mutate runs.", {"pod": {"type": "string"}}),
    tool(GONE, "A tool that goes away when mutate runs."),
    tool("progress_for", "Reports progress every 10 ms for `seconds`.", {"seconds": {"type": "number"}}),
    tool("progress_forever", "Reports progress every 10 ms until it is cancelled."),
    tool("hang", "Never answers, until it is cancelled."),
    tool("contents", "Returns every kind of content block."),
    tool(
        "ask_the_client",
        "Sends the client a sampling, an elicitation and a roots request; says what came back.",
    ),
]
MUTATED_DRIFTING = tool(
    DRIFTING,
    "A tool whose schema changes when mutate runs.",
    {"pod": {"type": "string"}, "force": {"type": "boolean"}},
    required=["force"],
)


class State:
    """One connection's tool list (over HTTP, one per MCP session)."""

    def __init__(self) -> None:
        self.announced = False
        self.mutated = False

    def tools(self) -> list[types.Tool]:
        listed = [t for t in BASE if not (self.mutated and t.name == GONE)]
        if self.mutated:
            listed = [MUTATED_DRIFTING if t.name == DRIFTING else t for t in listed]
            listed.append(tool(NEW, "A tool added by mutate."))
        if self.announced:
            listed.append(tool(LATE, "A tool the server added at connect time."))
        return listed


def build(options: argparse.Namespace) -> Server[Any]:
    log = Path(options.log)
    states: dict[str | None, State] = {}

    def write(record: dict[str, Any], ctx: Any) -> None:
        request = getattr(ctx, "request", None)
        record["run"] = request.headers.get(RUN_HEADER) if request is not None else None
        with log.open("a", encoding="utf-8") as file:
            file.write(json.dumps(record, sort_keys=True) + "\n")

    def state_of(ctx: Any) -> State:
        request = getattr(ctx, "request", None)
        session = request.headers.get("mcp-session-id") if request is not None else None
        return states.setdefault(session, State())

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        cursor = params.cursor if params is not None else None
        client = ctx.session.client_params
        write(
            {
                "method": "tools/list",
                "cursor": cursor,
                "client_info": client.client_info.model_dump(mode="json") if client else None,
                "capabilities": client.capabilities.model_dump(mode="json", exclude_none=True)
                if client
                else None,
            },
            ctx,
        )
        state = state_of(ctx)
        if (
            not state.announced
        ):  # a tool registered at connect time, announced while this listing is in flight
            state.announced = True
            await ctx.session.send_notification(
                types.ToolListChangedNotification(), related_request_id=ctx.request_id
            )
            return types.ListToolsResult(tools=[t for t in state.tools() if t.name != LATE])
        if options.endless_cursor:
            following = "again" if options.endless_cursor == "same" else str(int(cursor or "0") + 1)
            return types.ListToolsResult(tools=state.tools()[:4], next_cursor=following)
        if options.pages:
            page = int(cursor or "0")
            listed = [tool(f"extra_{n:03d}", f"Paged tool {n}.") for n in range(options.pages)]
            following = str(page + 1) if page + 1 < options.pages else None
            return types.ListToolsResult(
                tools=[*(state.tools() if page == 0 else []), listed[page]], next_cursor=following
            )
        return types.ListToolsResult(tools=state.tools())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, dict(params.arguments or {})
        meta = dict(ctx.meta or {})
        token = meta.get("progress_token", meta.get("progressToken"))
        write({"method": "tools/call", "name": name, "arguments": arguments, "progress_token": token}, ctx)
        try:
            return await answer(ctx, name, arguments)
        except anyio.get_cancelled_exc_class():  # the client's notifications/cancelled (or the end)
            write({"method": "cancelled", "name": name}, ctx)
            raise

    async def answer(ctx: Any, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        text = types.TextContent
        if name in (DOTTED, TAKEN, LONG, LATE, GONE, NEW, DRIFTING):
            return types.CallToolResult(content=[text(text=f"{name}:\n{PODS}")])
        if name == "weather":
            return types.CallToolResult(
                content=[text(text='{"temperature": "hot"}')], structured_content={"temperature": "hot"}
            )
        if name == "text_only":
            return types.CallToolResult(content=[text(text="3 pods")])
        if name == "mutate":
            state_of(ctx).mutated = True
            # On the call's own stream (over HTTP, the POST's), so that it arrives before the result.
            await ctx.session.send_notification(
                types.ToolListChangedNotification(), related_request_id=ctx.request_id
            )
            return types.CallToolResult(content=[text(text="the tool list changed")])
        if name == "progress_for":
            sent = await report_progress(ctx, float(arguments.get("seconds", 0)))
            return types.CallToolResult(content=[text(text=f"done after {sent} progress notifications")])
        if name == "progress_forever":
            await report_progress(ctx, float("inf"))
        if name == "hang":
            await anyio.sleep_forever()
        if name == "contents":
            return types.CallToolResult(content=every_kind_of_content())
        if name == "ask_the_client":
            return types.CallToolResult(content=[text(text=await ask_the_client(ctx))])
        return types.CallToolResult(content=[text(text=f"no tool {name}")], is_error=True)

    async def ask_the_client(ctx: Any) -> str:
        """What the client answered each request a server may send it (one line each)."""
        from mcp.shared.exceptions import MCPError

        sampling = types.CreateMessageRequest(
            params=types.CreateMessageRequestParams(
                messages=[types.SamplingMessage(role="user", content=types.TextContent(text="Summarize."))],
                max_tokens=10,
            )
        )
        elicitation = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message="Which namespace?", requested_schema={"type": "object", "properties": {}}
            )
        )
        answers = []
        for request, result_type in (
            (sampling, types.CreateMessageResult),
            (elicitation, types.ElicitResult),
            (types.ListRootsRequest(), types.ListRootsResult),
        ):
            try:
                await ctx.session.send_request(request, result_type)
                answers.append(f"{request.method}: answered")
            except MCPError as error:
                answers.append(f"{request.method}: error {error.code}: {error.message}")
        return "\n".join(answers)

    async def report_progress(ctx: Any, seconds: float) -> int:
        sent = 0
        with anyio.move_on_after(seconds):
            while True:
                sent += 1
                await ctx.session.report_progress(sent, None, f"step {sent}")
                await anyio.sleep(0.01)
        return sent

    return Server("any-server", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


def every_kind_of_content() -> list[Any]:
    user_only = types.Annotations(audience=["user"])
    return [
        types.TextContent(text="Three blocks follow."),
        types.TextContent(text=USER_ONLY, annotations=user_only),
        types.ResourceLink(
            name="runbook",
            title="Crash-loop runbook",
            uri="https://runbooks.example.com/crashloop",
            description="What to check when a pod crash-loops",
            mime_type="text/html",
        ),
        types.EmbeddedResource(
            resource=types.TextResourceContents(
                uri="file:///etc/app.conf", mime_type="text/plain", text="DB_HOST=db"
            )
        ),
        types.EmbeddedResource(
            resource=types.BlobResourceContents(
                uri="file:///core.dump", mime_type="application/octet-stream", blob="AAAAAAAA"
            )
        ),
        types.ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--pages", type=int, default=0)
    parser.add_argument("--endless-cursor", choices=["same", "fresh"])
    options = parser.parse_args()
    server = build(options)
    if options.http:
        serve_http(server)
        return

    async def stdio() -> None:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(stdio)


def serve_http(server: Server[Any]) -> None:
    import socket

    import uvicorn

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(f"serving http://127.0.0.1:{listener.getsockname()[1]}/mcp", flush=True)
    app = server.streamable_http_app()

    async def named(scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path.startswith("/mcp/"):
            headers = [*(scope.get("headers") or []), (RUN_HEADER.encode(), path[len("/mcp/") :].encode())]
            scope = {**scope, "path": "/mcp", "raw_path": b"/mcp", "headers": headers}
        await app(scope, receive, send)

    config = uvicorn.Config(named, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    sys.exit(main())
