"""Runs sent to a real OpenTelemetry receiver, Arize Phoenix, and read back through its own REST API.

Phoenix (pinned, installed by .ci/install-phoenix.sh into a venv of its own) runs on loopback with a
working folder in tmp_path. Both agents answer one question with the offline model against the
hostile fixture (which plants secrets), with contents captured and an API key and an OTLP header
that must never reach a span; a run with export off leaves nothing; `trace export` sends recorded
runs (this release's and an old schema version's) with their recorded times.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import urllib.request
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.scenarios import OFFLINE
from k8s_agent_harness.traces import events, otel
from k8s_agent_harness.traces.events import read_trace
from k8s_agent_harness.vocabulary import Impl
from k8s_agent_mock_cluster import default_fixture_path
from tests.conftest import run_scenario
from tests.integration.reference import free_port
from tests.processes import HANG_SECONDS, k8s_agent, wait_until

CACHED = (
    Path(os.environ.get("K8S_AGENT_CACHE", Path.home() / ".cache/k8s-agent")) / "phoenix/20.26.1/bin/phoenix"
)
PHOENIX = os.environ.get("K8S_AGENT_PHOENIX_BIN") or (str(CACHED) if CACHED.is_file() else "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PHOENIX, reason="Arize Phoenix is not installed: bash .ci/install-phoenix.sh"),
]

HOSTILE = default_fixture_path().with_name("hostile.json")
API_KEY = "sk-test-not-a-real-key-000"  # what tests.conftest.run_scenario gives every run
HEADER_SECRET = "phx-otlp-header-secret-7f3a9c"
PLANTED = (  # the secrets the hostile fixture plants (tests/reliability/test_security.py)
    "hunter2-prod-Zk8qW",
    "sk_live_51H8xQ2eZvKYlo2C0aB1c2D3e",
    "tok_9f8e7d6c5b4a39281706",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcmRlci1zZXJ2aWNlIn0.c2lnbmF0dXJlLXNlY3JldA",
    "tok_live_4f9a8b7c6d5e4f3a2b1c",
)
QUESTION = "Which pods in the production namespace are unhealthy, and why?"


class Phoenix:
    """A Phoenix server on loopback, and its REST API's spans."""

    def __init__(self, url: str) -> None:
        self.url = url

    def spans(self) -> list[dict[str, Any]]:
        """Every span of the default project (every page)."""
        found: list[dict[str, Any]] = []
        cursor = ""
        while True:
            query = "limit=1000" + (f"&cursor={cursor}" if cursor else "")
            with urllib.request.urlopen(
                f"{self.url}/v1/projects/default/spans?{query}", timeout=60
            ) as answer:
                page = json.load(answer)
            found += page["data"]
            cursor = page.get("next_cursor") or ""
            if not cursor:
                return found

    def run(self, run_id: str) -> list[dict[str, Any]]:
        """The spans of one run: its root (found by `k8s_agent.run_id`) and every span of its trace."""
        spans = self.spans()
        roots = [span for span in spans if span["attributes"].get("k8s_agent.run_id") == run_id]
        traces = {span["context"]["trace_id"] for span in roots}
        return [span for span in spans if span["context"]["trace_id"] in traces]

    def wait_for_run(self, run_id: str, spans: int) -> list[dict[str, Any]]:
        """The run's spans once Phoenix has stored all `spans` of it (it stores them a moment after
        the export is acknowledged)."""
        wait_until(lambda: len(self.run(run_id)) >= spans, f"Phoenix holds the {spans} spans of run {run_id}")
        return self.run(run_id)


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    folder = tmp_path_factory.mktemp("phoenix")
    port = free_port()
    environ = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",  # no traffic beyond loopback
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
    }
    with (folder / "phoenix.log").open("w") as log:
        server = subprocess.Popen(
            [PHOENIX, "serve"], env=environ, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=5) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    try:
        wait_until(healthy, "Phoenix answers /healthz", server)
        yield Phoenix(url)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=HANG_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


