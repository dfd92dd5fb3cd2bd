"""Cluster servers: what `--cluster-server` starts, with which limits, and what to redact.

    mock                    the embedded mock cluster, `python -m k8s_agent_mock_cluster` (the default)
    kubernetes-mcp-server   containers/kubernetes-mcp-server: its Go binary, run directly, with
                            --read-only --toolsets core --disable-multi-cluster and a config
                            file that denies Secrets; with `--cluster FILE`, against a fake
                            Kubernetes API holding the fixture, which the caller serves and
                            names in `config.kubeconfig` (k8s_agent.implementations)
    mcp-server-kubernetes   Flux159's Node.js server: ALLOW_ONLY_READONLY_TOOLS=true, ALLOWED_TOOLS
                            narrowed to the tools that cannot change anything, MASK_SECRETS=true;
                            it runs `kubectl` (found on PATH) for every call

`--mcp-command` starts any other stdio server as given, with KUBECONFIG passed on; `--mcp-url`
reaches a deployed server instead. Whatever starts, the credentials in the kubeconfig go to the
run's redactor (kubeconfig.py).

With `--mcp-transport streamable-http` (or `sse`), the mock and kubernetes-mcp-server are started
listening on a loopback port instead of on stdio (`ServerLaunch.http`); `served.py` starts them,
waits until they listen and stops them.

Resolving is read-only: it looks at the environment and the filesystem (discovery.py) and
returns a `ServerLaunch`. The one write a preset needs (kubernetes-mcp-server's config file) is
listed in `ServerLaunch.files` and happens in `ServerLaunch.prepare()`, which the session calls
just before it starts the server.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import shlex
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from k8s_agent_harness.cluster import discovery, kubeconfig
from k8s_agent_harness.cluster.discovery import KUBERNETES_MCP_SERVER, MCP_SERVER_KUBERNETES
from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.traces.private import is_private, private_dirs, write_private

STDIO, STREAMABLE_HTTP, SSE = "stdio", "streamable-http", "sse"
MOCK = "mock"
CUSTOM = "custom"
REMOTE = "remote"
MOCK_CLUSTER_MODULE = "k8s_agent_mock_cluster"
WARM_MOCK_CLUSTER = "K8S_AGENT_MOCK_CLUSTER_WARM"
# The warm-start launcher, a file of the mock cluster's package run with -I -S (standard library only).
MOCK_CLUSTER_LAUNCHER = Path(__file__).resolve().parents[2] / MOCK_CLUSTER_MODULE / "launch.py"

# kubernetes-mcp-server: read-only tools of the core toolset (the `config` toolset's configuration_view
# prints the kubeconfig with its token), on the kubeconfig's current context only.
KUBERNETES_MCP_SERVER_ARGUMENTS = ("--read-only", "--toolsets", "core", "--disable-multi-cluster")
# Secrets are not diagnosis data: the server refuses them before any request reaches the API.
KUBERNETES_MCP_SERVER_CONFIG = """\
# Written by k8s-agent for --cluster-server kubernetes-mcp-server: never read Secrets.
[[denied_resources]]
group = ""
version = "v1"
kind = "Secret"
"""

# Its HTTP mode: Streamable HTTP at /mcp, on loopback only.
KUBERNETES_MCP_SERVER_HTTP = ("--port", "{port}", "--bind-address", "127.0.0.1")

# mcp-server-kubernetes: its read-only set minus kubectl_context (operation "set" rewrites the
# kubeconfig and switches clusters), kubectl_reconnect (annotated not read-only) and ping.
MCP_SERVER_KUBERNETES_TOOLS = (
    "kubectl_get",
    "kubectl_describe",
    "kubectl_logs",
    "list_api_resources",
    "explain_resource",
)
MCP_SERVER_KUBERNETES_ENVIRONMENT = {
    "ALLOW_ONLY_READONLY_TOOLS": "true",
    "ALLOWED_TOOLS": ",".join(MCP_SERVER_KUBERNETES_TOOLS),
    "MASK_SECRETS": "true",
}


@dataclass(frozen=True)
class HttpStart:
    """How a started server listens over HTTP on loopback instead of talking on stdio."""

    transport: str
    """`streamable-http` or `sse`."""
    path: str = ""
    """The endpoint's path (`/mcp`, `/sse`) on the port given by `port_arguments`."""
    port_arguments: tuple[str, ...] = ()
    """Arguments that make it listen on a port the starter picks (`{port}` is replaced); none: the
    server picks its own port and prints `serving URL` on stdout (the mock cluster)."""


