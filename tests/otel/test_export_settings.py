"""When spans are exported, and what it costs a run when the receiver fails: off by default, on by the
standard variables or --otel-endpoint, one line when the extra is missing, one warning line (and
nothing else) when the receiver refuses or hangs."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from k8s_agent.bench.otel_cost import loopback_receiver
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.traces import otel
from tests.processes import EXERCISED_TIMEOUT, HANG_SECONDS, clean_env, k8s_agent

QUESTION = "Which pods in the production namespace are unhealthy, and why?"
OFF_PROBE = """
import sys
from k8s_agent.cli import main
code = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m.startswith(("opentelemetry.sdk", "opentelemetry.exporter")))
print("LOADED", *loaded, file=sys.stderr)
sys.exit(code)
"""


def test_export_is_off_without_the_flag_or_the_variables() -> None:
    assert otel.OtelSettings.read(None, {}) is None
    assert (
        otel.OtelSettings.read(None, {"OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_HEADERS": "a=b"}) is None
    )
    assert (
        otel.OtelSettings.read(
            None, {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://h:1"}
        )
        is None
    )


def test_the_standard_variables_and_the_flag_name_the_traces_url() -> None:
    base = otel.OtelSettings.read(None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4318/"})
    assert base is not None and base.endpoint == "https://collector:4318/v1/traces"
    traces = {
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://h:9/custom",
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:1",
    }
    exact = otel.OtelSettings.read(None, traces)
    assert exact is not None and exact.endpoint == "http://h:9/custom"  # the traces variable, as it is
    flag = otel.OtelSettings.read("http://127.0.0.1:6006", traces)
    assert flag is not None and flag.endpoint == "http://127.0.0.1:6006/v1/traces"  # the flag wins
    full = otel.OtelSettings.read("http://127.0.0.1:6006/v1/traces", {})
    assert full is not None and full.endpoint == "http://127.0.0.1:6006/v1/traces"


def test_headers_service_name_and_content_capture_come_from_their_variables() -> None:
    environ = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://h:1",
        "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20abc, x-team = sre",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api_key=only-this",
        "OTEL_SERVICE_NAME": "diagnosis",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "TRUE",
    }
    settings = otel.OtelSettings.read(None, environ)
    assert settings is not None
    assert settings.headers == {"api_key": "only-this"}  # the traces-only variable replaces the general one
    assert settings.service_name == "diagnosis" and settings.capture_content
    del environ["OTEL_EXPORTER_OTLP_TRACES_HEADERS"]
    settings = otel.OtelSettings.read(None, environ)
    assert settings is not None and settings.headers == {"authorization": "Bearer abc", "x-team": "sre"}
    assert "Bearer abc" not in repr(settings)
    assert settings.secrets() == ("Bearer abc", "sre")


@pytest.mark.parametrize(
    ("flag", "environ", "said"),
    [
        ("ftp://h/x", {}, "must be an http:// or https:// URL"),
        ("http://user:pw@h:1", {}, "must not carry a user or password"),
        (
            None,
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
            "OTEL_EXPORTER_OTLP_ENDPOINT must be an http",
        ),
        ("http://h:1", {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTLP over HTTP (http/protobuf) only"),
        ("http://h:1", {"OTEL_EXPORTER_OTLP_HEADERS": "no-equals-sign"}, "expects key=value pairs"),
    ],
)
def test_settings_that_cannot_be_used_are_one_line_and_exit_2(
    flag: str | None, environ: dict[str, str], said: str, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=re.escape(said)):
        otel.OtelSettings.read(flag, environ)
    args = ["ask", QUESTION, "--trace-dir", str(tmp_path)] + (["--otel-endpoint", flag] if flag else [])
    done = k8s_agent(*args, cwd=tmp_path, env=environ)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and said in done.stderr
    assert not list(tmp_path.glob("*.jsonl"))  # refused before any run started


WITHOUT_EXTRA = """
import sys
from importlib.abc import MetaPathFinder

class Uninstalled(MetaPathFinder):  # the otel extra is not installed (the API, which mcp needs, is)
    def find_spec(self, name, path=None, target=None):
        if name.startswith(("opentelemetry.sdk", "opentelemetry.exporter")):
            raise ModuleNotFoundError(name)
        return None

sys.meta_path.insert(0, Uninstalled())
from k8s_agent.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_export_asked_for_without_the_extra_says_what_to_install_and_exits_2(
    how: str, tmp_path: Path
) -> None:
    probe = tmp_path / "without_extra.py"
    probe.write_text(WITHOUT_EXTRA)
    flag = ["--otel-endpoint", "http://127.0.0.1:9"] if how == "flag" else []
    environ = {} if how == "flag" else {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}
    done = k8s_agent_python(
        probe, "ask", QUESTION, *flag, "--trace-dir", str(tmp_path), cwd=tmp_path, env=environ
    )
    assert done.returncode == 2
    assert (
        done.stderr == "error: sending spans over OTLP needs the otel extra: pip install 'k8s-agent[otel]'\n"
    )
    assert not list(tmp_path.glob("*.jsonl"))


