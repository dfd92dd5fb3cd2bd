"""`k8s-agent ask` end to end, as a user runs it: a subprocess, no API key, the offline model."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import read_jsonl

DEFAULT_QUESTION = "Which pods in the production namespace are unhealthy, and why?"


def ask(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    """Run `python -m k8s_agent ask ...` with a clean environment (no keys, no endpoint)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "K8S_AGENT_"))}
    clean.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "k8s_agent", "ask", *args],
        cwd=cwd,
        env=clean,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def traces(cwd: Path) -> list[list[dict[str, Any]]]:
    return [read_jsonl(path) for path in sorted((cwd / "traces").glob("*.jsonl"))]


def report_entry(answer: str, pod: str) -> str:
    """The report's block about one pod (from its heading to the next blank line)."""
    match = re.search(rf"^\d+\. {re.escape(pod)} .*?(?=\n\n|\Z)", answer, re.S | re.M)
    assert match, f"the report has no entry for {pod}:\n{answer}"
    return match.group(0)


def tool_results(trace: list[dict[str, Any]]) -> str:
    return "\n".join(
        str(e.get("result")) for e in trace if e["kind"] == "tool_call" and e["outcome"] == "executed"
    )


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_ask_json_on_the_default_fixture_reports_every_planted_failure(impl: str, tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, "--impl", impl, "--json", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["impl"] == impl
    assert out["model_requests"] == 3
    assert out["tool_calls_executed"] == 8
    assert out["tool_calls_rejected"] == 0 and out["pushbacks"] == 0 and out["forced_summary"] is False
    answer = out["answer"]
    assert "deterministic offline model" in answer and "not an LLM" in answer
    expected = {
        "payment-service-6f7b8d9c0-ghi56": (
            "CrashLoopBackOff",
            "config validation failed: missing required field 'DB_PASSWORD'",
        ),
        "inventory-service-59d8f7c6a-mno90": ("ImagePullBackOff", "v0.9.9-beta"),
        "order-service-7d4c9b8a1-stu34": (
            "READY 0/1",
            "Readiness probe failed: HTTP probe failed with statuscode: 503",
        ),
        "analytics-worker-5c8f9e7d2-vwx78": ("Pending", "Insufficient memory"),
        "search-indexer-8b2a7c6d4-yza12": ("Pending", "Insufficient cpu"),
    }
    trace = traces(tmp_path)[0]
    for pod, (status, evidence) in expected.items():
        entry = report_entry(answer, pod)
        assert status in entry and evidence in entry and "Fix: " in entry
        quoted = re.search(r"Evidence \((\w+)\): (.*)", entry)
        assert quoted and quoted[2] in tool_results(trace), (
            "the evidence line must be quoted from a tool result"
        )
    assert "5 of 7 pods are unhealthy" in answer
    assert "Healthy: checkout-service-7f6d5c4b3-abc12, frontend-web-5d4c3b2a1-def34." in answer
    assert Path(out["trace"]).name == sorted((tmp_path / "traces").iterdir())[0].name
    assert "step 1: asking the model" in done.stderr and "✓ list_pods(namespace=production)" in done.stderr


def shop_fixture() -> dict[str, Any]:
    """A cluster with other names and other failures than the shipped one."""

    def pod(
        name: str, status: str, *, ready: bool = False, node: str | None = "node-b", **container: Any
    ) -> dict[str, Any]:
        return {
            "name": name,
            "namespace": "shop",
            "status": status,
            "node": node,
            "phase": "Pending" if node is None else "Running",
            "containers": [
                {
                    "name": name.split("-")[0],
                    "image": f"ghcr.io/acme/{name.split('-')[0]}:1.0",
                    "ready": ready,
                    **container,
                }
            ],
        }

    def warning(pod_name: str, reason: str, message: str) -> dict[str, Any]:
        return {
            "namespace": "shop",
            "object": f"pod/{pod_name}",
            "type": "Warning",
            "reason": reason,
            "message": message,
            "count": 3,
        }

    nodes = [
        {"name": f"node-{x}", "status": "Ready", "allocatable": {"cpu": "2", "memory": "8Gi"}} for x in "abc"
    ]
    return {
        "nodes": nodes,
        "pods": [
            pod(
                "cart-api-6d5f7c8b9-k2m4p",
                "CrashLoopBackOff",
                restarts=7,
                state={"waiting": {"reason": "CrashLoopBackOff"}},
                last_state={"terminated": {"reason": "OOMKilled", "exit_code": 137}},
                limits={"memory": "256Mi"},
                logs=["loading catalogue", "allocating 2048MB index buffer"],
            ),
            pod(
                "pricing-engine-84c9d7f6b-q8r2t",
                "ErrImagePull",
                state={"waiting": {"reason": "ErrImagePull"}},
            ),
            pod("search-api-5b7c9d8e7-w3x5y", "Pending", node=None),
            pod(
                "mailer-7f8e9d6c5-h4j6k",
                "CreateContainerConfigError",
                state={"waiting": {"reason": "CreateContainerConfigError"}},
            ),
            pod("storefront-5c6d7e8f9-a1b2c", "Running", ready=True, logs=["GET / 200"]),
            {**pod("metrics-agent-9x8y7", "Running", ready=True), "namespace": "ops"},
        ],
        "events": [
            warning(
                "pricing-engine-84c9d7f6b-q8r2t",
                "Failed",
                'Failed to pull image "ghcr.io/acme/pricing:3.2.0": failed to authorize: 401 Unauthorized',
            ),
            warning(
                "search-api-5b7c9d8e7-w3x5y",
                "FailedScheduling",
                "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
            ),
            warning("mailer-7f8e9d6c5-h4j6k", "Failed", 'Error: secret "smtp-credentials" not found'),
        ],
    }


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_ask_on_a_fixture_with_other_names_and_failures_finds_them(impl: str, tmp_path: Path) -> None:
    fixture = tmp_path / "shop.json"
    fixture.write_text(json.dumps(shop_fixture()))

    done = ask(
        "Which pods in the shop namespace are unhealthy, and why?",
        "--impl",
        impl,
        "--cluster",
        str(fixture),
        "--json",
        "--quiet",
        cwd=tmp_path,
    )

    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["answer"]
    assert "4 of 5 pods are unhealthy" in answer
    checks = {
        "cart-api-6d5f7c8b9-k2m4p": ("CrashLoopBackOff", "OOMKilled", "memory limit"),
        "pricing-engine-84c9d7f6b-q8r2t": ("ErrImagePull", "401 Unauthorized", "imagePullSecrets"),
        "search-api-5b7c9d8e7-w3x5y": ("Pending", "didn't match Pod's node affinity/selector", "selector"),
        "mailer-7f8e9d6c5-h4j6k": (
            "CreateContainerConfigError",
            'secret "smtp-credentials" not found',
            "create the missing",
        ),
    }
    for pod, needles in checks.items():
        entry = report_entry(answer, pod)
        for needle in needles:
            assert needle in entry, f"{needle!r} missing for {pod}:\n{entry}"
    assert "Healthy: storefront-5c6d7e8f9-a1b2c." in answer
    assert "metrics-agent" not in answer  # another namespace


def test_a_fixture_that_is_not_json_fails_in_one_line_with_the_server_stderr(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{ nodes: [")

    done = ask(DEFAULT_QUESTION, "--cluster", str(broken), cwd=tmp_path)

    assert done.returncode == 4
    (error,) = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert error.startswith("error: MCP server failed to start") and "exited during start-up" in error
    assert "is not valid JSON" in done.stderr  # the server's stderr tail
    assert "Traceback" not in done.stderr
    (trace,) = traces(tmp_path)
    assert trace[-1]["kind"] == "run_end" and trace[-1]["status"] == "error"
    assert "is not valid JSON" in trace[-1]["stderr_tail"]


def test_an_unknown_implementation_is_a_one_line_error_with_a_trace(tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, "--impl", "langchain", cwd=tmp_path)

    assert done.returncode == 2
    assert (
        done.stderr.splitlines()[0]
        == "error: unknown implementation 'langchain': choose one of handwritten, sdk"
    )
    (trace,) = traces(tmp_path)
    assert [e["kind"] for e in trace] == ["run_start", "run_end"] and trace[-1]["status"] == "error"


def test_an_endpoint_that_refuses_connections_fails_cleanly_and_keeps_the_trace(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again when the block ends: connections are refused

    done = ask(
        DEFAULT_QUESTION,
        "--base-url",
        f"http://127.0.0.1:{port}/v1",
        "--model",
        "any",
        "--api-key",
        "sk-test-secret-value-1234",
        "--max-retries",
        "0",
        "--json",
        cwd=tmp_path,
    )

    assert done.returncode == 3
    out = json.loads(done.stdout)
    assert out["error"].startswith(f"cannot reach the model endpoint http://127.0.0.1:{port}/v1")
    assert "Traceback" not in done.stderr
    (trace,) = traces(tmp_path)
    assert trace[-1]["status"] == "error" and trace[-1]["error_type"] == "ModelEndpointError"
    assert any(e["kind"] == "model_request" for e in trace)
    everything = done.stdout + done.stderr + json.dumps(trace)
    assert "sk-test-secret-value-1234" not in everything


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-steps", "many"], "argument --max-steps: invalid int value: 'many'"),
        (["--max-steps", "0"], "max-steps must be at least 1"),
        (["--cluster", "no-such-file.json"], "cluster fixture not found: no-such-file.json"),
        (["--mcp-env", "NOEQUALS"], "--mcp-env expects KEY=VALUE, got 'NOEQUALS'"),
        (["--model", "gpt-4o"], "model 'gpt-4o' needs an endpoint"),
    ],
)
def test_bad_flags_are_one_line_errors_with_exit_code_2(
    args: list[str], message: str, tmp_path: Path
) -> None:
    done = ask(DEFAULT_QUESTION, *args, cwd=tmp_path)

    assert done.returncode == 2
    assert message in done.stderr.splitlines()[0]
    assert "Traceback" not in done.stderr


def test_settings_come_from_a_dotenv_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("K8S_AGENT_MAX_STEPS=0\n")

    done = ask(DEFAULT_QUESTION, cwd=tmp_path)

    assert done.returncode == 2 and "max-steps must be at least 1" in done.stderr
