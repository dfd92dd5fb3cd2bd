"""Which tools only read: decided by what the harness can stand behind, never by a server's word.

A server's `readOnlyHint` is a hint (the MCP specification: untrusted unless the server is), and a
wrong one is not hypothetical: mcp-server-kubernetes labels `kubectl_context` read-only, and its
`operation: "set"` rewrites the kubeconfig. So:

- For the servers k8s-agent knows (recognised by the name they give at initialize), a vetted table
  says, tool by tool, what each does: reads, writes, or does either by its arguments (then each call
  is judged by its arguments: `kubectl_context` get or set, `resources_scale` with or without a new
  scale). A tool the table does not list (a newer version's) is treated as any other server's.
- Any other server's tools are possible writes until the user allows them by name (`--allow-read
  TOOL`), or vouches for the server's own hints (`--trust-server-hints`).
- A possible write is offered only when the user allows it with `--allow-write TOOL`, and then each
  call asks the operator first.

The policy guards against a tool that writes under a read-only label; it does not guard against a
server that lies about what it is (one that can run code with your credentials can do anything).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from k8s_agent_harness.cluster.tools import ToolSpec


class Access(StrEnum):
    """What a tool is known to do."""

    READ = "read"
    """Only reads: offered."""
    WRITE = "write"
    """Changes something: offered only with --allow-write, each call approved."""
    BY_ARGUMENT = "by-argument"
    """Reads or writes by its arguments: offered; a call that writes is refused like a write tool."""
    WITHHELD = "withheld"
    """Reads, but what it reads is not diagnosis data (credentials): offered only with --allow-read."""
    UNVETTED = "unvetted"
    """A tool of a server k8s-agent does not know: a possible write, offered only when allowed."""


WriteTest = Callable[[Mapping[str, Any]], str | None]
"""Of a BY_ARGUMENT tool: why a call with these arguments writes; None when it only reads."""


@dataclass(frozen=True)
class Rule:
    """One vetted tool: what it does, and why the table says so."""

    access: Access
    why: str
    writes: WriteTest | None = None


@dataclass(frozen=True)
class Verdict:
    """The policy's word on one listed tool for this run."""

    access: Access
    why: str
    offered: bool
    """The model may call it."""
    approval: bool
    """Each call asks the operator first (a possible write the user allowed with --allow-write)."""


def _when(argument: str, reads: Iterable[str], what: str) -> WriteTest:
    """A tool that writes unless `argument` is exactly one of `reads`. A call that leaves it out is
    judged a write: what the server then does is its default, which its schema may make a write."""
    allowed = tuple(reads)

    def writes(arguments: Mapping[str, Any]) -> str | None:
        if argument not in arguments:
            return (
                f"{argument} is missing (the server's default may be one that {what}); only "
                f"{argument} {' or '.join(allowed)} reads"
            )
        value = arguments[argument]
        if isinstance(value, str) and value in allowed:
            return None
        return f"{argument} {value!r} {what}; only {' or '.join(allowed)} reads"

    return writes


def _without(argument: str, what: str) -> WriteTest:
    """A tool that writes when `argument` is given (not null)."""

    def writes(arguments: Mapping[str, Any]) -> str | None:
        if arguments.get(argument) is None:
            return None
        return f"with {argument} it {what}; without it, it only reads"

    return writes


def _reading(*names: str) -> dict[str, Rule]:
    return dict.fromkeys(names, Rule(Access.READ, "reads the cluster"))


def _writing(*names: str) -> dict[str, Rule]:
    return dict.fromkeys(names, Rule(Access.WRITE, "changes the cluster"))


KUBERNETES_MCP_SERVER_RULES: dict[str, Rule] = {
    **_reading(
        "events_list",
        "namespaces_list",
        "projects_list",
        "nodes_log",
        "nodes_stats_summary",
        "nodes_top",
        "pods_get",
        "pods_list",
        "pods_list_in_namespace",
        "pods_log",
        "pods_top",
        "resources_get",
        "resources_list",
        "helm_list",
    ),
    "resources_scale": Rule(
        Access.BY_ARGUMENT,
        "reads a workload's scale, or sets it when given one",
        _without("scale", "sets the workload's replicas"),
    ),
    "configuration_view": Rule(Access.WITHHELD, "prints the kubeconfig, its credentials included"),
    **_writing(
        "pods_delete",
        "pods_exec",
        "pods_run",
        "resources_create_or_update",
        "resources_delete",
        "helm_install",
        "helm_uninstall",
    ),
}
"""containers/kubernetes-mcp-server (Go) 0.0.67, toolsets core, config and helm (the preset starts `core`
only, --read-only); its other toolsets' tools are unvetted."""