def test_the_extra_is_found_when_installed() -> None:
    assert otel.available()


def test_a_run_with_export_off_imports_nothing_of_the_opentelemetry_sdk(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(OFF_PROBE)
    done = k8s_agent_python(
        probe, "ask", QUESTION, "--impl", "sdk", "--trace-dir", str(tmp_path), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "LOADED"  # nothing of the SDK or an exporter


def k8s_agent_python(
    script: Path, *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python SCRIPT ARGS`, cold, in the clean environment the suite's k8s-agent processes get."""
    return subprocess.run(
        [sys.executable, str(script), *args],
        cwd=cwd,
        env=clean_env(env),
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        check=False,
    )


# -- a receiver that fails ------------------------------------------------------------------------


class _Refusing(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(400)  # not retryable: refused at once
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def refusing() -> Iterator[str]:
    """A receiver on loopback that answers every export 400."""
    with loopback_receiver(_Refusing) as url:
        yield url


def test_the_export_timeout_is_the_standard_variable_in_milliseconds() -> None:
    endpoint = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h:1"}

    def timeout(**variables: str) -> float:
        settings = otel.OtelSettings.read(None, {**endpoint, **variables})
        assert settings is not None
        return settings.timeout

    assert timeout() == otel.EXPORT_TIMEOUT
    assert timeout(OTEL_EXPORTER_OTLP_TIMEOUT="10000") == 10.0
    assert timeout(OTEL_EXPORTER_OTLP_TIMEOUT="10000", OTEL_EXPORTER_OTLP_TRACES_TIMEOUT="500") == 0.5
    for bad in ("0", "-5", "soon", "inf"):
        with pytest.raises(ConfigError, match="expects a positive number of milliseconds"):
            timeout(OTEL_EXPORTER_OTLP_TIMEOUT=bad)


@pytest.fixture
def hanging() -> Iterator[str]:
    """A receiver on loopback that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


def closed_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"  # nothing listens once it is closed


@pytest.mark.parametrize("receiver", ["refusing", "hanging", "down"])
def test_a_receiver_that_refuses_hangs_or_is_down_costs_the_run_one_warning_line(
    receiver: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url = closed_port() if receiver == "down" else request.getfixturevalue(receiver)
    exercised = {"OTEL_EXPORTER_OTLP_TIMEOUT": f"{EXERCISED_TIMEOUT * 1000:g}"}  # a hang reaches it
    sent = k8s_agent(
        "ask", QUESTION, "-q", "--json", "--otel-endpoint", url, "--trace-dir", str(tmp_path),
        cwd=tmp_path, env=exercised,
    )  # fmt: skip
    quiet = k8s_agent("ask", QUESTION, "-q", "--json", "--trace-dir", str(tmp_path / "off"), cwd=tmp_path)

    assert sent.returncode == quiet.returncode == 0, sent.stderr
    report, baseline = json.loads(sent.stdout), json.loads(quiet.stdout)
    assert report["answer"] == baseline["answer"] and report["report_verified"] is True
    assert quiet.stderr == ""
    (warning,) = sent.stderr.splitlines()
    assert warning.startswith(f"warning: could not send spans to {url}/v1/traces: ")


# -- the commands that run many agents ------------------------------------------------------------


class _Recording(BaseHTTPRequestHandler):
    """Acknowledges each export and keeps its spans, decoded from OTLP/protobuf."""

    spans: ClassVar[list[Any]] = []

    def do_POST(self) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        request = ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                type(self).spans.extend(scope.spans)
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def recording() -> Iterator[tuple[str, list[Any]]]:
    """A receiver on loopback that keeps the spans it is sent."""
    spans: list[Any] = []
    handler = type("Handler", (_Recording,), {"spans": spans})
    with loopback_receiver(handler) as url:
        yield url, spans


def attributes_of(span: Any) -> dict[str, Any]:
    return {item.key: getattr(item.value, item.value.WhichOneof("value")) for item in span.attributes}


@pytest.mark.parametrize(
    "command",
    [
        ("compare", "--scenario", "c2-zero-tool-pushback"),
        ("eval", "--incident", "cascade-postgres-config", "--no-baselines"),
    ],
)
def test_compare_and_eval_send_each_of_their_runs(
    command: tuple[str, ...], recording: tuple[str, list[Any]], tmp_path: Path
) -> None:
    url, spans = recording
    done = k8s_agent(*command, "--otel-endpoint", url, "--out", str(tmp_path / "out.md"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "could not send spans" not in done.stderr
    roots = [attributes_of(span) for span in spans if not span.parent_span_id]
    impls = [root["k8s_agent.impl"] for root in roots]
    assert impls.count("handwritten") == impls.count("sdk") > 0  # every run of each side, one tree each
    assert all(root["gen_ai.operation.name"] == "invoke_agent" for root in roots)
    assert len({root["k8s_agent.run_id"] for root in roots}) == len(roots)
