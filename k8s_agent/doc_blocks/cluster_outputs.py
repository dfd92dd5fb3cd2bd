"""The blocks of docs/real-clusters.md that run here: a deployed MCP server reached with `--mcp-url`
(the mock cluster over HTTP behind a token), and the one-line errors of a set-up that cannot work.
The runs against the real npm servers are recorded blocks (they need the servers from npm)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from k8s_agent.doc_blocks.ask_outputs import QUESTION
from k8s_agent.doc_blocks.block import Block, Check
from k8s_agent.doc_blocks.shell import BlockError, Shell
from k8s_agent.doc_blocks.views import LEFT_OUT, fenced, progress_excerpt, report_parts

PAGE = "docs/real-clusters.md"
TOKEN = "s3cret-demo-token"
SERVE = ["-m", "k8s_agent_mock_cluster", "--http", "127.0.0.1:0", "--token-env", "MOCK_TOKEN"]
START_TIMEOUT = 120.0
"""Seconds the mock cluster may take to listen (its imports, on a loaded machine)."""
UNREACHABLE = "http://127.0.0.1:1/mcp"
"""A URL nothing listens at (port 1)."""


@contextmanager
def served_mock_cluster() -> Iterator[str]:
    """The mock cluster over Streamable HTTP behind a token, as the page starts it: its URL."""
    with subprocess.Popen(
        [sys.executable, *SERVE],
        env={**os.environ, "MOCK_TOKEN": TOKEN},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as process:  # its pipe closed and the process reaped on the way out
        try:
            yield _announced(process)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def _announced(process: subprocess.Popen[str]) -> str:
    """The URL of the mock cluster's `serving URL` line, waited for at most START_TIMEOUT seconds."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(START_TIMEOUT):
            raise BlockError(f"the mock cluster did not listen within {START_TIMEOUT:g} s")
    line = process.stdout.readline()
    if not line.startswith("serving "):
        raise BlockError(f"the mock cluster did not start: {line.strip() or 'no output'}")
    return line.removeprefix("serving ").strip()


def _runs(shell: Shell) -> tuple[str, str, Path, str, str]:
    """Against one served mock cluster: the URL, the run with the token (its progress and report,
    and its trace), the run without it, and one against a URL nothing listens at."""
    return shell.once("mcp-url", lambda: _served_runs(shell))


def _served_runs(shell: Shell) -> tuple[str, str, Path, str, str]:
    with served_mock_cluster() as url:
        with_token = shell.k8s_agent("ask", QUESTION, "--mcp-url", url, env={"K8S_AGENT_MCP_TOKEN": TOKEN})
        without = shell.k8s_agent("ask", QUESTION, "--mcp-url", url, codes=(4,))
    unreachable = shell.k8s_agent("ask", QUESTION, "--mcp-url", UNREACHABLE, codes=(4,))
    trace = Path(with_token.stdout.rstrip().rsplit("\n", 1)[-1].removeprefix("Trace: "))
    if any(
        TOKEN in text for text in (with_token.stdout, with_token.stderr, trace.read_text(encoding="utf-8"))
    ):
        raise BlockError("the token is in the output or the trace")
    shown = with_token.stderr + "\n".join(report_parts(with_token.stdout)[0][:-1])
    return url, shown, trace, without.stderr, unreachable.stderr


def mcp_url_run(shell: Shell) -> str:
    """The session: the server started, the run, its report's head and trace."""
    url, shown, trace, _, _ = _runs(shell)
    trace_line = shell.shown(f"Trace: {trace}")
    return fenced(
        "\n".join(
            [
                f"$ MOCK_TOKEN={TOKEN} python {' '.join(SERVE)} &",
                f"serving {url}",
                f'$ K8S_AGENT_MCP_TOKEN={TOKEN} k8s-agent ask "{QUESTION}" --mcp-url {url}',
                progress_excerpt(shown, longest=1),
                LEFT_OUT,
                trace_line,
            ]
        )
    )


