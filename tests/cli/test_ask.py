"""`k8s-agent ask` end to end, as a user runs it: a subprocess, no API key, the offline model."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.clusters import shop_fixture
from tests.conftest import read_jsonl
from tests.processes import HANG_SECONDS, k8s_agent

DEFAULT_QUESTION = "Which pods in the production namespace are unhealthy, and why?"


def ask(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = HANG_SECONDS
) -> subprocess.CompletedProcess[str]:
    """Run `python -m k8s_agent ask ...` with a clean environment (no keys, no endpoint)."""
    # Traces in the test's folder, never the user's state folder.
    return k8s_agent(
        "ask", *args, cwd=cwd, timeout=timeout, env={"K8S_AGENT_TRACE_DIR": "traces", **(env or {})}
    )


def traces(cwd: Path) -> list[list[dict[str, Any]]]:
    return [read_jsonl(path) for path in sorted((cwd / "traces").glob("*.jsonl"))]


def tool_results(trace: list[dict[str, Any]]) -> str:
    return "\n".join(
        str(e.get("result")) for e in trace if e["kind"] == "tool_call" and e["outcome"] == "executed"
    )


def last_model_text(trace: list[dict[str, Any]]) -> str:
    """What the model wrote last, as the trace recorded it at the HTTP boundary."""
    return next(str(e["text"]) for e in reversed(trace) if e["kind"] == "model_response" and e.get("text"))


def assert_verified_report(out: dict[str, Any], trace: list[dict[str, Any]]) -> None:
    """`--json` carries the model's last answer as data, each quote checked against the tool results."""
    written = json.loads(last_model_text(trace))  # the offline model answers with the JSON report
    report = out["report"]
    assert out["report_format"] == "json_schema" and out["report_verified"] is True
    assert [f["name"] for f in report["findings"]] == [f["name"] for f in written["findings"]]
    assert report["healthy"] == {**written["healthy"], "unverified_examples": []}
    assert report["scope"] == written["scope"]
    results = "\n".join(
        " ".join(str(e.get("full_result") or e.get("result")).split())
        for e in trace
        if e["kind"] == "tool_call" and e["outcome"] == "executed"
    )
    quotes = [q for f in report["findings"] for q in f["evidence"]]
    assert quotes and all(q["verified"] is True for q in quotes)
    assert all(" ".join(q["text"].split()) in results for q in quotes)
    assert all(f["name_verified"] is True and f["status_verified"] is True for f in report["findings"])
    (checked,) = [e for e in trace if e["kind"] == "report"]
    assert checked["accepted"] is True and checked["problems"] == [] and checked["report"] == report
    for finding in report["findings"]:  # the terminal rendering is made from the structure
        assert f"{finding['kind']} {finding['name']}" in out["answer"]


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_ask_json_prints_the_model_s_report_and_what_the_agent_did(impl: str, tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, "--impl", impl, "--json", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["impl"] == impl and out["model"] == "offline"
    (trace,) = traces(tmp_path)
    assert Path(out["trace"]).name == sorted((tmp_path / "traces").iterdir())[0].name
    requests = [e for e in trace if e["kind"] == "model_request"]
    executed = [e for e in trace if e["kind"] == "tool_call" and e["outcome"] == "executed"]
    assert out["model_requests"] == len(requests) == 4  # the pods, their details, past the pods, the report
    assert out["tool_calls_executed"] == len(executed) == 19
    assert out["tool_calls_rejected"] == 0 and out["pushbacks"] == 0 and out["forced_summary"] is False
    assert_verified_report(out, trace)
    assert trace[-1]["kind"] == "run_end" and trace[-1]["answer"] == out["answer"]
    assert "step 1: asking the model" in done.stderr and "✓ list_pods(namespace=production)" in done.stderr


def test_ask_prints_the_report_between_a_header_and_the_trace(tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, "--quiet", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    (trace,) = traces(tmp_path)
    head, counts, rule, *body = done.stdout.splitlines()
    assert head == "k8s-agent report · handwritten agent · model offline (deterministic playbook, not an LLM)"
    assert counts.startswith("4 model requests · 19 tool calls · ")
    assert rule == "─" * 78 and body[-3] == rule and body[-1].startswith("Trace: traces/")
    written = json.loads(last_model_text(trace))
    quotes = sum(len(finding["evidence"]) for finding in written["findings"])
    assert body[-2] == (
        f"Verification: {quotes} of {quotes} quotes verified against this run's tool results; "
        "every finding names a resource a tool showed, in its namespace, with the status it showed."
    )
    assert "\n".join(body[:-3]) == trace[-1]["answer"].strip()
    assert body[0] == f"Health report: {written['scope']}"
    for finding in written["findings"]:
        for quote in finding["evidence"]:
            assert f"✓: {quote['text']}" in done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_ask_with_a_fixture_investigates_that_cluster(impl: str, tmp_path: Path) -> None:
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
    out = json.loads(done.stdout)
    (trace,) = traces(tmp_path)
    calls = [(e["tool"], e["arguments"]) for e in trace if e["kind"] == "tool_call"]
    assert calls[0] == ("list_pods", {"namespace": "shop"})
    assert "cart-api-6d5f7c8b9-k2m4p" in tool_results(trace)  # the fixture's pods, not the shipped ones
    assert "payment-service" not in tool_results(trace)
    assert_verified_report(out, trace)
    assert "cart-api-6d5f7c8b9-k2m4p" in [f["name"] for f in out["report"]["findings"]]
    assert out["ungrounded_names"] == []


def test_a_server_that_dies_at_start_up_fails_in_one_line_with_its_stderr(tmp_path: Path) -> None:
    dying = f"{sys.executable} -c \"import sys; print('no kubeconfig here', file=sys.stderr); sys.exit(3)\""

    done = ask(DEFAULT_QUESTION, "--mcp-command", dying, cwd=tmp_path)

    assert done.returncode == 4
    (error,) = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert error.startswith("error: MCP server failed to start") and "exited during start-up" in error
    assert "no kubeconfig here" in done.stderr  # the server's stderr tail
    assert "Traceback" not in done.stderr
    (trace,) = traces(tmp_path)
    assert trace[-1]["kind"] == "run_end" and trace[-1]["status"] == "error"
    assert "no kubeconfig here" in trace[-1]["stderr_tail"]


def test_an_unknown_implementation_is_one_line_and_no_trace(tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, "--impl", "langchain", cwd=tmp_path)

    assert done.returncode == 2
    assert done.stderr == "error: unknown implementation 'langchain': choose one of handwritten, sdk\n"
    assert not (tmp_path / "traces").exists()  # refused: no run started


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
        (["--max-steps", "many"], "max-steps must be a number, got 'many'"),
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


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_an_unverified_report_exits_6_unless_accepted(impl: str, tmp_path: Path) -> None:
    from k8s_agent.scenarios import FABRICATED, LOG_LINE, PAYMENT, finding, report_json
    from k8s_agent_scripted_llm import ScriptedModelServer, call, text

    false = report_json(finding(PAYMENT, LOG_LINE, FABRICATED))  # true but for one fabricated quote

    def run(last: str, *flags: str) -> subprocess.CompletedProcess[str]:
        script = [
            call("list_pods", namespace="production"),
            call("get_pod_logs", name=PAYMENT, namespace="production"),
            text(last),
            text(last),
        ]
        with ScriptedModelServer(script) as server:
            return ask(
                DEFAULT_QUESTION,
                *("--impl", impl, "--base-url", server.url, "--model", "scripted", "--api-key", "sk-test-1"),
                *("--report-format", "json_schema", "--quiet", *flags),
                cwd=tmp_path,
            )

    unverified = run(false)

    assert unverified.returncode == 6, unverified.stderr
    assert f"✗ unverified (in no tool result): {FABRICATED}" in unverified.stdout  # printed all the same
    assert f"Evidence (get_pod_logs) ✓: {LOG_LINE}" in unverified.stdout
    assert "the report is not verified (exit 6)" in unverified.stderr and "Traceback" not in unverified.stderr
    if impl == "handwritten":  # the exit code is the CLI's, whichever agent ran (a verified one: 0, above)
        accepted = run(false, "--accept-unverified", "--json")
        assert accepted.returncode == 0, accepted.stderr
        assert json.loads(accepted.stdout)["report_verified"] is False


@pytest.mark.parametrize("wire", ["chat", "responses"])
@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_with_stream_the_answer_shows_as_it_comes_and_the_report_follows(
    impl: str, wire: str, tmp_path: Path
) -> None:
    done = ask("--stream", "yes", "--impl", impl, "--api", wire, DEFAULT_QUESTION, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert "Verification: 6 of 6 quotes verified" in done.stdout
    lines = done.stderr.splitlines()
    assert "(streamed)" in lines[0]
    shown = [line.removeprefix("  │ ") for line in lines if line.startswith("  │ ")]
    (trace,) = traces(tmp_path)
    assert trace[0]["stream"] is True
    # The report, a JSON document, is shown as it comes finding by finding, not as JSON.
    findings = json.loads(last_model_text(trace))["findings"]
    assert shown == [
        "writing the report; each finding as it is written:",
        *(f"finding: pod {f['name']} ({f['namespace']}): {f['status']} · {f['cause']}" for f in findings),
    ]
    answered = next(n for n, line in enumerate(lines) if line.startswith("  model answers"))
    assert lines[answered - 1].startswith("  │ ")  # shown before the answer was read


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_a_cluster_nothing_could_be_read_from_is_no_healthy_cluster_exit_7(impl: str, tmp_path: Path) -> None:
    plan = tmp_path / "faults.json"  # every call the server receives fails, as an API server that refuses
    plan.write_text(
        json.dumps({"faults": [{"action": "error", "message": "connection refused: 10.0.0.1:6443"}]})
    )
    server = f"{sys.executable} -m k8s_agent_mock_cluster --faults {plan}"

    plain = ask(DEFAULT_QUESTION, "--impl", impl, "--mcp-command", server, cwd=tmp_path)
    as_json = ask(DEFAULT_QUESTION, "--impl", impl, "--mcp-command", server, "--json", cwd=tmp_path)

    assert plain.returncode == 7, plain.stderr
    assert "THE CLUSTER COULD NOT BE READ: every tool call failed (" in plain.stdout
    assert "connection refused: 10.0.0.1:6443" in plain.stdout
    assert "the cluster could not be read (exit 7)" in plain.stderr and "Traceback" not in plain.stderr
    assert as_json.returncode == 7
    out = json.loads(as_json.stdout)
    assert out["cluster_read"] is False and out["tool_failures"]
    assert all("connection refused" in failure for failure in out["tool_failures"])


def test_a_cluster_read_in_part_is_a_report_as_usual(tmp_path: Path) -> None:
    plan = tmp_path / "faults.json"  # only the logs fail: the pods were read
    plan.write_text(
        json.dumps({"faults": [{"tool": "get_pod_logs", "action": "error", "message": "forbidden"}]})
    )
    server = f"{sys.executable} -m k8s_agent_mock_cluster --faults {plan}"

    done = ask(DEFAULT_QUESTION, "--mcp-command", server, "--json", cwd=tmp_path)

    assert done.returncode in (0, 6), done.stderr
    assert json.loads(done.stdout)["cluster_read"] is True
    assert "could not be read" not in done.stderr


CORPUS = Path(__file__).resolve().parents[2] / "k8s_agent" / "eval" / "corpus"


@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
@pytest.mark.parametrize(
    ("incident", "question", "answer"),
    [
        (
            "orders-db-third-replica-storage-class",
            "Why is the PVC for orders-db pending?",
            [("pod", "orders-db-2", "unbound_volume"), ("pvc", "data-orders-db-2", "unbound_volume")],
        ),
        (
            "svc-selector-helm-relabel-payments-api",
            "Why does every call to the payments-api service in the payments namespace fail?",
            [("service", "payments-api", "service_no_endpoints")],
        ),
        (
            "warehouse-export-job-container-limits",
            "Why won't the warehouse export job in reporting start?",
            [("job", "warehouse-export-30005370", "quota_exceeded")],
        ),
    ],
    ids=["pvc", "service", "job"],
)
def test_a_question_about_a_claim_a_service_or_a_job_is_answered_about_that_object(
    impl: str, incident: str, question: str, answer: list[tuple[str, str, str]], tmp_path: Path
) -> None:
    """Past the pods: the report names the object itself with its cause, every quote verified, and
    the calls that read it went to the mock cluster's generic tools."""
    done = ask(
        question, "--impl", impl, "--json", "--cluster", str(CORPUS / f"{incident}.yaml"), cwd=tmp_path
    )

    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    found = [(f["kind"], f["name"], f["cause"]) for f in out["report"]["findings"]]
    assert found == answer
    assert out["report_verified"] is True
    (trace,) = traces(tmp_path)
    read = {e["tool"] for e in trace if e["kind"] == "tool_call" and e["outcome"] == "executed"}
    assert {"resources_list", "resources_get"} <= read


@pytest.mark.parametrize("wire", ["chat", "responses"])
@pytest.mark.parametrize("impl", ["handwritten", "sdk"])
def test_a_base_url_with_a_query_keeps_it_on_every_request(impl: str, wire: str, tmp_path: Path) -> None:
    # Azure OpenAI's classic form: the deployment in the path, the API version in the query.
    from k8s_agent.scenarios import PAYMENT
    from k8s_agent_scripted_llm import ScriptedModelServer, call, text

    script = [call("list_pods", namespace="production"), text(f"{PAYMENT} is in CrashLoopBackOff.")]
    with ScriptedModelServer(script) as server:
        done = ask(
            DEFAULT_QUESTION,
            *("--impl", impl, "--api", wire, "--model", "scripted", "--api-key", "sk-test-1"),
            *("--base-url", f"{server.url}/openai/deployments/gpt4o?api-version=2024-10-21"),
            *("--report-format", "prose", "--quiet"),
            cwd=tmp_path,
        )
        paths = [headers[":path"] for headers in server.headers]

    assert done.returncode == 0, done.stderr
    endpoint = "chat/completions" if wire == "chat" else "responses"
    assert paths == [f"/v1/openai/deployments/gpt4o/{endpoint}?api-version=2024-10-21"] * 2
    (trace,) = traces(tmp_path)
    assert trace[0]["endpoint"].endswith("/v1/openai/deployments/gpt4o")  # the query is never written
    assert "api-version" not in json.dumps(trace)
