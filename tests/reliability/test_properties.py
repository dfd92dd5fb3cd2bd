"""Property test: random misbehaving models never break the loop contract, in either implementation.

Hypothesis writes model scripts mixing unknown tools, invalid JSON, schema violations, duplicates,
parallel calls and text answers with invented names, in any order. For every script, both
implementations must end, stay within the request bound, answer every tool call id exactly once,
let nothing unknown or invalid reach the MCP server, and leave a trace that parses.

One mock cluster process and one scripted model server serve every example (the call log is
reset between examples). CI runs 300 examples per implementation; for more:

    K8S_AGENT_PROPERTY_EXAMPLES=10000 .venv/bin/python -m pytest tests/reliability/test_properties.py
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from k8s_agent.implementations import ask_function
from k8s_agent.scenarios import ANALYTICS, PAYMENT
from k8s_agent_harness.cluster.client import McpClient
from k8s_agent_harness.cluster.servers import mock_cluster_command
from k8s_agent_harness.config import APIS, Config
from k8s_agent_harness.model.context import BYTES_PER_TOKEN
from k8s_agent_harness.session import RunResult
from k8s_agent_mock_cluster import load_fixture
from k8s_agent_scripted_llm import Reply, ScriptedModelServer, Step, ToolCall, text
from k8s_agent_scripted_llm.responses_api import chat_request
from tests.conftest import assert_every_call_answered, read_jsonl
from tests.processes import HANG_SECONDS, OUT_OF_REACH
from tests.wire import wire_view

EXAMPLES = int(os.environ.get("K8S_AGENT_PROPERTY_EXAMPLES", "300"))
MAX_STEPS = 4
TIGHT_BUDGET = 4_000
T = TypeVar("T")

VALID_CALLS = [
    ("list_pods", {}),
    ("list_pods", {"namespace": "production"}),
    ("describe_pod", {"name": PAYMENT, "namespace": "production"}),
    ("get_pod_logs", {"name": PAYMENT, "namespace": "production", "tail": 5}),
    ("get_pod_logs", {"name": ANALYTICS, "namespace": "production"}),  # fails: Pending, no logs
    ("get_events", {"namespace": "production", "type": "Warning"}),
    ("list_nodes", {}),
    ("search_logs", {"pattern": "error", "ignore_case": True}),
    ("describe_node", {"name": "worker-node-1"}),
    (
        "get_pod_logs",
        {"name": PAYMENT, "namespace": "production", "tail": 400},
    ),  # long: an excerpt when tight
    ("search_results", {"pattern": "Running"}),  # the harness's tool: offered once a result is stored
    ("search_results", {"pattern": "(unclosed", "regex": True, "handle": "r9"}),
]
SCHEMA_VIOLATIONS = [
    ("get_pod_logs", {"name": PAYMENT, "tail": "fifty"}),
    ("describe_pod", {"name": 7, "namespace": "production"}),
    ("search_logs", {}),
    ("list_pods", {"namespace": ["production"]}),
]
UNKNOWN = ["delete_pod", "exec_in_pod", "kubectl", "list-pods"]
BROKEN_JSON = ["{not-json", '{"name": ', "[1, 2", "nul", "{'single': 'quotes'}"]
TEXTS = [
    f"{PAYMENT} is in CrashLoopBackOff.",
    "Everything is healthy.",
    "billing-api-7d8f9c6b5-xk2lm is down.",  # invented
    f"{ANALYTICS} is Pending; also ghost-pod-12345-abcde.",  # one real, one invented
    "",
]

tool_calls = st.one_of(
    st.sampled_from(VALID_CALLS).map(lambda c: ToolCall(c[0], json.dumps(c[1]))),
    st.sampled_from(SCHEMA_VIOLATIONS).map(lambda c: ToolCall(c[0], json.dumps(c[1]))),
    st.tuples(st.sampled_from(UNKNOWN), st.sampled_from(VALID_CALLS)).map(
        lambda c: ToolCall(c[0], json.dumps(c[1][1]))
    ),
    st.tuples(st.sampled_from([c[0] for c in VALID_CALLS]), st.sampled_from(BROKEN_JSON)).map(
        lambda c: ToolCall(*c)
    ),
)
turns = st.one_of(
    st.lists(tool_calls, min_size=1, max_size=6).map(lambda calls: Reply(tool_calls=tuple(calls))),
    st.sampled_from(TEXTS).map(text),
)
scripts = st.lists(turns, min_size=1, max_size=2 * MAX_STEPS + 2)


class LoopThread:
    """An event loop in a thread: the shared MCP client lives on it across examples."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = HANG_SECONDS) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=HANG_SECONDS)
        self.loop.close()