MCP_SERVER_KUBERNETES_RULES: dict[str, Rule] = {
    **_reading("kubectl_get", "kubectl_describe", "kubectl_logs", "list_api_resources", "explain_resource"),
    "ping": Rule(Access.READ, "answers the client, reads nothing"),
    "kubectl_context": Rule(
        Access.BY_ARGUMENT,
        "lists or shows kubeconfig contexts; `set` switches the kubeconfig's current context",
        _when("operation", ("list", "get"), "switches the kubeconfig's current context"),
    ),
    "kubectl_rollout": Rule(
        Access.BY_ARGUMENT,
        "shows a rollout's status or history; its other subcommands restart, pause or undo it",
        _when("subCommand", ("status", "history"), "changes the rollout"),
    ),
    **_writing(
        "cleanup",
        "kubectl_apply",
        "kubectl_delete",
        "kubectl_create",
        "kubectl_scale",
        "kubectl_patch",
        "kubectl_generic",
        "kubectl_reconnect",
        "install_helm_chart",
        "upgrade_helm_chart",
        "uninstall_helm_chart",
        "node_management",
        "port_forward",
        "stop_port_forward",
        "exec_in_pod",
    ),
}
"""Flux159/mcp-server-kubernetes (Node.js). `kubectl_get` reads Secrets too; its MASK_SECRETS and the
run's redaction keep their values from the model."""

MOCK_CLUSTER_RULES: dict[str, Rule] = {
    **_reading(
        "list_pods",
        "describe_pod",
        "get_pod_logs",
        "get_events",
        "list_nodes",
        "describe_node",
        "search_logs",
        "resources_list",
        "resources_get",
    ),
    **_writing("delete_pod", "restart_pod"),
}
"""k8s-agent's own mock cluster (k8s_agent_mock_cluster)."""

KNOWN_SERVERS: dict[str, dict[str, Rule]] = {
    "kubernetes-mcp-server": KUBERNETES_MCP_SERVER_RULES,
    "kubernetes": MCP_SERVER_KUBERNETES_RULES,
    "mock-cluster": MOCK_CLUSTER_RULES,
}
"""The vetted tables, by the name each server gives at initialize (`serverInfo.name`)."""

KNOWN_AS = {
    "kubernetes-mcp-server": "kubernetes-mcp-server",
    "kubernetes": "mcp-server-kubernetes",
    "mock-cluster": "k8s-agent's mock cluster",
}


@dataclass(frozen=True)
class ReadPolicy:
    """The run's read-only policy: the server's vetted table (if k8s-agent knows it) and what the user
    allowed by name."""

    server: str | None = None
    """The name the server gave at initialize."""
    allow_read: frozenset[str] = frozenset()
    allow_write: frozenset[str] = frozenset()
    trust_hints: bool = False

    @classmethod
    def of(
        cls,
        server: str | None,
        *,
        allow_read: Iterable[str] = (),
        allow_write: Iterable[str] = (),
        trust_hints: bool = False,
    ) -> ReadPolicy:
        return cls(server, frozenset(allow_read), frozenset(allow_write), trust_hints)

    @property
    def rules(self) -> Mapping[str, Rule]:
        return KNOWN_SERVERS.get(self.server or "", {})

    @property
    def known(self) -> bool:
        """Whether k8s-agent has a vetted table for this server."""
        return (self.server or "") in KNOWN_SERVERS

    def rule(self, tool: ToolSpec) -> Rule:
        """What the table (or, for a tool it does not list, the user) says the tool does."""
        rule = self.rules.get(tool.name)
        if rule is not None:
            return rule
        if self.trust_hints and tool.read_only is True:
            return Rule(Access.READ, "the server marks it read-only, and --trust-server-hints takes its word")
        return Rule(Access.UNVETTED, self._unvetted_why(tool))

    def _unvetted_why(self, tool: ToolSpec) -> str:
        where = (
            f"{KNOWN_AS[self.server]}'s vetted tools do not include it"
            if self.known and self.server
            else "k8s-agent does not know this server"
        )
        hint = {True: "marks it read-only", False: "marks it not read-only", None: "does not say"}
        return f"{where}; the server {hint[tool.read_only]} (a hint, not a guarantee)"

    def verdict(self, tool: ToolSpec, *names: str) -> Verdict:
        """Whether the model may call `tool` (known to it by `names` too), and with what approval."""
        rule = self.rule(tool)
        named = {tool.name, *names}
        if rule.access in (Access.READ, Access.BY_ARGUMENT):
            return Verdict(rule.access, rule.why, offered=True, approval=False)
        if rule.access in (Access.WITHHELD, Access.UNVETTED) and named & self.allow_read:
            return Verdict(
                rule.access, f"{rule.why}; allowed with --allow-read", offered=True, approval=False
            )
        if rule.access is not Access.WITHHELD and named & self.allow_write:
            return Verdict(
                rule.access, f"{rule.why}; allowed with --allow-write", offered=True, approval=True
            )
        return Verdict(rule.access, rule.why, offered=False, approval=False)

    def writes(self, tool: ToolSpec, arguments: Mapping[str, Any]) -> str | None:
        """Why this call of an offered tool writes (a BY_ARGUMENT tool's write form); None if it reads."""
        rule = self.rule(tool)
        if rule.access is not Access.BY_ARGUMENT or rule.writes is None:
            return None
        return rule.writes(arguments)