@pytest.fixture
def exporting(phoenix: Phoenix, monkeypatch: pytest.MonkeyPatch) -> Iterator[otel.Exporter]:
    """Runs of this process sent to Phoenix, contents captured, with a secret OTLP header."""
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    environ = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": phoenix.url,
        "OTEL_EXPORTER_OTLP_HEADERS": f"authorization=Bearer%20{HEADER_SECRET}",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
    }
    settings = otel.OtelSettings.read(None, environ)
    assert settings is not None and settings.headers == {"authorization": f"Bearer {HEADER_SECRET}"}
    try:
        yield otel.start(settings)
    finally:
        otel.finish()


def shape(spans: list[dict[str, Any]]) -> list[tuple[str, str, str | None, str | None]]:
    """A run's tree as Phoenix stores it: each span's name, kind, parent's name and tool outcome, in
    start order."""
    names = {span["context"]["span_id"]: span["name"] for span in spans}
    ordered = sorted(spans, key=lambda span: (datetime.fromisoformat(span["start_time"]), span["name"]))
    return [
        (
            span["name"],
            span["span_kind"],
            names.get(span["parent_id"]) if span["parent_id"] else None,
            span["attributes"].get("k8s_agent.tool.outcome"),
        )
        for span in ordered
    ]


def test_both_agents_runs_read_back_from_phoenix_one_tree_with_the_genai_attributes_and_no_secret(
    phoenix: Phoenix, exporting: otel.Exporter, tmp_path: Path
) -> None:
    runs = {}
    for impl in (Impl.HANDWRITTEN, Impl.SDK):
        run = run_scenario(impl, OFFLINE, tmp_path / impl.value, QUESTION, cluster=HOSTILE)
        assert run.result is not None, run.error
        runs[impl] = run.result
    otel.finish()
    assert exporting.failure is None and exporting.sent_spans > 0

    trees = {}
    for impl, result in runs.items():
        recorded = read_trace(result.trace)
        calls = recorded.of(events.ToolCall)
        spans = phoenix.wait_for_run(result.run_id, 1 + len(recorded.of(events.ModelRequest)) + len(calls))
        (root,) = [span for span in spans if span["parent_id"] is None]
        attributes = root["attributes"]
        assert root["name"] == "invoke_agent k8s-agent" and root["span_kind"] == "AGENT"
        assert attributes["gen_ai.operation.name"] == "invoke_agent"
        assert attributes["k8s_agent.impl"] == impl.value
        assert attributes["k8s_agent.api"] == "chat"
        assert attributes["k8s_agent.scope"] == "cluster"
        chats = [span for span in spans if span["attributes"].get("gen_ai.operation.name") == "chat"]
        assert len(chats) == result.stats.model_attempts
        for chat in chats:
            assert chat["span_kind"] == "LLM"
            assert chat["attributes"]["gen_ai.response.id"].startswith("chatcmpl-")
            assert chat["attributes"]["gen_ai.usage.input_tokens"] > 0
            assert chat["attributes"]["gen_ai.response.finish_reasons"]
            assert json.loads(chat["attributes"]["gen_ai.input.messages"])  # captured, as asked
        tools = [span for span in spans if span["attributes"].get("gen_ai.operation.name") == "execute_tool"]
        assert len(tools) == len(calls) > 0
        for tool in tools:
            assert tool["span_kind"] == "TOOL"
            assert tool["attributes"]["mcp.method.name"] == "tools/call"  # the offline model's calls all run
            assert tool["attributes"]["gen_ai.tool.call.id"]
            assert tool["name"] == f"execute_tool {tool['attributes']['gen_ai.tool.name']}"
        stored = json.dumps(spans)
        for secret in (API_KEY, HEADER_SECRET, *PLANTED):
            assert secret not in stored
        assert "[REDACTED]" in stored  # the planted secrets were in the captured results, redacted
        trees[impl] = shape(spans)
    assert trees[Impl.HANDWRITTEN] == trees[Impl.SDK]


