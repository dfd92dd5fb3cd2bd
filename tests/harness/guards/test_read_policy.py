"""The read-only policy: what a tool does is decided by a vetted table or by the user, never by the
server's hints; and, through the gateway, no call reaches a server unless the policy allows it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k8s_agent_harness.cluster.tools import ToolSpec
from k8s_agent_harness.evidence.grounding import Evidence
from k8s_agent_harness.evidence.redact import Redactor
from k8s_agent_harness.guards.gateway import ToolGateway
from k8s_agent_harness.guards.read_policy import (
    KNOWN_SERVERS,
    MCP_SERVER_KUBERNETES_RULES,
    MOCK_CLUSTER_RULES,
    Access,
    ReadPolicy,
    Verdict,
)
from k8s_agent_harness.guards.supervisor import Supervisor
from k8s_agent_harness.model import prompts
from k8s_agent_harness.traces.trace import Recorder, TraceWriter
from k8s_agent_harness.vocabulary import Impl, Outcome
from tests.clusters import MOCK_TOOLS
from tests.harness.guards.test_gateway import FakeServer

OBJECT = {"type": "object"}


def spec(name: str, hint: bool | None, properties: dict[str, Any] | None = None) -> ToolSpec:
    schema = {"type": "object", "properties": properties or {}}
    return ToolSpec(name, f"{name}.", schema, read_only=hint)


@contextlib.contextmanager
def gateway_for(
    tmp_path: Path, tools: list[ToolSpec], policy: ReadPolicy, server: FakeServer, **options: Any
) -> Iterator[ToolGateway]:
    writer = TraceWriter(tmp_path / "trace.jsonl")
    recorder = Recorder(writer, run_id="r", impl=Impl.HANDWRITTEN, redactor=Redactor())
    supervisor = Supervisor(max_steps=100, max_repeats=100, max_seconds=600)
    try:
        gateway = ToolGateway(tools, server, recorder, supervisor, Evidence(), policy=policy, **options)
        gateway.openai_tools()
        yield gateway
    finally:
        writer.close()


def test_an_unknown_server_s_read_only_hints_offer_nothing() -> None:
    policy = ReadPolicy.of("some-server")
    verdict = policy.verdict(spec("get_things", True))
    assert (verdict.access, verdict.offered) == (Access.UNVETTED, False)
    assert "does not know this server" in verdict.why and "marks it read-only" in verdict.why


def test_the_user_allows_a_tool_by_name_or_vouches_for_the_server_s_hints() -> None:
    assert ReadPolicy.of("s", allow_read=["get_things"]).verdict(spec("get_things", None)).offered
    trusted = ReadPolicy.of("s", trust_hints=True)
    assert trusted.verdict(spec("get_things", True)).offered
    assert not trusted.verdict(spec("set_things", None)).offered
    assert not trusted.verdict(spec("set_things", False)).offered
    written = ReadPolicy.of("s", allow_write=["set_things"]).verdict(spec("set_things", False))
    assert (written.offered, written.approval) == (True, True)


def test_a_known_server_s_table_wins_over_its_hints_and_over_trust() -> None:
    # mcp-server-kubernetes marks kubectl_context read-only; its `set` rewrites the kubeconfig.
    policy = ReadPolicy.of("kubernetes", trust_hints=True)
    context = spec("kubectl_context", True, {"operation": {"type": "string"}, "name": {"type": "string"}})
    assert policy.verdict(context).access is Access.BY_ARGUMENT
    assert policy.writes(context, {"operation": "get"}) is None
    assert policy.writes(context, {"operation": "list"}) is None
    assert policy.writes(context, {"operation": "set", "name": "prod"}) is not None
    assert policy.writes(context, {"operation": "SET "}) is not None
    assert policy.writes(context, {"operation": ["get"]}) is not None  # not a word it knows: a write
    # Its write tools stay refused even when the server calls them read-only.
    assert not policy.verdict(spec("kubectl_delete", True)).offered
    # A tool its table does not list (a newer version's) is a possible write, unless the user trusts.
    assert not ReadPolicy.of("kubernetes").verdict(spec("kubectl_new_thing", True)).offered


def test_kubernetes_mcp_server_s_scale_reads_without_a_scale_and_its_config_view_is_withheld() -> None:
    policy = ReadPolicy.of("kubernetes-mcp-server")
    scale = spec("resources_scale", False)
    assert policy.verdict(scale).offered
    assert policy.writes(scale, {"kind": "Deployment", "name": "x"}) is None
    assert policy.writes(scale, {"kind": "Deployment", "name": "x", "scale": 3}) is not None
    view = spec("configuration_view", True)
    assert not policy.verdict(view).offered
    assert ReadPolicy.of("kubernetes-mcp-server", allow_read=["configuration_view"]).verdict(view).offered
    assert (
        not ReadPolicy.of("kubernetes-mcp-server", allow_write=["configuration_view"]).verdict(view).offered
    )


def test_each_verdict_says_why_and_only_an_allowed_write_asks_the_operator() -> None:
    """Every cell of the policy: what a tool is, what the user allowed, and the verdict's every field
    (the reason is what `k8s-agent tools` and the trace show the user)."""
    read = ReadPolicy.of("kubernetes-mcp-server").verdict(spec("pods_list", False))
    assert read == Verdict(Access.READ, "reads the cluster", offered=True, approval=False)
    trusted = ReadPolicy.of("s", trust_hints=True).verdict(spec("get_things", True))
    assert trusted == Verdict(
        Access.READ,
        "the server marks it read-only, and --trust-server-hints takes its word",
        offered=True,
        approval=False,
    )
    unknown = "k8s-agent does not know this server; the server {} (a hint, not a guarantee)"
    for hint, says in (
        (True, "marks it read-only"),
        (False, "marks it not read-only"),
        (None, "does not say"),
    ):
        assert ReadPolicy.of("s").verdict(spec("t", hint)) == Verdict(
            Access.UNVETTED, unknown.format(says), offered=False, approval=False
        )
    unlisted = ReadPolicy.of("kubernetes").verdict(spec("kubectl_new_thing", True))
    assert unlisted.why == (
        "mcp-server-kubernetes's vetted tools do not include it; the server marks it read-only "
        "(a hint, not a guarantee)"
    )
    view = spec("configuration_view", True)
    withheld = ReadPolicy.of("kubernetes-mcp-server", allow_read=["configuration_view"]).verdict(view)
    assert (withheld.access, withheld.offered, withheld.approval) == (Access.WITHHELD, True, False)
    assert withheld.why.endswith("; allowed with --allow-read")
    written = ReadPolicy.of("s", allow_write=["set_things"]).verdict(spec("set_things", False))
    assert (written.access, written.offered, written.approval) == (Access.UNVETTED, True, True)
    assert written.why == unknown.format("marks it not read-only") + "; allowed with --allow-write"
    refused = ReadPolicy.of("kubernetes").verdict(spec("kubectl_delete", True))
    assert (refused.access, refused.offered, refused.approval) == (Access.WRITE, False, False)


def test_a_call_that_leaves_out_the_deciding_argument_is_a_write_and_says_what_reads() -> None:
    policy = ReadPolicy.of("kubernetes")
    context = spec("kubectl_context", True, {"operation": {"type": "string"}})
    assert policy.writes(context, {}) == (
        "operation is missing (the server's default may be one that switches the kubeconfig's current "
        "context); only operation list or get reads"
    )
    assert policy.writes(context, {"operation": "set"}) == (
        "operation 'set' switches the kubeconfig's current context; only list or get reads"
    )


def test_every_vetted_table_says_why_and_tests_the_arguments_of_what_writes_by_them() -> None:
    for rules in KNOWN_SERVERS.values():
        for name, rule in rules.items():
            assert rule.why, name
            assert (rule.access is Access.BY_ARGUMENT) == (rule.writes is not None), name


def test_the_gateway_refuses_the_writing_form_of_a_tool_it_offers_for_reading(tmp_path: Path) -> None:
    server = FakeServer()
    context = spec("kubectl_context", True, {"operation": {"type": "string"}, "name": {"type": "string"}})
    with gateway_for(tmp_path, [context], ReadPolicy.of("kubernetes"), server) as gateway:
        refused = asyncio.run(
            gateway.call("c1", "kubectl_context", json.dumps({"operation": "set", "name": "prod"}))
        )
        shown = asyncio.run(gateway.call("c2", "kubectl_context", json.dumps({"operation": "get"})))

    assert refused.kind == Outcome.REFUSED
    why = MCP_SERVER_KUBERNETES_RULES["kubectl_context"].writes
    assert why is not None
    assert refused.content == prompts.write_call_refused("kubectl_context", str(why({"operation": "set"})))
    assert shown.kind == Outcome.EXECUTED
    assert server.received == [("kubectl_context", {"operation": "get"})]


def test_the_write_form_allowed_with_allow_write_asks_the_operator(tmp_path: Path) -> None:
    asked: list[str] = []

    async def operator(tool: str, arguments: Any) -> bool:
        asked.append(arguments["operation"])
        return True

    server = FakeServer()
    context = spec("kubectl_context", True, {"operation": {"type": "string"}})
    policy = ReadPolicy.of("kubernetes", allow_write=["kubectl_context"])
    with gateway_for(tmp_path, [context], policy, server, approver=operator) as gateway:
        asyncio.run(gateway.call("c1", "kubectl_context", json.dumps({"operation": "get"})))
        asyncio.run(gateway.call("c2", "kubectl_context", json.dumps({"operation": "set"})))

    assert asked == ["set"]  # the reading form runs without asking
    assert [arguments["operation"] for _, arguments in server.received] == ["get", "set"]


HINTS = st.sampled_from([True, False, None])
NAMES = st.sampled_from(
    "list_pods delete_pod kubectl_get kubectl_context kubectl_delete resources_scale pods_get "
    "configuration_view do_stuff get_things restart_pod kubectl_rollout".split()
)
SERVERS = st.sampled_from([None, "some-server", *KNOWN_SERVERS])
ARGUMENTS = st.fixed_dictionaries(
    {},
    optional={
        "operation": st.sampled_from(["get", "list", "set", "SET", "delete", ""]),
        "subCommand": st.sampled_from(["status", "history", "restart", "undo"]),
        "scale": st.one_of(st.none(), st.integers(0, 5)),
        "name": st.just("x"),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    server=SERVERS,
    tools=st.dictionaries(NAMES, HINTS, min_size=1, max_size=6),
    allow_read=st.sets(NAMES, max_size=2),
    trust=st.booleans(),
    calls=st.lists(st.tuples(NAMES, ARGUMENTS), min_size=1, max_size=8),
)
def test_no_call_reaches_the_server_unless_the_policy_allows_it_whatever_the_hints(
    tmp_path_factory: Any,
    server: str | None,
    tools: dict[str, bool | None],
    allow_read: set[str],
    trust: bool,
    calls: list[tuple[str, dict[str, Any]]],
) -> None:
    fake = FakeServer()
    listed = [spec(name, hint) for name, hint in tools.items()]
    policy = ReadPolicy.of(server, allow_read=allow_read, trust_hints=trust)
    with gateway_for(tmp_path_factory.mktemp("gw"), listed, policy, fake) as gateway:
        for number, (name, arguments) in enumerate(calls):
            asyncio.run(gateway.call(f"c{number}", name, json.dumps(arguments)))

    vetted = KNOWN_SERVERS.get(server or "", {})
    for name, arguments in fake.received:
        tool = next(t for t in listed if t.name == name)
        rule = vetted.get(name)
        if rule is not None:  # the table decides, whatever the hint and the trust
            assert rule.access in (Access.READ, Access.BY_ARGUMENT) or (
                rule.access is Access.WITHHELD and name in allow_read
            )
            if rule.writes is not None:
                assert rule.writes(arguments) is None, (name, arguments)
        else:  # nobody vetted it: the user allowed it by name, or vouched for its hint
            assert name in allow_read or (trust and tool.read_only is True), (name, tool.read_only)


def test_the_mock_cluster_s_vetted_table_is_what_it_lists_under_the_name_it_gives() -> None:
    # The table is the harness's own word on the mock cluster (the harness never imports it): it must
    # name what the server really lists, or a tool added there would be offered to nobody.
    from mcp import Client

    from k8s_agent_mock_cluster.cluster import Cluster
    from k8s_agent_mock_cluster.fixture import load_fixture
    from k8s_agent_mock_cluster.server import build_server

    async def listed() -> tuple[str, dict[str, bool | None]]:
        server = build_server(Cluster(load_fixture()), None, write_tools=True)
        async with Client(server) as client:
            tools = (await client.list_tools()).tools
            name = client.session.server_info.name if client.session.server_info else ""
            return name, {t.name: t.annotations.read_only_hint if t.annotations else None for t in tools}

    name, hints = asyncio.run(listed())

    assert KNOWN_SERVERS[name] is MOCK_CLUSTER_RULES
    assert set(hints) == set(MOCK_CLUSTER_RULES)
    reads = {tool for tool, rule in MOCK_CLUSTER_RULES.items() if rule.access is Access.READ}
    assert reads == {tool for tool, hint in hints.items() if hint is True} == set(MOCK_TOOLS)