def mcp_url_start(shell: Shell) -> str:
    """What the trace's `run_start` records of the server (and not the token)."""
    from k8s_agent_harness.traces.events import read_trace

    start = read_trace(_runs(shell)[2]).start
    shown = {"mcp_command": start.mcp_command, "mcp_url": start.mcp_url, "mcp_server": start.mcp_server}
    return fenced(json.dumps(shown, ensure_ascii=False), "json")


def mcp_url_errors(shell: Shell) -> str:
    """The error lines without the token, and with a server that is not there."""
    _, _, _, without, unreachable = _runs(shell)
    return fenced("\n".join(_error_line(text) for text in (without, unreachable)))


def _error_line(stderr: str) -> str:
    """The `error: ...` line of a run's stderr (its progress lines come before it)."""
    line = next((line for line in stderr.split("\n") if line.startswith("error: ")), None)
    if line is None:
        raise BlockError(f"no error line on stderr: {stderr.strip()[-200:]}")
    return line


def setup_errors(shell: Shell) -> str:
    """The one-line errors of set-ups that cannot work: no server installed, no kubeconfig, no
    kubectl, two servers named (an endpoint is named so that the offline model is not chosen)."""
    home, cache, bin_dir = (shell.path(name) for name in ("setup-home", "setup-cache", "setup-bin"))
    for folder in (home, cache, bin_dir):
        folder.mkdir(exist_ok=True)
    node = bin_dir / "node"  # on PATH, so that the check for kubectl is reached; never run
    node.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    node.chmod(0o755)
    kubeconfig = shell.path("setup-kubeconfig.yaml")
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n", encoding="utf-8"
    )
    base = {
        "HOME": str(home),
        "K8S_AGENT_CACHE": str(cache),
        "PATH": str(bin_dir),
        "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
        **dict.fromkeys(
            ("KUBERNETES_MCP_SERVER_BIN", "MCP_SERVER_KUBERNETES_JS", "K8S_MCP_NPM_DIR", "KUBECONFIG"), ""
        ),
    }  # whatever this environment installed or named is out of sight: an empty value counts as unset
    cases = [
        (["--cluster-server", "kubernetes-mcp-server"], {}),
        (["--cluster-server", "kubernetes-mcp-server"], {"KUBERNETES_MCP_SERVER_BIN": str(node)}),
        (
            ["--cluster-server", "mcp-server-kubernetes"],
            {"MCP_SERVER_KUBERNETES_JS": str(node), "KUBECONFIG": str(kubeconfig)},
        ),
        (["--cluster-server", "kubernetes-mcp-server", "--mcp-command", "kubernetes-mcp-server"], {}),
    ]
    lines = []
    for flags, env in cases:
        ran = shell.k8s_agent("ask", QUESTION, *flags, env={**base, **env}, codes=(2,))
        lines.append(_error_line(ran.stderr))
    return fenced("\n".join(lines))


URL_COMMAND = f'k8s-agent ask "{QUESTION}" --mcp-url URL (the mock cluster over HTTP behind a token)'

BLOCKS = (
    Block(
        "clusters-mcp-url",
        PAGE,
        URL_COMMAND,
        "ask --mcp-url: a deployed server",
        mcp_url_run,
        Check(mcp_url_run),
    ),
    Block(
        "clusters-mcp-url-start",
        PAGE,
        URL_COMMAND,
        "ask --mcp-url: the trace's run_start",
        mcp_url_start,
        Check(mcp_url_start),
    ),
    Block(
        "clusters-mcp-url-errors",
        PAGE,
        URL_COMMAND + "; without the token; and at a URL nothing listens at",
        "ask --mcp-url: the error lines",
        mcp_url_errors,
        Check(mcp_url_errors),
    ),
    Block(
        "clusters-setup-errors",
        PAGE,
        "k8s-agent ask --cluster-server ... without the server, the kubeconfig or kubectl; with two servers",
        "set-up errors",
        setup_errors,
        Check(setup_errors),
    ),
)
