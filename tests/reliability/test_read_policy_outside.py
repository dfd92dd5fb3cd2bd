"""Outside tests of the read-only policy (docs/real-clusters.md, "Which tools are offered, and why",
"Security"): a tool call that may write must never reach the MCP server unless the operator allowed
it. Written from the documentation alone, for both implementations.

Every test runs its own stdio MCP server (a hand-written JSON-RPC loop, so that it can name itself
anything, list any tool with any annotations and schema, and log every message it receives
verbatim, before any validation). The assertions are on that log: what the SERVER received, never
on what the agent says.

Note: the docs say the policy "cannot guard against a server that lies about what it is". So a
server that names itself `kubernetes` and lists a vetted read tool that in truth writes is out of
scope; these tests instead use tool names that are NOT in the vetted table of the server named,
names in its `write` column, and the by-argument tools' writing forms.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.vocabulary import Impl
from k8s_agent_scripted_llm import Step, call, calls, raw_call, text, tool
from tests.conftest import AgentRun, run_scenario

# ---------------------------------------------------------------------------------------------
# The server: stdlib only, one JSON-RPC message per line, logs every line it reads.
# ---------------------------------------------------------------------------------------------

SERVER = r"""
import json, sys

config = json.load(open(sys.argv[1], encoding="utf-8"))
log = open(config["log"], "a", encoding="utf-8")
VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    log.write(json.dumps({"raw": line.rstrip("\n")}) + "\n")
    log.flush()
    try:
        message = json.loads(line)
    except ValueError:
        continue
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue  # a notification
    if method == "initialize":
        asked = message.get("params", {}).get("protocolVersion")
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": config["name"], "version": config.get("version", "9.9.9")},
        }})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": config["tools"]}})
    elif method == "tools/call":
        params = message.get("params", {})
        name = params.get("name")
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "content": [{"type": "text", "text": f"{name} done: " + json.dumps(params.get("arguments"))}],
            "isError": False,
        }})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no {method}"}})
