"""Cluster servers: what `--cluster-server` starts, and the kubeconfig secrets the model must never see.

    mock                    the embedded mock cluster, `python -m mock_cluster` (the default)
    kubernetes-mcp-server   containers/kubernetes-mcp-server: its Go binary, run directly, with
                            --read-only --toolsets core --disable-multi-cluster and a config
                            that denies Secrets
    mcp-server-kubernetes   Flux159's Node.js server: ALLOW_ONLY_READONLY_TOOLS=true, ALLOWED_TOOLS
                            narrowed to the tools that cannot change anything, MASK_SECRETS=true;
                            it runs `kubectl` (found on PATH) for every call

`--mcp-command` starts any other stdio server as given, with KUBECONFIG passed on. Whatever
starts, the secrets found in the kubeconfig (tokens, client keys, passwords, auth-provider
and exec secrets: whatever can be read without running anything) go to the run's redactor.

Where the real servers are found, first hit wins:
    kubernetes-mcp-server   $KUBERNETES_MCP_SERVER_BIN; the install script's folder
                            ($K8S_MCP_NPM_DIR, else ${K8S_AGENT_CACHE:-~/.cache/k8s-agent}/npm);
                            `kubernetes-mcp-server` on PATH (an npm wrapper is skipped for the
                            platform binary next to it)
    mcp-server-kubernetes   $MCP_SERVER_KUBERNETES_JS (its dist/index.js); the install script's
                            folder; `mcp-server-kubernetes` on PATH; always run with `node` from PATH
"""

from __future__ import annotations

import json
import os
import platform
import re
import shlex
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harness.config import Config
from harness.errors import ConfigError

KUBERNETES_MCP_SERVER = "kubernetes-mcp-server"
MCP_SERVER_KUBERNETES = "mcp-server-kubernetes"
MOCK = "mock"
CUSTOM = "custom"

INSTALL_HINT = (
    "install it with `bash .ci/install-k8s-mcp-servers.sh` (pinned, into ~/.cache/k8s-agent/npm) or "
    "`npm install -g {package}`, or point {variable} at it"
)

# kubernetes-mcp-server: read-only tools of the core toolset (the `config` toolset's configuration_view
# prints the kubeconfig with its token), on the kubeconfig's current context only.
KMS_ARGUMENTS = ("--read-only", "--toolsets", "core", "--disable-multi-cluster")
# Secrets are not diagnosis data: the server refuses them before any request reaches the API.
KMS_CONFIG = """\
# Written by k8s-agent for --cluster-server kubernetes-mcp-server: never read Secrets.
[[denied_resources]]
group = ""
version = "v1"
kind = "Secret"
"""

# mcp-server-kubernetes: its read-only set minus kubectl_context (operation "set" rewrites the
# kubeconfig and switches clusters), kubectl_reconnect (annotated not read-only) and ping.
FLUX_TOOLS = ("kubectl_get", "kubectl_describe", "kubectl_logs", "list_api_resources", "explain_resource")
FLUX_ENVIRONMENT = {
    "ALLOW_ONLY_READONLY_TOOLS": "true",
    "ALLOWED_TOOLS": ",".join(FLUX_TOOLS),
    "MASK_SECRETS": "true",
}

IN_CLUSTER_TOKEN = Path("/var/run/secrets/kubernetes.io/serviceaccount/token")
MAX_SECRET_FILE_BYTES = 65_536


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
    """`mock`, `kubernetes-mcp-server`, `mcp-server-kubernetes`, or `custom` (--mcp-command)."""


def resolve_server(config: Config, environ: Mapping[str, str] | None = None) -> ServerLaunch:
    """The server a run starts: --mcp-command as given, else the --cluster-server preset, else the mock.

    Reads the environment (binary overrides, PATH, HOME, KUBECONFIG) when called, once per run;
    raises ConfigError naming what to install or set when a preset's server cannot be found.
    """
    environ = os.environ if environ is None else environ
    if config.mcp_command:
        return _custom(config, environ)
    if config.cluster_server == KUBERNETES_MCP_SERVER:
        return _kubernetes_mcp_server(config, environ)
    if config.cluster_server == MCP_SERVER_KUBERNETES:
        return _mcp_server_kubernetes(config, environ)
    return _mock(config)


# -- presets ---------------------------------------------------------------------------------


def _mock(config: Config) -> ServerLaunch:
    command: tuple[str, ...] = (sys.executable, "-m", "mock_cluster")
    if config.cluster is not None:
        command = (*command, "--cluster", str(config.cluster))
    fixture = f"fixture {config.cluster}" if config.cluster else "shipped fixture"
    return ServerLaunch(command, dict(config.mcp_env), (), f"embedded mock cluster ({fixture})", MOCK)