@dataclass(frozen=True)
class ServerLaunch:
    """How to start the run's MCP server, and what must be redacted from everything it returns."""

    command: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The server's whole extra environment (the stdio client adds only HOME, PATH and a few more)."""
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """Values from the kubeconfig that must never reach the model, a trace or a report."""
    description: str = ""
    """One line for the trace and the user: which server, how it was found, what it is limited to."""
    preset: str = MOCK
    """`mock`, `kubernetes-mcp-server`, `mcp-server-kubernetes`, `custom` (--mcp-command) or `remote`
    (--mcp-url)."""
    files: Mapping[Path, str] = field(default_factory=dict)
    """Files the command reads, with their content: written by `prepare()`, not by resolving."""
    url: str | None = None
    """A deployed server's Streamable HTTP endpoint (`remote`): reached, not started."""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Headers of every request to `url` (their values are among the secrets)."""
    ca_file: Path | None = None
    transport: str | None = None
    """`stdio`, `streamable-http` or `sse`; None for `--mcp-url` without `--mcp-transport`:
    Streamable HTTP, falling back to SSE when the server answers its first POST with a 4xx."""
    http: HttpStart | None = None
    """Set when the run starts `command` as an HTTP server on loopback (`served.py`) instead of on stdio."""

    @contextlib.contextmanager
    def with_private_kubeconfig(self) -> Iterator[ServerLaunch]:
        """This launch, its server given private copies of the kubeconfig files it would
        read (kubeconfig.private_copies) for as long as the block runs: a server that writes its
        kubeconfig (mcp-server-kubernetes' `kubectl_context set`) never changes the user's."""
        with kubeconfig.private_copies(self.env.get("KUBECONFIG")) as copies:
            if copies == self.env.get("KUBECONFIG"):
                yield self
            else:
                yield dataclasses.replace(self, env={**self.env, "KUBECONFIG": copies or ""})

    def prepare(self) -> None:
        """Write the files the command needs (atomically, only when their content or their mode
        differs): each 0600, each folder made for them 0700 (private.py), as kubectl keeps its config."""
        for path, content in self.files.items():
            try:
                if is_private(path) and path.read_text(encoding="utf-8") == content:
                    continue
                private_dirs(path.parent)
                partial = path.with_suffix(f".{os.getpid()}.tmp")
                write_private(partial, content)
                partial.replace(path)
            except OSError as error:
                raise ConfigError(
                    f"cannot write {path} ({error.strerror}), which {self.preset} needs to start: set "
                    "K8S_AGENT_CACHE to a writable folder"
                ) from error


def mock_cluster_command(
    *,
    cluster: Path | None = None,
    call_log: Path | None = None,
    faults: Path | None = None,
    result_log: Path | None = None,
    write_tools: bool = False,
    environ: Mapping[str, str] | None = None,
    http: bool = False,
) -> tuple[str, ...]:
    """The embedded mock cluster's stdio command on this interpreter: `python -m
    k8s_agent_mock_cluster ARGS`, or, while $K8S_AGENT_MOCK_CLUSTER_WARM names a warm mock
    cluster's socket (`k8s_agent_mock_cluster.warm`), its launcher, which starts the same server
    in milliseconds instead of a second of imports. With `http`, it serves Streamable HTTP on a free
    loopback port instead and prints `serving URL`."""
    command: list[str] = ["--http", "127.0.0.1:0"] if http else []
    if call_log is not None:
        command += ["--call-log", str(call_log)]
    if result_log is not None:
        command += ["--result-log", str(result_log)]
    if write_tools:
        command.append("--with-write-tools")
    if cluster is not None:
        command += ["--cluster", str(cluster)]
    if faults is not None:
        command += ["--faults", str(faults)]
    warm = (os.environ if environ is None else environ).get(WARM_MOCK_CLUSTER)
    if warm:
        return warm_command(warm, MOCK_CLUSTER_MODULE, command)
    return (sys.executable, "-m", MOCK_CLUSTER_MODULE, *command)


def warm_command(socket_path: str, module: str, args: Sequence[str]) -> tuple[str, ...]:
    """`python -m MODULE ARGS`, started from the warm process listening at `socket_path` through the
    standard-library launcher (k8s_agent_mock_cluster/launch.py)."""
    return (sys.executable, "-I", "-S", str(MOCK_CLUSTER_LAUNCHER), socket_path, "-m", module, *args)


def resolve_server(config: Config, environ: Mapping[str, str] | None = None) -> ServerLaunch:
    """The server a run starts: --mcp-command as given, else the --cluster-server preset, else the mock.

    Reads the environment (binary overrides, PATH, HOME, KUBECONFIG) when called, once per run,
    and writes nothing; raises ConfigError naming what to install or set when a preset's server
    cannot be found.
    """
    environ = os.environ if environ is None else environ
    if config.mcp_url is not None:
        return _remote(config)
    if config.mcp_command:
        return _custom(config, environ)
    if config.cluster_server == KUBERNETES_MCP_SERVER:
        return _kubernetes_mcp_server(config, environ)
    if config.cluster_server == MCP_SERVER_KUBERNETES:
        return _mcp_server_kubernetes(config, environ)
    return _mock(config, environ)


def _remote(config: Config) -> ServerLaunch:
    assert config.mcp_url is not None
    headers = config.mcp_http_headers()
    named = f"; headers: {', '.join(sorted(headers))}" if headers else ""
    ca = f"; CA {config.mcp_ca_file}" if config.mcp_ca_file else ""
    how = {None: "Streamable HTTP, else SSE", STREAMABLE_HTTP: "Streamable HTTP", SSE: "SSE"}[
        config.mcp_transport
    ]
    return ServerLaunch(
        (),
        {},
        tuple(value for value in headers.values() if value),
        f"deployed MCP server at {config.mcp_url} ({how}{named}{ca})",
        REMOTE,
        url=config.mcp_url,
        headers=headers,
        ca_file=config.mcp_ca_file,
        transport=config.mcp_transport,
    )


def _over_http(config: Config) -> HttpStart | None:
    """How a preset listens when --mcp-transport asks for HTTP; None for stdio (the default)."""
    if config.mcp_transport in (None, STDIO):
        return None
    assert config.mcp_transport is not None
    return HttpStart(config.mcp_transport)


def _mock(config: Config, environ: Mapping[str, str]) -> ServerLaunch:
    fixture = f"fixture {config.cluster}" if config.cluster else "shipped fixture"
    http = _over_http(config)
    command = mock_cluster_command(cluster=config.cluster, environ=environ, http=http is not None)
    if http is not None and http.transport == SSE:
        command = (*command, "--sse")
    served = f", serving {'SSE' if http.transport == SSE else 'Streamable HTTP'} on loopback" if http else ""
    return ServerLaunch(
        command,
        dict(config.mcp_env),
        (),
        f"embedded mock cluster ({fixture}{served})",
        MOCK,
        transport=config.mcp_transport or STDIO,
        http=http,
    )


def _custom(config: Config, environ: Mapping[str, str]) -> ServerLaunch:
    env = dict(config.mcp_env)
    kubeconfigs = kubeconfig.kubeconfig_files(env, environ)
    if kubeconfigs:  # named, so that the server is given copies of them (with_private_kubeconfig)
        env["KUBECONFIG"] = os.pathsep.join(str(path) for path in kubeconfigs)
    files = _select_context(config, env, kubeconfigs, environ)
    return ServerLaunch(
        config.mcp_command,
        env,
        kubeconfig.kubeconfig_secrets(kubeconfigs, environ),
        f"MCP server `{shlex.join(config.mcp_command)}`{_context_note(config)}",
        CUSTOM,
        files,
        transport=STDIO,
    )


def _select_context(
    config: Config, env: dict[str, str], kubeconfigs: list[Path], environ: Mapping[str, str]
) -> dict[Path, str]:
    """For --context: a small kubeconfig that selects it, put first in the server's KUBECONFIG."""
    if not config.context:
        return {}
    known = kubeconfig.contexts(kubeconfigs)
    if config.context not in known:
        raise ConfigError(
            f"context {config.context!r} is not in the kubeconfig ({kubeconfig.describe(kubeconfigs)}): "
            f"its contexts are {', '.join(known) or 'none'}"
        )
    digest = hashlib.sha256(config.context.encode("utf-8")).hexdigest()[:16]
    override = discovery.cache_root(environ) / "contexts" / f"{digest}.yaml"
    env["KUBECONFIG"] = os.pathsep.join([str(override), *(str(path) for path in kubeconfigs)])
    return {override: kubeconfig.context_override(config.context)}


def _context_note(config: Config) -> str:
    return f" (context {config.context})" if config.context else ""


def _kubernetes_mcp_server(config: Config, environ: Mapping[str, str]) -> ServerLaunch:
    env = dict(config.mcp_env)
    binary = discovery.find_kubernetes_mcp_server(environ, discovery.search_path(env, environ))
    if config.cluster is not None:
        kubeconfigs = _fixture_kubeconfig(config, env)
    else:
        kubeconfigs = kubeconfig.require_kubeconfig(env, environ, KUBERNETES_MCP_SERVER)
    settings = discovery.cache_root(environ) / KUBERNETES_MCP_SERVER / "k8s-agent.toml"
    if kubeconfigs:
        env["KUBECONFIG"] = os.pathsep.join(str(path) for path in kubeconfigs)
    files = {settings: KUBERNETES_MCP_SERVER_CONFIG, **_select_context(config, env, kubeconfigs, environ)}
    version = discovery.version_of(binary, KUBERNETES_MCP_SERVER)
    context = f"context {config.context} only" if config.context else "current context only"
    if config.cluster is not None:
        context = f"the fixture {config.cluster} served by a fake Kubernetes API"
    http = _over_http(config)
    served = ""
    if http is not None:
        if http.transport == SSE:  # its /sse answers 404 (0.0.67): Streamable HTTP only
            raise ConfigError(
                f"--mcp-transport sse: {KUBERNETES_MCP_SERVER} serves Streamable HTTP only: use --mcp-transport "
                "streamable-http (or stdio)"
            )
        http = HttpStart(http.transport, "/mcp", KUBERNETES_MCP_SERVER_HTTP)
        served = "; serving Streamable HTTP on loopback"
    return ServerLaunch(
        (str(binary), *KUBERNETES_MCP_SERVER_ARGUMENTS, "--config", str(settings)),
        env,
        kubeconfig.kubeconfig_secrets(kubeconfigs, environ),
        f"{KUBERNETES_MCP_SERVER}{version} at {binary} (read-only tools of the core toolset, {context}, "
        f"Secrets denied; kubeconfig {kubeconfig.describe(kubeconfigs)}{served})",
        KUBERNETES_MCP_SERVER,
        files,
        transport=config.mcp_transport or STDIO,
        http=http,
    )


def _fixture_kubeconfig(config: Config, env: dict[str, str]) -> list[Path]:
    """With `--cluster FILE`, the server reads the fixture from a fake Kubernetes API that the caller
    serves (k8s_agent.implementations) and names in `config.kubeconfig`: that kubeconfig only, never
    the user's. Until it is served (checking a request), there is none, and the server could reach
    nothing."""
    served = [config.kubeconfig] if config.kubeconfig is not None and config.kubeconfig.is_file() else []
    env["KUBECONFIG"] = str(served[0]) if served else os.devnull
    return served


def _mcp_server_kubernetes(config: Config, environ: Mapping[str, str]) -> ServerLaunch:
    if _over_http(config) is not None:
        raise ConfigError(
            f"--mcp-transport {config.mcp_transport}: k8s-agent starts {MCP_SERVER_KUBERNETES} on stdio only: "
            "leave --mcp-transport unset (or stdio), or serve it over HTTP yourself and give its URL with "
            "--mcp-url"
        )
    env = dict(config.mcp_env)
    path = discovery.search_path(env, environ)
    script = discovery.find_mcp_server_kubernetes(environ, path)
    node = shutil.which("node", path=path)
    if node is None:
        raise ConfigError(
            f"{MCP_SERVER_KUBERNETES} is a Node.js program and `node` is not on PATH: install Node.js 18 "
            "or later"
        )
    if shutil.which("kubectl", path=path) is None:
        raise ConfigError(
            f"{MCP_SERVER_KUBERNETES} runs `kubectl` for every call and `kubectl` is not on PATH: install "
            "kubectl (https://kubernetes.io/docs/tasks/tools/) or use --cluster-server kubernetes-mcp-server"
        )
    kubeconfigs = kubeconfig.require_kubeconfig(env, environ, MCP_SERVER_KUBERNETES)
    env["PATH"] = path
    if "HOME" not in env and environ.get("HOME"):
        env["HOME"] = environ["HOME"]  # kubectl keeps its discovery cache in $HOME/.kube/cache
    if kubeconfigs:
        env["KUBECONFIG"] = os.pathsep.join(str(p) for p in kubeconfigs)
    files = _select_context(config, env, kubeconfigs, environ)
    env.update(MCP_SERVER_KUBERNETES_ENVIRONMENT)  # the preset's limits win over --mcp-env
    version = discovery.version_of(script, MCP_SERVER_KUBERNETES)
    return ServerLaunch(
        (node, str(script)),
        env,
        kubeconfig.kubeconfig_secrets(kubeconfigs, environ),
        f"{MCP_SERVER_KUBERNETES}{version} at {script} (tools {', '.join(MCP_SERVER_KUBERNETES_TOOLS)}; "
        f"kubectl from PATH; kubeconfig {kubeconfig.describe(kubeconfigs)}{_context_note(config)})",
        MCP_SERVER_KUBERNETES,
        files,
        transport=STDIO,
    )
