"""An incident's cluster served by kubernetes-mcp-server: the tools and formats of a real cluster.

`serve_incident(incident, binary)` turns the incident's mock-cluster fixture into Kubernetes objects
(k8s_agent_mock_cluster.kube_objects), serves them from a fake Kubernetes API over TLS (a throw-away
certificate, a bearer token in a kubeconfig of a temporary folder: `fake_kubernetes`, which `ask
--cluster FILE --cluster-server kubernetes-mcp-server` runs against too), starts the Go server against it
as `--cluster-server kubernetes-mcp-server` would (read-only core tools, one context, Secrets denied)
but over Streamable HTTP on a free loopback port, and yields its URL. Any number of runs may connect
to it at once (`k8s-agent ask --mcp-url URL`); everything is stopped and removed at exit.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from k8s_agent.eval.corpus import Incident
from k8s_agent_harness.cluster.servers import KUBERNETES_MCP_SERVER_ARGUMENTS, KUBERNETES_MCP_SERVER_CONFIG
from k8s_agent_harness.errors import ConfigError, McpServerError
from k8s_agent_harness.traces.private import open_private, write_private
from k8s_agent_mock_cluster import FixtureError, load_fixture
from k8s_agent_mock_cluster.fixture import YAML_SUFFIXES, read_yaml
from k8s_agent_mock_cluster.kube_api import FakeKubeAPI
from k8s_agent_mock_cluster.kube_objects import cluster_moment, kube_objects

START_SECONDS = 60.0
"""How long the server may take to answer its first request."""
STOP_SECONDS = 10.0
"""How long it may take to exit once asked, before it is killed."""


@contextlib.contextmanager
def fake_kubernetes(fixture: Path) -> Iterator[Path]:
    """The fixture's cluster as Kubernetes objects, served by a fake Kubernetes API over TLS (on a
    free loopback port) for as long as the context lasts; yields a kubeconfig for it (its bearer
    token and throw-away certificate), in a temporary folder of its own that goes with it. What
    `ask --cluster FILE --cluster-server kubernetes-mcp-server` runs against, and each incident here.

    Raises FixtureError when the fixture cannot be read.
    """
    objects, now = _objects(fixture)
    with (
        tempfile.TemporaryDirectory(prefix="k8s-agent-kube-surface-") as folder,
        FakeKubeAPI(objects, tls=True, now=now) as api,
    ):
        yield api.write_kubeconfig(Path(folder) / "kubeconfig")


@contextlib.contextmanager
def serve_incident(incident: Incident, binary: Path) -> Iterator[str]:
    """Serve the incident's cluster through kubernetes-mcp-server; yield its MCP Streamable HTTP URL.

    Raises ConfigError when the binary or the incident's cluster cannot be used, McpServerError when
    the server exits or does not answer at start.
    """
    if not binary.is_file() or not os.access(binary, os.X_OK):
        raise ConfigError(f"kubernetes-mcp-server is not an executable file: {binary}")
    with contextlib.ExitStack() as stack:
        try:
            kubeconfig = stack.enter_context(fake_kubernetes(incident.cluster))
        except FixtureError as error:
            raise ConfigError(f"incident {incident.id}: {error}") from None
        folder = kubeconfig.parent
        settings = folder / "k8s-agent.toml"
        write_private(settings, KUBERNETES_MCP_SERVER_CONFIG)
        port = _free_port()
        command = [
            str(binary),
            *KUBERNETES_MCP_SERVER_ARGUMENTS,
            "--config",
            str(settings),
            "--port",
            str(port),
            "--bind-address",
            "127.0.0.1",
        ]
        log_path = folder / "server.log"
        with open_private(log_path, "wb") as log:
            server = subprocess.Popen(
                command,
                env={**os.environ, "KUBECONFIG": str(kubeconfig)},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                _wait_until_answering(server, port, log_path)
                yield f"http://127.0.0.1:{port}/mcp"
            finally:
                _stop(server)


def _objects(path: Path) -> tuple[dict[str, object], datetime]:
    """The fixture's Kubernetes objects, and the moment its ages count from (its `now`, else now)."""
    fixture = load_fixture(path)
    moment = None
    if path.suffix in YAML_SUFFIXES:
        section = read_yaml(path).get("cluster") or {}
        moment = section.get("now")
    now = cluster_moment(moment, datetime.now(UTC).replace(microsecond=0))
    return kube_objects(fixture, now), now


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_answering(server: subprocess.Popen[bytes], port: int, log_path: Path) -> None:
    """Until the server answers HTTP on its port; McpServerError when it exits or takes too long."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        if server.poll() is not None:
            raise McpServerError(
                f"kubernetes-mcp-server exited at start (status {server.returncode}): {_last_line(log_path)}",
                log_path.read_text(encoding="utf-8", errors="replace")[-2000:],
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answered, if not with 200
        except OSError:
            pass
        if time.monotonic() > deadline:
            _stop(server)
            raise McpServerError(
                f"kubernetes-mcp-server did not answer on port {port} within {START_SECONDS:.0f} s: "
                f"{_last_line(log_path)}"
            )
        time.sleep(0.05)


def _stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    server.terminate()
    try:
        server.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def _last_line(log_path: Path) -> str:
    lines = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return lines[-1].strip() if lines else "(it wrote nothing)"