def _custom(config: Config, environ: Mapping[str, str]) -> ServerLaunch:
    env = dict(config.mcp_env)
    secrets = kubeconfig_secrets(kubeconfig_files(env, environ), environ)
    return ServerLaunch(
        config.mcp_command, env, secrets, f"MCP server `{shlex.join(config.mcp_command)}`", CUSTOM
    )


def _kubernetes_mcp_server(config: Config, environ: Mapping[str, str]) -> ServerLaunch:
    env = dict(config.mcp_env)
    binary = find_kubernetes_mcp_server(environ, _search_path(env, environ))
    kubeconfigs = _require_kubeconfig(env, environ, KUBERNETES_MCP_SERVER)
    settings = _write_kms_config(_cache_root(environ) / KUBERNETES_MCP_SERVER / "k8s-agent.toml")
    if kubeconfigs:
        env["KUBECONFIG"] = os.pathsep.join(str(path) for path in kubeconfigs)
    command = (str(binary), *KMS_ARGUMENTS, "--config", str(settings))
    return ServerLaunch(
        command,
        env,
        kubeconfig_secrets(kubeconfigs, environ),
        f"{KUBERNETES_MCP_SERVER}{_version_of(binary, KUBERNETES_MCP_SERVER)} at {binary} (read-only tools of the core "
        f"toolset, current context only, Secrets denied; kubeconfig {_describe(kubeconfigs)})",
        KUBERNETES_MCP_SERVER,
    )


def _mcp_server_kubernetes(config: Config, environ: Mapping[str, str]) -> ServerLaunch:
    env = dict(config.mcp_env)
    search_path = _search_path(env, environ)
    script = find_mcp_server_kubernetes(environ, search_path)
    node = shutil.which("node", path=search_path)
    if node is None:
        raise ConfigError(
            f"{MCP_SERVER_KUBERNETES} is a Node.js program and `node` is not on PATH: install Node.js 18 "
            "or later"
        )
    if shutil.which("kubectl", path=search_path) is None:
        raise ConfigError(
            f"{MCP_SERVER_KUBERNETES} runs `kubectl` for every call and `kubectl` is not on PATH: install "
            "kubectl (https://kubernetes.io/docs/tasks/tools/) or use --cluster-server kubernetes-mcp-server"
        )
    kubeconfigs = _require_kubeconfig(env, environ, MCP_SERVER_KUBERNETES)
    env["PATH"] = search_path
    if "HOME" not in env and environ.get("HOME"):
        env["HOME"] = environ["HOME"]  # kubectl keeps its discovery cache in $HOME/.kube/cache
    if kubeconfigs:
        env["KUBECONFIG"] = os.pathsep.join(str(path) for path in kubeconfigs)
    env.update(FLUX_ENVIRONMENT)  # the preset's limits win over --mcp-env
    return ServerLaunch(
        (node, str(script)),
        env,
        kubeconfig_secrets(kubeconfigs, environ),
        f"{MCP_SERVER_KUBERNETES}{_version_of(script, MCP_SERVER_KUBERNETES)} at {script} (tools {', '.join(FLUX_TOOLS)}; "
        f"kubectl from PATH; kubeconfig {_describe(kubeconfigs)})",
        MCP_SERVER_KUBERNETES,
    )


# -- finding the servers -----------------------------------------------------------------------


def npm_folder(environ: Mapping[str, str]) -> Path:
    """Where `.ci/install-k8s-mcp-servers.sh` installs the servers (its `--prefix`)."""
    if environ.get("K8S_MCP_NPM_DIR"):
        return Path(environ["K8S_MCP_NPM_DIR"])
    return _cache_root(environ) / "npm"