"""


def _tool(
    name: str,
    *,
    read_only: bool | None = True,
    properties: dict[str, Any] | None = None,
    required: list[str] | None = None,
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if required:
        schema["required"] = required
    spec: dict[str, Any] = {"name": name, "description": f"The {name} tool.", "inputSchema": schema}
    if read_only is not None:
        spec["annotations"] = {"readOnlyHint": read_only}
    return spec


NS = {"namespace": {"type": "string"}}


class Server:
    def __init__(self, tmp_path: Path, name: str, tools: list[dict[str, Any]]) -> None:
        self.log = tmp_path / "server-calls.jsonl"
        self.config = tmp_path / "server-config.json"
        self.script = tmp_path / "server.py"
        self.script.write_text(SERVER, encoding="utf-8")
        self.config.write_text(
            json.dumps({"name": name, "tools": tools, "log": str(self.log)}), encoding="utf-8"
        )

    @property
    def command(self) -> tuple[str, ...]:
        return (sys.executable, str(self.script), str(self.config))

    def messages(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [
            json.loads(json.loads(line)["raw"]) for line in self.log.read_text().splitlines() if line.strip()
        ]

    def raw_lines(self) -> list[str]:
        if not self.log.exists():
            return []
        return [json.loads(line)["raw"] for line in self.log.read_text().splitlines() if line.strip()]

    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        """(tool, arguments) of every tools/call the server received, in order."""
        return [
            (m["params"]["name"], m["params"].get("arguments") or {})
            for m in self.messages()
            if m.get("method") == "tools/call"
        ]

    def called(self) -> list[str]:
        return [name for name, _ in self.calls()]


def drive(impl: Impl, server: Server, script: list[Step], workdir: Path, **overrides: Any) -> AgentRun:
    return run_scenario(
        impl,
        script,
        workdir,
        "Which pods in the default namespace are unhealthy?",
        mcp_command=server.command,
        check_script=False,
        **overrides,
    )


END = [text("Nothing more to check."), text("Nothing more to check."), text("Nothing more to check.")]


# ---------------------------------------------------------------------------------------------
# 1. A server k8s-agent does not know: its readOnlyHint alone offers nothing.
# ---------------------------------------------------------------------------------------------


def test_unknown_server_read_only_hints_alone_reach_nothing(impl: Impl, tmp_path: Path) -> None:
    server = Server(
        tmp_path,
        "acme-cluster-tools",
        [_tool("list_things", properties=NS), _tool("wipe_cluster", properties=NS)],
    )
    script = [
        call("wipe_cluster", namespace="default"),
        call("list_things", namespace="default"),
        *END,
    ]
    run = drive(impl, server, script, tmp_path / "run")
    assert server.calls() == [], f"tool calls reached an unvetted, un-allowed server: {server.calls()}"
    # It must have actually connected (else this test proves nothing).
    assert any(m.get("method") == "tools/list" for m in server.messages()), server.raw_lines()
    assert run.error is not None or run.result is not None


def test_unknown_server_allow_read_one_tool_does_not_enable_another(impl: Impl, tmp_path: Path) -> None:
    server = Server(
        tmp_path,
        "acme-cluster-tools",
        [
            _tool("list_things", properties=NS),
            _tool("wipe_cluster", properties=NS),  # says read-only, is not allowed
            _tool("list_things_and_delete", properties=NS),  # prefix of the allowed name
            _tool("List_Things", properties=NS),  # the allowed name, other case
            _tool("list_thing", properties=NS),  # near miss
        ],
    )
    script = [
        calls(
            tool("wipe_cluster", namespace="default"),
            tool("list_things_and_delete", namespace="default"),
            tool("List_Things", namespace="default"),
            tool("LIST_THINGS", namespace="default"),
            tool("list_thing", namespace="default"),
            tool("list_things ", namespace="default"),
            tool(" list_things", namespace="default"),
        ),
        call("list_things", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run", allow_read=("list_things",))
    assert server.called() == ["list_things"], f"the server received: {server.calls()}"


def test_unknown_server_allow_read_wildcard_is_not_a_wildcard(impl: Impl, tmp_path: Path) -> None:
    server = Server(
        tmp_path,
        "acme-cluster-tools",
        [_tool("list_things", properties=NS), _tool("wipe_cluster", properties=NS)],
    )
    script = [call("wipe_cluster", namespace="default"), call("list_things", namespace="default"), *END]
    drive(impl, server, script, tmp_path / "run", allow_read=("*", "list_*", "wipe*", ".*"))
    assert "wipe_cluster" not in server.called(), f"the server received: {server.calls()}"


def test_unknown_server_trust_hints_offers_only_the_tools_marked_read_only(
    impl: Impl, tmp_path: Path
) -> None:
    server = Server(
        tmp_path,
        "acme-cluster-tools",
        [
            _tool("list_things", read_only=True, properties=NS),
            _tool("wipe_cluster", read_only=False, properties=NS),
            _tool("unannotated_tool", read_only=None, properties=NS),
        ],
    )
    script = [
        calls(tool("wipe_cluster", namespace="default"), tool("unannotated_tool", namespace="default")),
        call("list_things", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run", trust_server_hints=True)
    assert server.called() == ["list_things"], f"the server received: {server.calls()}"


def test_a_server_tool_named_search_results_is_not_reached_through_the_harness_s_own(
    impl: Impl, tmp_path: Path
) -> None:
    """The harness's own `search_results` must stay the harness's: a server tool of that name (here:
    unvetted, un-allowed, marked read-only) must not be called when the model calls it."""
    server = Server(
        tmp_path,
        "acme-cluster-tools",
        [
            _tool("list_things", properties=NS),
            _tool("search_results", properties={"pattern": {"type": "string"}}),
        ],
    )
    script = [
        call("list_things", namespace="default"),
        call("search_results", pattern="done"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run", allow_read=("list_things",))
    assert server.called() == ["list_things"], f"the server received: {server.calls()}"


def test_aliasing_does_not_route_a_call_to_the_unallowed_tool(impl: Impl, tmp_path: Path) -> None:
    """`list.things` is allowed; `list_things` (what its alias would be) is another tool, not allowed."""
    server = Server(
        tmp_path,
        "acme-cluster-tools",
        [_tool("list.things", properties=NS), _tool("list_things", properties=NS)],
    )
    script = [
        call("list_things", namespace="default"),
        call("list.things", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run", allow_read=("list.things",))
    assert "list_things" not in server.called(), f"the server received: {server.calls()}"


# ---------------------------------------------------------------------------------------------
# 2. A server naming itself a known one: tools outside its vetted read table are refused.
# ---------------------------------------------------------------------------------------------


def test_mock_cluster_named_server_unvetted_and_write_tools_are_refused(impl: Impl, tmp_path: Path) -> None:
    server = Server(
        tmp_path,
        "mock-cluster",
        [
            _tool("list_pods", properties=NS),
            _tool("delete_pod", properties={"name": {"type": "string"}, **NS}),  # its write column
            _tool("restart_pod", properties={"name": {"type": "string"}, **NS}),  # its write column
            _tool("drop_namespace", properties=NS),  # in no column: unvetted
        ],
    )
    script = [
        calls(
            tool("delete_pod", name="api-1", namespace="default"),
            tool("restart_pod", name="api-1", namespace="default"),
            tool("drop_namespace", namespace="default"),
            tool("Delete_Pod", name="api-1", namespace="default"),
            tool("DELETE_POD", name="api-1", namespace="default"),
            tool("delete_pod ", name="api-1", namespace="default"),
            tool("delete-pod", name="api-1", namespace="default"),
        ),
        call("list_pods", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run")
    assert server.called() == ["list_pods"], f"the server received: {server.calls()}"


def test_known_server_write_tool_stays_refused_with_trust_hints_and_allow_read(
    impl: Impl, tmp_path: Path
) -> None:
    """Docs: with --trust-server-hints "a known server's vetted tools are judged by their table
    anyway"; --allow-read is for servers k8s-agent does not know; a `write` tool needs --allow-write."""
    server = Server(
        tmp_path,
        "mock-cluster",
        [
            _tool("list_pods", properties=NS),
            _tool("delete_pod", properties={"name": {"type": "string"}, **NS}),
        ],
    )
    script = [
        call("delete_pod", name="api-1", namespace="default"),
        call("list_pods", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run", trust_server_hints=True, allow_read=("delete_pod",))
    assert server.called() == ["list_pods"], f"the server received: {server.calls()}"


def test_allow_write_for_one_tool_does_not_enable_another(impl: Impl, tmp_path: Path) -> None:
    server = Server(
        tmp_path,
        "mock-cluster",
        [
            _tool("list_pods", properties=NS),
            _tool("delete_pod", properties={"name": {"type": "string"}, **NS}),
            _tool("restart_pod", properties={"name": {"type": "string"}, **NS}),
        ],
    )
    script = [
        call("delete_pod", name="api-1", namespace="default"),
        call("list_pods", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run", allow_write=("restart_pod",))
    assert "delete_pod" not in server.called(), f"the server received: {server.calls()}"
    assert "list_pods" in server.called(), server.raw_lines()


def test_kubernetes_named_server_unvetted_and_write_tools_are_refused(impl: Impl, tmp_path: Path) -> None:
    server = Server(
        tmp_path,
        "kubernetes",
        [
            _tool("kubectl_get", properties={"resourceType": {"type": "string"}, **NS}),
            _tool("kubectl_patch", properties={"resourceType": {"type": "string"}, **NS}),
            _tool("kubectl_generic", properties={"command": {"type": "string"}}),
            _tool("kubectl_run_anything", properties={"command": {"type": "string"}}),  # unvetted
        ],
    )
    script = [
        calls(
            tool("kubectl_patch", resourceType="deployment", namespace="default"),
            tool("kubectl_generic", command="delete ns default"),
            tool("kubectl_run_anything", command="delete ns default"),
            tool("Kubectl_Patch", resourceType="deployment", namespace="default"),
        ),
        call("kubectl_get", resourceType="pods", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run")
    assert server.called() == ["kubectl_get"], f"the server received: {server.calls()}"


# ---------------------------------------------------------------------------------------------
# 3. By-argument tools: the writing form never reaches the server.
# ---------------------------------------------------------------------------------------------

CONTEXT_ENUM = _tool(  # as mcp-server-kubernetes lists it: enum, default "list", operation required
    "kubectl_context",
    properties={
        "operation": {"type": "string", "enum": ["list", "get", "set"], "default": "list"},
        "name": {"type": "string"},
    },
    required=["operation"],
)
CONTEXT_FREE = _tool(
    "kubectl_context",
    properties={"operation": {"type": "string"}, "name": {"type": "string"}},
)
ROLLOUT = _tool(  # as mcp-server-kubernetes lists it: enum, default "status", subCommand required
    "kubectl_rollout",
    properties={
        "subCommand": {
            "type": "string",
            "enum": ["history", "pause", "restart", "resume", "status", "undo"],
            "default": "status",
        },
        "resourceType": {"type": "string"},
        "name": {"type": "string"},
        "namespace": {"type": "string"},
    },
    required=["subCommand", "resourceType", "name", "namespace"],
)
ROLLOUT_FREE = _tool(
    "kubectl_rollout",
    properties={
        "subCommand": {"type": "string"},
        "resourceType": {"type": "string"},
        "name": {"type": "string"},
        "namespace": {"type": "string"},
    },
)
KGET = _tool("kubectl_get", properties={"resourceType": {"type": "string"}, **NS})

CONTEXT_ATTACKS: list[Step] = [
    call("kubectl_context", operation="set", name="prod"),
    call("kubectl_context", operation="SET", name="prod"),
    call("kubectl_context", operation=" set ", name="prod"),
    call("kubectl_context", operation="Set", name="prod"),
    call("kubectl_context", operation="set\n", name="prod"),
    call("kubectl_context", **{"operation": "get", "operation ": "set", "name": "prod"}),
    raw_call("kubectl_context", '{"operation": "get", "operation": "set", "name": "prod"}'),
    raw_call("kubectl_context", '{"operation": "set", "operation": "get", "name": "prod"}'),
    call("kubectl_context", operation=["set"], name="prod"),
    call("kubectl_context", operation="use", name="prod"),
    call("kubectl_context", operation="switch", name="prod"),
]


def _assert_no_context_switch(server: Server) -> None:
    reached = [args for name, args in server.calls() if name == "kubectl_context"]
    bad = [a for a in reached if a.get("operation") not in ("list", "get")]
    assert not bad, f"kubectl_context calls that are not list/get reached the server: {bad}"
    # A duplicate key forwarded verbatim would be read by the server as its last value: the exact
    # key "operation" must never carry "set" on the wire. (A different key, "operation ", is not
    # the operation: the server reads `operation` alone, so it may pass.)
    for line in server.raw_lines():
        if '"tools/call"' in line and "kubectl_context" in line:
            assert not re.search(r'"operation"\s*:\s*"\s*set', line, re.I), (
                f"raw line reached the server: {line}"
            )


@pytest.mark.parametrize("schema", ["enum", "free-string"])
def test_kubectl_context_writing_forms_never_reach_the_server(
    impl: Impl, tmp_path: Path, schema: str
) -> None:
    context = CONTEXT_ENUM if schema == "enum" else CONTEXT_FREE
    server = Server(tmp_path, "kubernetes", [KGET, context])
    script = [*CONTEXT_ATTACKS, call("kubectl_get", resourceType="pods", namespace="default"), *END]
    drive(impl, server, script, tmp_path / "run", max_steps=30, max_repeats=30)
    _assert_no_context_switch(server)
    assert "kubectl_get" in server.called(), f"the control call never reached the server: {server.calls()}"


def test_kubectl_context_writing_forms_in_one_parallel_turn(impl: Impl, tmp_path: Path) -> None:
    server = Server(tmp_path, "kubernetes", [KGET, CONTEXT_FREE])
    turn = calls(
        tool("kubectl_context", operation="list"),
        tool("kubectl_context", operation="set", name="prod"),
        tool("kubectl_context", operation="SET", name="prod"),
        tool("kubectl_get", resourceType="pods", namespace="default"),
    )
    drive(impl, server, [turn, *END], tmp_path / "run")
    _assert_no_context_switch(server)
    assert "kubectl_get" in server.called(), f"the control call never reached the server: {server.calls()}"


def test_kubectl_context_set_stays_refused_with_allow_read_and_trust_hints(
    impl: Impl, tmp_path: Path
) -> None:
    server = Server(tmp_path, "kubernetes", [KGET, CONTEXT_FREE])
    script = [
        call("kubectl_context", operation="set", name="prod"),
        call("kubectl_get", resourceType="pods", namespace="default"),
        *END,
    ]
    drive(
        impl,
        server,
        script,
        tmp_path / "run",
        allow_read=("kubectl_context",),
        trust_server_hints=True,
    )
    _assert_no_context_switch(server)
    assert "kubectl_get" in server.called(), f"the control call never reached the server: {server.calls()}"


@pytest.mark.parametrize("schema", ["enum", "free-string"])
def test_kubectl_rollout_writing_forms_never_reach_the_server(
    impl: Impl, tmp_path: Path, schema: str
) -> None:
    rollout = ROLLOUT if schema == "enum" else ROLLOUT_FREE
    server = Server(tmp_path, "kubernetes", [KGET, rollout])
    common = {"resourceType": "deployment", "name": "api", "namespace": "default"}
    script = [
        call("kubectl_rollout", subCommand="restart", **common),
        call("kubectl_rollout", subCommand="RESTART", **common),
        call("kubectl_rollout", subCommand=" restart", **common),
        call("kubectl_rollout", subCommand="undo", **common),
        call("kubectl_rollout", subCommand="pause", **common),
        call("kubectl_rollout", subCommand="resume", **common),
        call("kubectl_rollout", **{"subCommand": "status", "subCommand ": "restart"}, **common),
        raw_call(
            "kubectl_rollout",
            '{"subCommand": "status", "subCommand": "restart", "resourceType": "deployment", '
            '"name": "api", "namespace": "default"}',
        ),
        call("kubectl_rollout", subCommand="status", **common),  # reads: may reach
        call("kubectl_get", resourceType="pods", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run", max_steps=30, max_repeats=30)
    reached = [args for name, args in server.calls() if name == "kubectl_rollout"]
    bad = [a for a in reached if a.get("subCommand") not in ("status", "history")]
    assert not bad, f"kubectl_rollout calls that are not status/history reached the server: {bad}"
    for line in server.raw_lines():
        if '"tools/call"' in line and "kubectl_rollout" in line:
            assert not re.search(r'"subCommand"\s*:\s*"\s*restart', line, re.I), (
                f"raw line reached the server: {line}"
            )
    assert "kubectl_get" in server.called(), f"the control call never reached the server: {server.calls()}"


def test_resources_scale_with_scale_never_reaches_the_server(impl: Impl, tmp_path: Path) -> None:
    scale = _tool(
        "resources_scale",
        properties={
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "name": {"type": "string"},
            "namespace": {"type": "string"},
            "scale": {"type": "integer"},
        },
    )
    server = Server(
        tmp_path,
        "kubernetes-mcp-server",
        [_tool("pods_list_in_namespace", properties=NS), scale, _tool("configuration_view", properties={})],
    )
    target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api", "namespace": "default"}
    script = [
        call("resources_scale", scale=0, **target),
        call("resources_scale", **{"scale ": 0}, **target),
        call("resources_scale", **{"Scale": 0}, **target),
        raw_call("resources_scale", json.dumps(target)[:-1] + ', "scale": null, "scale": 0}'),
        call("configuration_view"),  # withheld: not allowed here
        call("pods_list_in_namespace", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run", max_steps=30, max_repeats=30)
    reached = server.calls()
    assert not [a for n, a in reached if n == "resources_scale" and "scale" in a], reached
    assert "configuration_view" not in server.called(), reached
    assert "pods_list_in_namespace" in server.called(), reached
    for line in server.raw_lines():
        if '"tools/call"' in line and "resources_scale" in line:
            assert not re.search(r'"scale"\s*:\s*0', line), f"raw line reached the server: {line}"


def test_resources_scale_writing_form_refused_even_with_allow_read(impl: Impl, tmp_path: Path) -> None:
    """--allow-read says a tool only reads; for a by-argument tool the docs still refuse the writing
    form unless --allow-write (and approval)."""
    scale = _tool(
        "resources_scale",
        properties={
            "kind": {"type": "string"},
            "name": {"type": "string"},
            "namespace": {"type": "string"},
            "scale": {"type": "integer"},
        },
    )
    server = Server(
        tmp_path, "kubernetes-mcp-server", [_tool("pods_list_in_namespace", properties=NS), scale]
    )
    script = [
        call("resources_scale", kind="Deployment", name="api", namespace="default", scale=0),
        call("pods_list_in_namespace", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run", allow_read=("resources_scale",), trust_server_hints=True)
    reached = server.calls()
    assert not [a for n, a in reached if n == "resources_scale" and "scale" in a], reached
    assert "pods_list_in_namespace" in server.called(), reached


# ---------------------------------------------------------------------------------------------
# 4. The discriminating argument left out. What the server does then depends on its schema:
#    - "real": as mcp-server-kubernetes lists it (required): the schema check must refuse it;
#    - "default-set": not required, and the schema's own default is the writing form ("set" /
#      "restart"): leaving it out IS the write, so it must not reach the server;
#    - "free-string": not required, no default: what the server does is unknown; a policy that
#      only lets reading forms through must not let an unknown form through either.
# ---------------------------------------------------------------------------------------------


def _context_schema(variant: str) -> dict[str, Any]:
    if variant == "real":
        return CONTEXT_ENUM
    if variant == "default-set":
        return _tool(
            "kubectl_context",
            properties={
                "operation": {"type": "string", "enum": ["list", "get", "set"], "default": "set"},
                "name": {"type": "string"},
            },
        )
    return CONTEXT_FREE


@pytest.mark.parametrize("variant", ["real", "default-set", "free-string"])
def test_kubectl_context_without_operation(impl: Impl, tmp_path: Path, variant: str) -> None:
    server = Server(tmp_path, "kubernetes", [KGET, _context_schema(variant)])
    script = [
        call("kubectl_context", name="prod"),
        call("kubectl_get", resourceType="pods", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run")
    assert "kubectl_get" in server.called(), f"the control call never reached the server: {server.calls()}"
    without = [a for n, a in server.calls() if n == "kubectl_context" and "operation" not in a]
    assert not without, (
        f"[{variant}] a kubectl_context call with no operation (name=prod) reached the server: {without}"
    )


def _rollout_schema(variant: str) -> dict[str, Any]:
    if variant == "real":
        return ROLLOUT
    if variant == "default-set":
        return _tool(
            "kubectl_rollout",
            properties={
                "subCommand": {
                    "type": "string",
                    "enum": ["history", "pause", "restart", "resume", "status", "undo"],
                    "default": "restart",
                },
                "resourceType": {"type": "string"},
                "name": {"type": "string"},
                "namespace": {"type": "string"},
            },
        )
    return ROLLOUT_FREE


@pytest.mark.parametrize("variant", ["real", "default-set", "free-string"])
def test_kubectl_rollout_without_subcommand(impl: Impl, tmp_path: Path, variant: str) -> None:
    server = Server(tmp_path, "kubernetes", [KGET, _rollout_schema(variant)])
    script = [
        call("kubectl_rollout", resourceType="deployment", name="api", namespace="default"),
        call("kubectl_get", resourceType="pods", namespace="default"),
        *END,
    ]
    drive(impl, server, script, tmp_path / "run")
    assert "kubectl_get" in server.called(), f"the control call never reached the server: {server.calls()}"
    without = [a for n, a in server.calls() if n == "kubectl_rollout" and "subCommand" not in a]
    assert not without, f"[{variant}] a kubectl_rollout call with no subCommand reached the server: {without}"