@dataclass
class Rig:
    loop: LoopThread
    mcp: McpClient
    server: ScriptedModelServer
    call_log: Path
    traces: Path
    validators: dict[str, Draft202012Validator]

    def run(
        self,
        impl: str,
        script: list[Step],
        tight: bool = False,
        report_format: str = "prose",
        api: str = "chat",
    ) -> RunResult:
        """One run of `impl` on `script`, on the shared servers (call log and script reset first).

        `tight`: a context budget so small that most results are excerpted and the history is
        compacted, and a cap of three calls a turn.
        """
        self.call_log.write_text("")
        self.server.reset(script)
        config = Config(
            impl=impl,
            api=api,
            model="scripted",
            base_url=self.server.url,
            api_key="k",
            trace_dir=self.traces,
            max_steps=MAX_STEPS,
            max_repeats=2,
            max_retries=0,
            report_format=report_format,
            **OUT_OF_REACH,
            context_budget=TIGHT_BUDGET if tight else 32_000,
            max_calls_per_turn=3 if tight else 24,
        )
        result = self.loop.run(ask_function(impl)(config, "Which pods are unhealthy?", mcp=self.mcp))
        assert set(self.server.wires) == {api}
        return result

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The last run's requests, read as Chat Completions requests on either wire."""
        return [chat_request(body) for body in self.server.requests]


def examples(count: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Hypothesis settings for these tests: deterministic, no deadline, no example database."""
    return settings(
        max_examples=count,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    yield from make_rig(tmp_path_factory)


def make_rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    """One mock cluster (with 300 more log lines in the payment pod) and one scripted model server
    for a module's examples; the model answers with a grounded text once its script is done."""
    workdir = tmp_path_factory.mktemp("property")
    call_log = workdir / "calls.jsonl"
    fixture = workdir / "cluster.json"
    data = load_fixture()
    payment = next(pod for pod in data["pods"] if pod["name"] == PAYMENT)
    payment["containers"][0]["logs"] += [
        f"2026-11-30T04:1{n % 10}:00Z INFO retry {n} of the config load" for n in range(300)
    ]
    fixture.write_text(json.dumps(data))
    loop = LoopThread()
    command = mock_cluster_command(call_log=call_log, cluster=fixture)
    context = McpClient.running(command, call_timeout=HANG_SECONDS, start_timeout=HANG_SECONDS)
    mcp = loop.run(context.__aenter__())
    validators = {tool.name: Draft202012Validator(dict(tool.input_schema)) for tool in mcp.tools}
    # After the script, the model answers with a grounded text: every run can end.
    with ScriptedModelServer(responder=lambda body: text(f"{PAYMENT} is in CrashLoopBackOff.")) as server:
        yield Rig(loop, mcp, server, call_log, workdir / "traces", validators)
    loop.run(context.__aexit__(None, None, None))
    loop.close()


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("tight", [False, True], ids=["budget", "tight-budget"])
@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_random_misbehaving_models_never_break_the_contract(
    impl: str, tight: bool, api: str, rig: Rig
) -> None:
    # The examples are shared between the two wires (each sees half), so the suite's time stays.
    @examples((EXAMPLES if not tight else max(EXAMPLES // 3, 50)) // len(APIS))
    @given(script=scripts)
    def check(script: list[Step]) -> None:
        result = rig.run(impl, script, tight, api=api)

        sent = list(rig.server.requests)  # the budget holds for the bodies as sent: messages or input items
        budget = (TIGHT_BUDGET if tight else 32_000) * BYTES_PER_TOKEN
        assert all(len(json.dumps(body, separators=(",", ":"))) <= budget for body in sent)
        requests = rig.requests
        assert len(requests) <= MAX_STEPS + result.stats.as_dict()["pushbacks"] + 1
        assert result.stats.as_dict()["pushbacks"] <= 2
        assert_every_call_answered(requests)
        for received in read_jsonl(rig.call_log):
            assert received["tool"] in rig.validators, f"unknown tool reached the server: {received}"
            errors = list(rig.validators[received["tool"]].iter_errors(received["arguments"]))
            assert not errors, f"invalid arguments reached the server: {received}"
        trace = read_jsonl(result.trace)
        assert trace[0]["kind"] == "run_start" and trace[-1]["kind"] == "run_end"
        assert trace[-1]["status"] == "ok"
        result.trace.unlink()

    check()


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("tight", [False, True], ids=["budget", "tight-budget"])
def test_both_implementations_put_the_same_wire_for_any_script(tight: bool, api: str, rig: Rig) -> None:
    @examples(max(EXAMPLES // (3 if not tight else 6), 40) // len(APIS))
    @given(script=scripts)
    def check(script: list[Step]) -> None:
        views = {}
        for impl in ("handwritten", "sdk"):
            result = rig.run(impl, script, tight, api=api)
            views[impl] = (wire_view(rig.requests), result.answer)
            result.trace.unlink()
        assert views["sdk"] == views["handwritten"]

    check()