def kms_platform_package() -> str | None:
    """The npm package holding kubernetes-mcp-server's binary for this machine, if one is published."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform)
    machine = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower()
    )
    return f"{KUBERNETES_MCP_SERVER}-{system}-{machine}" if system and machine else None


def find_kubernetes_mcp_server(environ: Mapping[str, str], search_path: str) -> Path:
    """The kubernetes-mcp-server binary: the override, the install script's folder, then PATH."""
    override = environ.get("KUBERNETES_MCP_SERVER_BIN")
    if override:
        return _executable(Path(override), "KUBERNETES_MCP_SERVER_BIN")
    package = kms_platform_package()
    if package is not None:
        binary = _kms_binary(npm_folder(environ) / "node_modules", package)
        if binary is not None:
            return binary
    found = shutil.which(KUBERNETES_MCP_SERVER, path=search_path)
    if found is not None:
        real = Path(found).resolve()
        if package is not None and _is_script(real):
            # npm's wrapper (bin/index.js) only spawns the platform binary, and prints signal
            # messages to stdout, the MCP channel: run the binary it would run.
            package_dir = real.parent.parent
            for modules in (package_dir / "node_modules", package_dir.parent):
                binary = _kms_binary(modules, package)
                if binary is not None:
                    return binary
        return Path(found)
    raise ConfigError(
        f"{KUBERNETES_MCP_SERVER} not found: "
        + INSTALL_HINT.format(package=KUBERNETES_MCP_SERVER, variable="KUBERNETES_MCP_SERVER_BIN")
    )


def find_mcp_server_kubernetes(environ: Mapping[str, str], search_path: str) -> Path:
    """mcp-server-kubernetes' entry script: the override, the install script's folder, then PATH."""
    override = environ.get("MCP_SERVER_KUBERNETES_JS")
    if override:
        script = Path(override)
        if not script.is_file():
            raise ConfigError(f"MCP_SERVER_KUBERNETES_JS={override}: no such file")
        return script
    script = npm_folder(environ) / "node_modules" / MCP_SERVER_KUBERNETES / "dist" / "index.js"
    if script.is_file():
        return script
    found = shutil.which(MCP_SERVER_KUBERNETES, path=search_path)
    if found is not None:
        return Path(found).resolve()
    raise ConfigError(
        f"{MCP_SERVER_KUBERNETES} not found: "
        + INSTALL_HINT.format(package=MCP_SERVER_KUBERNETES, variable="MCP_SERVER_KUBERNETES_JS")
    )


def _kms_binary(modules: Path, package: str) -> Path | None:
    suffix = ".exe" if package.startswith(f"{KUBERNETES_MCP_SERVER}-windows") else ""
    binary = modules / package / "bin" / f"{package}{suffix}"
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


def _executable(path: Path, variable: str) -> Path:
    if not path.is_file():
        raise ConfigError(f"{variable}={path}: no such file")
    if not os.access(path, os.X_OK):
        raise ConfigError(f"{variable}={path}: not executable")
    return path


