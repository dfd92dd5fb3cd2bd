"""`--versions`: build an environment per SDK version, probe each in a subprocess, compare them."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from poc.compat import release
from poc.render import (
    WIRE_TITLES,
    differing_observations,
    scorecard_matrix,
    table,
    version_matrix,
    wire_matrix,
    wire_view,
)
from poc.steps import Progress, run_step
from poc.venvs import BuildSettings, SdkEnv, build, child_environ, source_dir

PROBE_RUN_TIMEOUT_SECONDS = 300.0


@dataclass(frozen=True)
class MatrixConfig:
    """What `probe --versions` was asked to do (read from flags and the environment at the entry point)."""

    versions: tuple[str, ...]
    cache_dir: Path
    environ: dict[str, str]
    rebuild: bool = False
    quiet: bool = False
    python: Path | None = None
    """The interpreter the venvs are made from (default: this one)."""


def run_matrix(config: MatrixConfig, as_json: bool = False) -> int:
    """Build, probe and print every version; a version that fails is a column saying why."""
    progress = Progress(config.quiet)
    settings = BuildSettings(
        config.cache_dir, config.python or Path(sys.executable), config.environ, config.rebuild
    )
    columns = [_column(version, settings, progress) for version in _ordered(config.versions)]
    if as_json:
        print(json.dumps({"columns": columns}, indent=2, ensure_ascii=False))
    else:
        print(render(columns))
    failed = [column["label"] for column in columns if column["status"] != "ok"]
    if failed:
        progress.say(
            "probe", f"not probed: {', '.join(failed)} (their columns say why); exit {EXIT_NOT_PROBED}"
        )
        return EXIT_NOT_PROBED
    return 0


EXIT_NOT_PROBED = 5
"""Some version could not be built or probed: the matrix is printed, its column says why."""


def render(columns: list[dict[str, Any]]) -> str:
    """Per wire: the matrix, the observations that differ between versions and the scorecards;
    then the behaviour that differs between the wires per version, and the builds, as text."""
    parts: list[str] = []
    for wire, title in WIRE_TITLES.items():
        view = wire_view(columns, wire)
        parts += [
            f"probe verdicts per openai-agents version: {wire} wire ({title})",
            version_matrix(view),
            f"observations that differ between versions: {wire} wire",
            differing_observations(view),
        ]
    parts += ["behaviour that differs between the wires, per version", wire_matrix(columns)]
    for wire in WIRE_TITLES:
        parts += [
            f"migration scorecard per version: {wire} wire (cleanly / redesign / NO = does not move)",
            scorecard_matrix(wire_view(columns, wire)),
        ]
    parts += ["environments", _builds(columns)]
    return "\n\n".join(parts)


def _column(version: str, settings: BuildSettings, progress: Progress) -> dict[str, Any]:
    env = build(version, settings, progress)
    column: dict[str, Any] = {
        "label": version,
        "openai": env.openai,
        "status": env.status,
        "reason": env.reason,
        "found_by": env.found_by,
        "attempts": env.attempts,
        "cached": env.cached,
        "build_seconds": round(env.seconds, 1),
        "report": None,
    }
    if env.status == "ready":
        report, reason, seconds = _probe(env, settings, progress)
        column.update(report=report, run_seconds=round(seconds, 1), status="ok" if report else "run failed")
        if not report:
            column["reason"] = reason
    return column


def _probe(
    env: SdkEnv, settings: BuildSettings, progress: Progress
) -> tuple[dict[str, Any] | None, str, float]:
    """Run every probe in the venv: (report, "", seconds) or (None, why, seconds)."""
    result = run_step(
        progress,
        f"openai-agents {env.sdk}",
        "run probes",
        [env.python, "-m", "poc", "--json"],
        env=child_environ(settings),
        cwd=source_dir(settings),
        timeout=PROBE_RUN_TIMEOUT_SECONDS,
    )
    if not result.ok:
        return None, result.reason(), result.seconds
    try:
        report: dict[str, Any] = json.loads(result.stdout)
    except ValueError as error:
        return None, f"output is not JSON: {error}", result.seconds
    return report, "", result.seconds


def _builds(columns: list[dict[str, Any]]) -> str:
    rows = []
    for column in columns:
        build_time = f"{column['build_seconds']}s" + (" (cached)" if column["cached"] else "")
        rows.append(
            [
                column["label"],
                column["status"],
                column["openai"] or "-",
                column["found_by"] or "-",
                build_time,
                f"{column.get('run_seconds', '-')}s" if column.get("run_seconds") is not None else "-",
                column["reason"] or "",
            ]
        )
    return table(
        ("openai-agents", "status", "openai", "openai found by", "build", "probes", "reason"),
        rows,
        (14, 22, 10, 24, 16, 8, 160),
    )


def _ordered(versions: tuple[str, ...]) -> list[str]:
    """Oldest first; duplicates dropped; non-release strings last (pip will say what is wrong)."""
    unique = list(dict.fromkeys(versions))
    return sorted(unique, key=lambda v: (release(v) is None, release(v) or ()))
