"""Every run ends, whatever the model endpoint does: `--request-timeout` bounds a whole request.

The endpoint is a bare-wire one of the tests' own (hostile_model.py): an answer that never ends,
streamed (a valid chunk every 10 ms, forever) or not (a JSON body that trickles in, a byte every
10 ms), and an endpoint that stalls after its headers. Both agents, as a user runs them. What a
signal does to a run waiting on such an endpoint: test_signals.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from k8s_agent_harness.vocabulary import Impl
from tests.cli.test_ask import DEFAULT_QUESTION, traces
from tests.processes import EXERCISED_TIMEOUT, k8s_agent
from tests.reliability.hostile_model import hostile_model

NEVER_ENDS = [
    # a stream reads each wire's events its own way (streams.py, the SDK's models): both wires
    pytest.param("chat", True, 1, id="chat-stream"),  # one retry: a cut attempt is retried, then reported
    pytest.param("responses", True, 0, id="responses-stream"),
    # a body that is not streamed is read the same way on either wire
    pytest.param("chat", False, 0, id="chat-trickled-body"),
]


@pytest.mark.parametrize(("wire", "streamed", "retries"), NEVER_ENDS)
def test_an_answer_that_never_ends_is_cut_at_the_request_timeout_and_retried(
    impl: Impl, wire: str, streamed: bool, retries: int, tmp_path: Path
) -> None:
    with hostile_model("drip") as endpoint:
        done = k8s_agent(
            "ask", DEFAULT_QUESTION, "--impl", impl, "--api", wire, "--base-url", endpoint.url,
            "--model", "hostile", "--stream", "yes" if streamed else "no",
            "--request-timeout", f"{EXERCISED_TIMEOUT:g}", "--max-retries", str(retries),
            cwd=tmp_path, env={"K8S_AGENT_TRACE_DIR": "traces"},
        )  # fmt: skip
        received = list(endpoint.requests)

    attempts = retries + 1
    said = f"did not finish its answer within {EXERCISED_TIMEOUT:g}s ({attempts} attempt{'s' if retries else ''})"
    assert done.returncode == 3, done.stderr
    error = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert error == [f"error: the model endpoint {endpoint.url} {said}"], done.stderr
    assert "Traceback" not in done.stderr
    assert len(received) == attempts and all(body.get("stream", False) is streamed for body in received)
    (trace,) = traces(tmp_path)
    assert [e["attempt"] for e in trace if e["kind"] == "model_request"] == list(range(1, attempts + 1))
    end = trace[-1]
    assert end["kind"] == "run_end" and end["status"] == "error" and end["interrupted"] is False
    assert end["error_type"] == "ModelEndpointError" and said in end["error"]


def test_an_endpoint_that_stalls_after_its_headers_ends_at_the_request_timeout(
    impl: Impl, tmp_path: Path
) -> None:
    with hostile_model("stall") as endpoint:
        done = k8s_agent(
            "ask", DEFAULT_QUESTION, "--impl", impl, "--base-url", endpoint.url, "--model", "hostile",
            "--stream", "yes", "--request-timeout", f"{EXERCISED_TIMEOUT:g}", "--max-retries", "0",
            cwd=tmp_path, env={"K8S_AGENT_TRACE_DIR": "traces"},
        )  # fmt: skip

    assert done.returncode == 3, done.stderr
    assert f"within {EXERCISED_TIMEOUT:g}s (1 attempt)" in done.stderr and "Traceback" not in done.stderr
    (trace,) = traces(tmp_path)
    assert trace[-1]["kind"] == "run_end" and trace[-1]["error_type"] == "ModelEndpointError"