def test_a_run_with_export_off_sends_nothing(
    phoenix: Phoenix, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    assert otel.active() is None
    quiet = run_scenario(Impl.HANDWRITTEN, OFFLINE, tmp_path / "off", QUESTION)
    assert quiet.result is not None
    # A run sent after it is stored; then the first run is known to be absent, not merely late.
    witness = k8s_agent(
        "ask",
        QUESTION,
        "--json",
        "--otel-endpoint",
        phoenix.url,
        "--trace-dir",
        str(tmp_path / "traces"),
        cwd=tmp_path,
    )
    assert witness.returncode == 0, witness.stderr
    witness_id = json.loads(witness.stdout)["run_id"]
    phoenix.wait_for_run(witness_id, 2)
    assert phoenix.run(quiet.result.run_id) == []


def test_trace_export_sends_recorded_runs_with_their_recorded_times(phoenix: Phoenix, tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    run = k8s_agent("ask", QUESTION, "--json", "--impl", "sdk", "--trace-dir", str(traces), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    run_id = json.loads(run.stdout)["run_id"]
    assert phoenix.run(run_id) == []  # export was off for the run itself

    sent = k8s_agent(
        "trace", "export", "last", "--trace-dir", str(traces), "--otel-endpoint", phoenix.url, cwd=tmp_path
    )
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.startswith(f"sent run {run_id} (sdk): ")
    recorded = [json.loads(line) for line in next(traces.glob("*.jsonl")).read_text().splitlines()]
    requests = [event for event in recorded if event["kind"] == "model_request"]
    tools = [event for event in recorded if event["kind"] == "tool_call"]
    spans = phoenix.wait_for_run(run_id, 1 + len(requests) + len(tools))
    (root,) = [span for span in spans if span["parent_id"] is None]
    assert datetime.fromisoformat(root["start_time"]).timestamp() == pytest.approx(
        recorded[0]["ts"], abs=1e-3
    )
    assert datetime.fromisoformat(root["end_time"]).timestamp() == pytest.approx(recorded[-1]["ts"], abs=1e-3)
    chat_starts = sorted(
        datetime.fromisoformat(span["start_time"]).timestamp()
        for span in spans
        if span["name"].startswith("chat ")
    )
    assert chat_starts == pytest.approx([event["ts"] for event in requests], abs=1e-3)


def test_trace_export_reads_an_old_schema_version(phoenix: Phoenix, tmp_path: Path) -> None:
    old = tmp_path / "v1.jsonl"
    header = {"run_id": "0123456789ab", "impl": "handwritten"}
    lines = [
        {**header, "kind": "run_start", "step": 0, "ts": 1764000000.0, "schema_version": 1,
         "question": QUESTION, "started_at": "2025-11-24T16:00:00Z", "model": "gpt-old", "budgets": {}},
        {**header, "kind": "model_request", "step": 1, "ts": 1764000000.5, "model": "gpt-old", "bytes": 10},
        {**header, "kind": "model_response", "step": 1, "ts": 1764000001.5, "text": "All healthy.",
         "finish_reason": "stop", "usage": {"prompt_tokens": 7, "completion_tokens": 3}},
        {**header, "kind": "run_end", "step": 1, "ts": 1764000002.0, "status": "ok", "answer": "All healthy."},
    ]  # fmt: skip
    old.write_text("".join(json.dumps(line) + "\n" for line in lines))

    sent = k8s_agent("trace", "export", str(old), "--otel-endpoint", phoenix.url, cwd=tmp_path)

    assert sent.returncode == 0, sent.stderr
    spans = phoenix.wait_for_run("0123456789ab", 2)
    chat = next(span for span in spans if span["name"] == "chat gpt-old")
    assert chat["attributes"]["gen_ai.usage.input_tokens"] == 7
    assert chat["attributes"]["openai.api.type"] == "chat_completions"  # version 1 is all Chat Completions
    assert datetime.fromisoformat(chat["start_time"]).timestamp() == pytest.approx(1764000000.5)
    assert datetime.fromisoformat(chat["end_time"]).timestamp() == pytest.approx(1764000001.5)
