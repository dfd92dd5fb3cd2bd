"""Finding the real Kubernetes MCP servers on this machine, without running them.

Where each is found, first hit wins:
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
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from k8s_agent_harness.errors import ConfigError

KUBERNETES_MCP_SERVER = "kubernetes-mcp-server"
MCP_SERVER_KUBERNETES = "mcp-server-kubernetes"

INSTALL_HINT = (
    "install it with `bash .ci/install-k8s-mcp-servers.sh` (pinned, into ~/.cache/k8s-agent/npm) or "
    "`npm install -g {package}`, or point {variable} at it"
)


def cache_root(environ: Mapping[str, str]) -> Path:
    """`$K8S_AGENT_CACHE`, else `~/.cache/k8s-agent`."""
    if environ.get("K8S_AGENT_CACHE"):
        return Path(environ["K8S_AGENT_CACHE"])
    return Path(environ.get("HOME") or Path.home()) / ".cache" / "k8s-agent"


def npm_folder(environ: Mapping[str, str]) -> Path:
    """Where `.ci/install-k8s-mcp-servers.sh` installs the servers (its `--prefix`)."""
    if environ.get("K8S_MCP_NPM_DIR"):
        return Path(environ["K8S_MCP_NPM_DIR"])
    return cache_root(environ) / "npm"


def search_path(env: Mapping[str, str], environ: Mapping[str, str]) -> str:
    """The PATH the server will get: the one given for it, else this process's."""
    return env.get("PATH") or environ.get("PATH") or os.defpath


def kms_platform_package() -> str | None:
    """The npm package holding kubernetes-mcp-server's binary for this machine, if one is published."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform)
    machine = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower()
    )
    return f"{KUBERNETES_MCP_SERVER}-{system}-{machine}" if system and machine else None


def find_kubernetes_mcp_server(environ: Mapping[str, str], path: str) -> Path:
    """The kubernetes-mcp-server binary: the override, the install script's folder, then PATH."""
    override = environ.get("KUBERNETES_MCP_SERVER_BIN")
    if override:
        return _executable(Path(override), "KUBERNETES_MCP_SERVER_BIN")
    package = kms_platform_package()
    if package is not None:
        binary = _kms_binary(npm_folder(environ) / "node_modules", package)
        if binary is not None:
            return binary
    found = shutil.which(KUBERNETES_MCP_SERVER, path=path)
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


def find_mcp_server_kubernetes(environ: Mapping[str, str], path: str) -> Path:
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
    found = shutil.which(MCP_SERVER_KUBERNETES, path=path)
    if found is not None:
        return Path(found).resolve()
    raise ConfigError(
        f"{MCP_SERVER_KUBERNETES} not found: "
        + INSTALL_HINT.format(package=MCP_SERVER_KUBERNETES, variable="MCP_SERVER_KUBERNETES_JS")
    )


def version_of(program: Path, package: str) -> str:
    """` 0.0.67` from the package.json of the npm package holding the program, else ''."""
    try:
        manifest = json.loads((program.parent.parent / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(manifest, dict) or not str(manifest.get("name", "")).startswith(package):
        return ""
    return f" {manifest.get('version')}"


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