def _is_script(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(2) == b"#!"
    except OSError:
        return False


def _version_of(program: Path, package: str) -> str:
    """` 0.0.67` from the package.json of the npm package holding the program, else ''."""
    try:
        manifest = json.loads((program.parent.parent / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(manifest, dict) or not str(manifest.get("name", "")).startswith(package):
        return ""
    return f" {manifest.get('version')}"


def _write_kms_config(path: Path) -> Path:
    try:
        if not path.is_file() or path.read_text(encoding="utf-8") != KMS_CONFIG:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(KMS_CONFIG, encoding="utf-8")
            partial.replace(path)
    except OSError as error:
        raise ConfigError(
            f"cannot write {path} ({error.strerror}), the configuration that keeps {KUBERNETES_MCP_SERVER} "
            "away from Secrets: set K8S_AGENT_CACHE to a writable folder"
        ) from error
    return path


def _cache_root(environ: Mapping[str, str]) -> Path:
    if environ.get("K8S_AGENT_CACHE"):
        return Path(environ["K8S_AGENT_CACHE"])
    return Path(environ.get("HOME") or Path.home()) / ".cache" / "k8s-agent"


def _search_path(env: Mapping[str, str], environ: Mapping[str, str]) -> str:
    return env.get("PATH") or environ.get("PATH") or os.defpath


# -- kubeconfig and its secrets ------------------------------------------------------------------


def kubeconfig_files(env: Mapping[str, str], environ: Mapping[str, str]) -> list[Path]:
    """The kubeconfig files the server will read: $KUBECONFIG's existing files, else ~/.kube/config."""
    listed = env.get("KUBECONFIG") or environ.get("KUBECONFIG")
    if listed:
        return [Path(part) for part in listed.split(os.pathsep) if part and Path(part).is_file()]
    home = env.get("HOME") or environ.get("HOME")
    default = Path(home) / ".kube" / "config" if home else None
    return [default] if default is not None and default.is_file() else []


def _require_kubeconfig(env: Mapping[str, str], environ: Mapping[str, str], server: str) -> list[Path]:
    found = kubeconfig_files(env, environ)
    if not found and not _in_cluster(environ):
        where = env.get("KUBECONFIG") or environ.get("KUBECONFIG") or "~/.kube/config"
        raise ConfigError(
            f"{server} needs a kubeconfig and there is none at {where}: set KUBECONFIG "
            "(e.g. `export KUBECONFIG=~/.kube/config`) or pass --mcp-env KUBECONFIG=PATH"
        )
    return found


def _in_cluster(environ: Mapping[str, str]) -> bool:
    return bool(environ.get("KUBERNETES_SERVICE_HOST")) and IN_CLUSTER_TOKEN.is_file()


def _describe(paths: Iterable[Path]) -> str:
    names = [str(path) for path in paths]
    return ", ".join(names) if names else "in-cluster service account"


# Fields of a kubeconfig user (and of its auth-provider config) that hold a credential.
_SECRET_FIELDS = (
    "token",
    "client-key-data",
    "password",
    "id-token",
    "refresh-token",
    "access-token",
    "client-secret",
    "secret",
)
_QUOTED_OR_PLAIN = (
    r"""(?:"(?P<dq>(?:[^"\\\n]|\\.)*)"|'(?P<sq>(?:[^'\n]|'')*)'|(?P<plain>[^\s"',}\]#][^\s,}\]]*))"""
)
_SECRET_FIELD = re.compile(
    rf"""(?m)(?:^|[\s{{,])["']?(?:{"|".join(re.escape(name) for name in _SECRET_FIELDS)})["']?\s*:[ \t]*"""
    + _QUOTED_OR_PLAIN
)
# `exec` credential plugins get `env: [{name: X, value: Y}]`; values of secret-looking names count.
_SECRET_NAME = (
    r"[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL)[A-Za-z0-9_]*"
)
_EXEC_ENV = (
    re.compile(
        rf"""(?is)(?<![\w-])["']?name["']?\s*:\s*["']?{_SECRET_NAME}["']?\s*[,\n]\s*["']?value["']?\s*:[ \t]*"""
        + _QUOTED_OR_PLAIN
    ),
    re.compile(
        rf"""(?is)(?<![\w-])["']?value["']?\s*:[ \t]*{_QUOTED_OR_PLAIN}\s*[,\n]\s*["']?name["']?\s*:\s*["']?{_SECRET_NAME}\b"""
    ),
)
_TOKEN_FILE = re.compile(r"""(?m)["']?tokenFile["']?\s*:[ \t]*""" + _QUOTED_OR_PLAIN)
# What `kubectl config view` writes instead of a secret: not a secret itself.
_PLACEHOLDERS = frozenset({"REDACTED", "DATA+OMITTED", "[REDACTED]", "null", "~", "''", '""'})
MIN_SECRET_LENGTH = 4


def secrets_in_kubeconfig(text: str) -> list[str]:
    """Credential values in a kubeconfig (YAML or JSON), in order of appearance, without repeats.

    Tolerant by design: a line scanner, not a YAML parser (none is installed), that errs towards
    taking too much (every value of a credential field, wherever it is) rather than too little.
    """
    found: list[str] = []
    for pattern in (_SECRET_FIELD, *_EXEC_ENV):
        for match in pattern.finditer(text):
            value = _scalar(match)
            if len(value) >= MIN_SECRET_LENGTH and value not in _PLACEHOLDERS and value not in found:
                found.append(value)
    return found


def kubeconfig_secrets(paths: Iterable[Path], environ: Mapping[str, str]) -> tuple[str, ...]:
    """Every secret in these kubeconfigs, in the token files they name, and the in-cluster token."""
    secrets: list[str] = []
    for path in paths:
        text = _read_small(path)
        if text is None:
            continue
        secrets += secrets_in_kubeconfig(text)
        for match in _TOKEN_FILE.finditer(text):
            token_file = Path(_scalar(match)).expanduser()
            if not token_file.is_absolute():
                token_file = path.parent / token_file
            token = (_read_small(token_file) or "").strip()
            if token:
                secrets.append(token)
    if environ.get("KUBERNETES_SERVICE_HOST"):
        token = (_read_small(IN_CLUSTER_TOKEN) or "").strip()
        if token:
            secrets.append(token)
    return tuple(dict.fromkeys(s for s in secrets if len(s) >= MIN_SECRET_LENGTH))


def _scalar(match: re.Match[str]) -> str:
    if match["dq"] is not None:
        return match["dq"].replace('\\"', '"').replace("\\\\", "\\")
    if match["sq"] is not None:
        return match["sq"].replace("''", "'")
    return match["plain"] or ""


def _read_small(path: Path) -> str | None:
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SECRET_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_SECRET_FILE_BYTES:
        data = data[:MAX_SECRET_FILE_BYTES]
    return data.decode("utf-8", "replace")
