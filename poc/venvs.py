"""Build (and cache) one virtual environment per openai-agents version, with an openai that works.

Layout under the cache folder (`.../sdk-venvs/`):

    src/                       symlinks to this repo's poc/ and k8s_agent_scripted_llm/ (the child's PYTHONPATH)
    openai-compat.json         {python: {sdk version: {openai, found_by, attempts}}}: the findings
    py3.11/openai-agents-X/    the venv; `k8s-agent-env.json` inside marks it ready

An environment is ready when `python -m poc --json --only tool_choice` (a trivial probe) runs in it.
When it does not with the openai pip picked, older openai releases are tried (see compat.py).
"""

from __future__ import annotations

import json
import platform
import re
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import k8s_agent_scripted_llm
import poc
from poc.compat import allows, newest_working, parse_pip_index
from poc.steps import Progress, run_step
from poc.words import one_line

MARKER = "k8s-agent-env.json"
# "openai<3,>=2.45.0" but not "openai-agents..." (the character after the name starts a specifier).
_OPENAI_REQUIREMENT = re.compile(r"^openai\s*\(?\s*([<>=!~][^;)]*)")
COMPAT_FILE = "openai-compat.json"
SMOKE_PROBE = "tool_choice"
# Variables that would leak this interpreter (or a real API key) into the child.
_DROPPED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID")


@dataclass(frozen=True)
class BuildSettings:
    """Where to build, with which interpreter, from which environment."""

    cache_dir: Path
    python: Path
    environ: Mapping[str, str]
    rebuild: bool = False

    @property
    def python_tag(self) -> str:
        """py3.11: venvs and findings are per Python minor version."""
        return "py" + ".".join(platform.python_version_tuple()[:2])


@dataclass
class SdkEnv:
    """One SDK version's environment: ready (with the openai it works with) or why not."""

    sdk: str
    path: Path
    status: str = "ready"  # or "install failed", "no compatible openai"
    openai: str | None = None
    reason: str = ""
    seconds: float = 0.0
    cached: bool = False
    found_by: str = ""
    attempts: list[str] = field(default_factory=list)

    @property
    def python(self) -> Path:
        """The venv's interpreter."""
        return self.path / "bin" / "python"


def build(sdk: str, settings: BuildSettings, progress: Progress) -> SdkEnv:
    """A ready environment for `sdk`, from the cache or built now; never raises for a bad version."""
    started = time.monotonic()
    env = SdkEnv(sdk, settings.cache_dir / settings.python_tag / f"openai-agents-{sdk}")
    label = f"openai-agents {sdk}"
    marker = _read_json(env.path / MARKER)
    if not settings.rebuild and marker.get("sdk") == sdk and env.python.exists():
        env.openai, env.found_by, env.cached = marker.get("openai"), marker.get("found_by", ""), True
        env.attempts = list(marker.get("attempts", []))
        env.seconds = float(marker.get("build_seconds", 0.0))
        progress.say(label, f"cached venv, openai {env.openai} ({env.path})")
        return env
    finding = {} if settings.rebuild else _findings(settings).get(sdk, {})
    if finding.get("status") in ("install failed", "no compatible openai"):
        env.status, env.attempts, env.cached = finding["status"], list(finding.get("attempts", [])), True
        env.reason = f"{finding.get('reason', '')} (cached; --rebuild to retry)"
        progress.say(label, f"{env.status}: {env.reason}")
        return env
    _build(env, label, settings, progress, finding.get("openai"))
    env.seconds = time.monotonic() - started
    if env.status != "ready":  # a venv that cannot run the probes is no cache: it goes
        shutil.rmtree(env.path, ignore_errors=True)
    if env.status == "ready":
        _write_json(
            env.path / MARKER,
            {
                "sdk": sdk,
                "openai": env.openai,
                "found_by": env.found_by,
                "attempts": env.attempts,
                "build_seconds": round(env.seconds, 1),
            },
        )
    _remember(settings, env)
    progress.say(label, f"{env.status} in {env.seconds:.1f}s" + (f": {env.reason}" if env.reason else ""))
    return env


def child_environ(settings: BuildSettings) -> dict[str, str]:
    """The environment of a probe run in a venv: this repo's poc/ and k8s_agent_scripted_llm/ only, no keys."""
    environ = {k: v for k, v in settings.environ.items() if k not in _DROPPED}
    environ.update(
        PYTHONPATH=str(source_dir(settings)),
        PYTHONNOUSERSITE="1",
        PYTHONDONTWRITEBYTECODE="1",  # the sources are this repo's, through symlinks
        OPENAI_AGENTS_DISABLE_TRACING="1",
    )
    return environ


def source_dir(settings: BuildSettings) -> Path:
    """A folder holding only poc/ and k8s_agent_scripted_llm/ (symlinks), so the child imports nothing else
    of this repo and keeps its own agents/openai."""
    folder = settings.cache_dir / "src"
    folder.mkdir(parents=True, exist_ok=True)
    for package in (poc, k8s_agent_scripted_llm):
        target = Path(package.__file__ or "").resolve().parent
        link = folder / package.__name__
        if link.is_symlink() and link.resolve() == target:
            continue
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target, target_is_directory=True)
    return folder


