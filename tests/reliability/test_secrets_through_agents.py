"""No planted secret reaches the model, the trace, `--json` or the terminal, through either agent.

Kubernetes objects with a value planted at every position that holds a secret (a Secret's data, an
env entry's value under a secret-looking name, a flag's argument, a URL's password, the
last-applied annotation that repeats them), drawn by hypothesis (tests/reliability/secret_objects.py)
and printed every way the servers print them, are served by a stdio MCP server
(tests/reliability/canned_server.py) to `k8s-agent ask`. The model calls every tool, then answers
with every result it was sent, whole, so that the report printed on the terminal holds them too.
What is checked is what left the run: each request the model endpoint received, the trace file,
stdout and stderr. Every planted value that is evidence (non-secret env values, a Secret's keys,
secretKeyRef names) must still reach the model.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k8s_agent_scripted_llm import Reply, ScriptedModelServer, Step, ToolCall, text
from k8s_agent_scripted_llm.responses_api import chat_request
from tests.processes import k8s_agent
from tests.reliability.secret_objects import Planted, encoded, objects, shapes

CANNED_SERVER = Path(__file__).with_name("canned_server.py")
BATCH = 8
"""Calls the model makes per turn."""


def spec_of(drawn: list[Planted]) -> dict[str, Any]:
    tools = []
    for number, planted in enumerate(drawn):
        for shape, result, structured in shapes(planted):
            tool: dict[str, Any] = {"name": f"get_{number}_{shape.replace('-', '_')}", "text": result}
            if structured is not None:
                tool["structured"] = structured
            tools.append(tool)
    return {"tools": tools}


def echoing_model(names: list[str]) -> Any:
    """Calls every tool, BATCH at a time, then answers with every tool result it was sent."""

    def respond(body: dict[str, Any]) -> Step:
        messages = chat_request(body)["messages"]
        results = [m["content"] for m in messages if m.get("role") == "tool"]
        if not body.get("tools"):
            return text("Summary.")
        if len(results) < len(names):
            batch = names[len(results) : len(results) + BATCH]
            return Reply(tool_calls=tuple(ToolCall(name, "{}") for name in batch))
        return text("Every result, as read:\n" + "\n".join(str(result) for result in results))

    return respond


def run(drawn: list[Planted], impl: str, workdir: Path, *flags: str) -> tuple[str, list[dict[str, Any]]]:
    """`k8s-agent ask` on the canned objects: everything the run wrote (stdout, stderr, the trace)
    and the requests the model endpoint received."""
    workdir.mkdir(parents=True, exist_ok=True)
    spec = spec_of(drawn)
    (workdir / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    server_command = shlex.join(
        [
            sys.executable,
            str(CANNED_SERVER),
            str(workdir / "spec.json"),
            "--log",
            str(workdir / "calls.jsonl"),
        ]
    )
    names = [tool["name"] for tool in spec["tools"]]
    with ScriptedModelServer(responder=echoing_model(names)) as model:
        done = k8s_agent(
            "ask", "Which pods in the production namespace are unhealthy, and why?",
            "--impl", impl, "--mcp-command", server_command, "--base-url", model.url, "--model", "scripted",
            "--api-key", "sk-test-not-a-real-key-000", "--report-format", "prose", "--max-steps", "20",
            "--max-calls-per-turn", str(BATCH), "--context-budget", "400000", "--trace-dir", str(workdir / "traces"),
            *(flag for name in names for flag in ("--allow-read", name)),  # the canned tools only read
            *flags,
            cwd=workdir,
        )  # fmt: skip
        requests = list(model.requests)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len((workdir / "calls.jsonl").read_text(encoding="utf-8").splitlines()) == len(names)
    (trace,) = (workdir / "traces").glob("*.jsonl")
    return done.stdout + done.stderr + trace.read_text(encoding="utf-8"), requests


def leaked(drawn: list[Planted], written: str) -> list[str]:
    return [
        form for planted in drawn for secret in planted.secrets for form in encoded(secret) if form in written
    ]


# `impl` is a parameter, the same for every example: no state carries from one example to the next.
@settings(max_examples=2, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(objects.filter(lambda planted: len(planted.secrets) >= 2), min_size=3, max_size=3))
def test_no_planted_secret_leaves_a_run_and_every_kept_value_reaches_the_model(
    impl: str, tmp_path_factory: Any, drawn: list[Planted]
) -> None:
    workdir = tmp_path_factory.mktemp("secrets")
    for flags in ((), ("--json",)):
        written, requests = run(drawn, impl, workdir / ("json" if flags else "terminal"), *flags)
        sent = json.dumps(requests, ensure_ascii=False)

        assert not leaked(drawn, written), leaked(drawn, written)
        assert not leaked(drawn, sent), leaked(drawn, sent)
        last = chat_request(requests[-1])["messages"]
        shown = json.dumps([m["content"] for m in last if m.get("role") == "tool"], ensure_ascii=False)
        missing = [
            value for planted in drawn for value in planted.keep if json.dumps(value)[1:-1] not in shown
        ]
        assert not missing, missing
        assert "[REDACTED]" in written