def _build(env: SdkEnv, label: str, settings: BuildSettings, progress: Progress, known: str | None) -> None:
    """Create the venv and install the SDK with an openai it works with (searching if needed)."""
    builder = _Builder(env, label, settings, progress)
    if not builder.create_venv():
        return
    if known and builder.attempt(known) is None:
        env.found_by = "cached finding"
        return
    failure = builder.attempt(None)
    if failure is None:
        env.found_by = "pip's choice"
        return
    if failure.startswith(_INSTALL_FAILED):
        env.status, env.reason = "install failed", failure.removeprefix(_INSTALL_FAILED)
        return
    picked = builder.installed("openai") or "9999"
    progress.say(label, f"openai {picked} fails; searching older openai releases")
    found = newest_working(builder.openai_candidates(), picked, lambda v: builder.attempt(v) is None)
    if found is None:
        env.status = "no compatible openai"
        env.reason = (
            f"openai {picked}: {failure}; none of {len(env.attempts) - 1} older releases tried worked"
        )
        return
    env.found_by = f"probing ({len(env.attempts)} {'attempt' if len(env.attempts) == 1 else 'attempts'})"


_INSTALL_FAILED = "install failed: "


class _Builder:
    """The steps that build one SDK version's venv, sharing its label, settings and progress."""

    def __init__(self, env: SdkEnv, label: str, settings: BuildSettings, progress: Progress) -> None:
        self.env, self.label, self.settings, self.progress = env, label, settings, progress
        self.environ = {k: v for k, v in settings.environ.items() if k not in _DROPPED}

    def create_venv(self) -> bool:
        """A fresh venv at env.path; False (with the reason recorded) when that fails."""
        shutil.rmtree(self.env.path, ignore_errors=True)
        self.env.path.parent.mkdir(parents=True, exist_ok=True)
        command: list[str | Path] = [self.settings.python, "-m", "venv", self.env.path]
        created = run_step(self.progress, self.label, "create venv", command, env=self.environ, timeout=180)
        if not created.ok:
            self.env.status, self.env.reason = "install failed", f"venv: {created.reason()}"
        return created.ok

    def attempt(self, openai: str | None) -> str | None:
        """Install the SDK (with this openai, else pip's choice) and smoke-test it: None when it
        works, else why not. Every attempt is recorded in env.attempts."""
        packages = [f"openai-agents=={self.env.sdk}"] + ([f"openai=={openai}"] if openai else [])
        command: list[str | Path] = [self.env.python, "-m", "pip", "install", "-q", *packages]
        installed = run_step(
            self.progress, self.label, "pip install " + " ".join(packages), command, env=self.environ
        )
        if not installed.ok:
            reason = _INSTALL_FAILED + installed.reason()
            self.env.attempts.append(f"{openai or 'pip default'}: {reason}")
            return reason
        version = self.installed("openai")
        failure = _smoke(self.env, self.label, self.settings, self.progress)
        self.env.attempts.append(f"{version}: {failure or 'ok'}")
        self.progress.say(
            self.label, f"openai {version}: " + ("works" if failure is None else f"fails: {failure}")
        )
        if failure is None:
            self.env.openai = version
        return failure

    def installed(self, package: str) -> str | None:
        """The version of `package` in the venv."""
        code = f"import importlib.metadata as m; print(m.version({package!r}))"
        return _quiet_run(self.env, code, self.environ).strip() or None

    def openai_candidates(self) -> list[str]:
        """Every openai release the registry lists that the SDK's declared range admits."""
        code = "import importlib.metadata as m; print('\\n'.join(m.requires('openai-agents') or []))"
        requirements = _quiet_run(self.env, code, self.environ).splitlines()
        specifier = next(
            (m[1].strip() for line in requirements if (m := _OPENAI_REQUIREMENT.match(line))), ""
        )
        command: list[str | Path] = [self.env.python, "-m", "pip", "index", "versions", "openai"]
        listing = run_step(
            self.progress, self.label, "pip index versions openai", command, env=self.environ, timeout=120
        )
        return [version for version in parse_pip_index(listing.stdout) if allows(specifier, version)]


def _smoke(env: SdkEnv, label: str, settings: BuildSettings, progress: Progress) -> str | None:
    """None when a trivial probe runs in the venv, else why not (one line)."""
    result = run_step(
        progress,
        label,
        f"smoke test ({SMOKE_PROBE} probe)",
        [env.python, "-m", "poc", "--json", "--only", SMOKE_PROBE],
        env=child_environ(settings),
        cwd=source_dir(settings),
        timeout=180,
    )
    if not result.ok:
        return result.reason()
    try:
        probe = json.loads(result.stdout)["wires"]["chat"]["probes"][SMOKE_PROBE]
    except (ValueError, KeyError) as error:
        return f"unreadable output: {error}"
    return None if probe["verdict"] != "error" else one_line(str(probe["observations"]["error"]), 200)


def _quiet_run(env: SdkEnv, code: str, environ: Mapping[str, str]) -> str:
    try:
        done = subprocess.run(
            [str(env.python), "-c", code], env=dict(environ), capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout if done.returncode == 0 else ""


def _findings(settings: BuildSettings) -> dict[str, Any]:
    findings: dict[str, Any] = _read_json(settings.cache_dir / COMPAT_FILE).get(settings.python_tag, {})
    return findings


def _remember(settings: BuildSettings, env: SdkEnv) -> None:
    """Record which openai this SDK version works with (or that none did), for the next build."""
    path = settings.cache_dir / COMPAT_FILE
    everything = _read_json(path)
    everything.setdefault(settings.python_tag, {})[env.sdk] = {
        "status": env.status,
        "openai": env.openai,
        "found_by": env.found_by,
        "reason": env.reason,
        "attempts": env.attempts,
    }
    _write_json(path, everything)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)
