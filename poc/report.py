"""Run the probes against the installed SDK and gather one report (what `--json` prints)."""

from __future__ import annotations

import importlib.metadata
import platform
from collections.abc import Sequence
from typing import Any

from poc.probe import ABSENT, Observations, Probe, judge, run_probe
from poc.probes import PROBES
from poc.scorecard import as_json, scorecard
from poc.scripted import ScriptedModels

PACKAGES = ("openai-agents", "openai", "mcp")


def installed_versions() -> dict[str, str]:
    """Versions of the SDK, the openai client, mcp and Python in this interpreter."""
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = ABSENT
    versions["python"] = platform.python_version()
    return versions


def collect(only: Sequence[str] = ()) -> dict[str, Any]:
    """Run the probes (all, or those named) and return versions, per-probe results and scorecard."""
    probes: dict[str, Any] = {}
    with ScriptedModels() as models:
        for probe in PROBES:
            if not only or probe.name in only:
                probes[probe.name] = _result(probe, run_probe(probe, models))
    return {
        "versions": installed_versions(),
        "probes": probes,
        "scorecard": as_json(scorecard(observations_of(probes))),
    }


def _result(probe: Probe, observations: Observations) -> dict[str, Any]:
    judgement = judge(probe, observations)
    return {
        "question": probe.question,
        "verdict": judgement.verdict,
        "headline": judgement.headline,
        "observations": observations,
    }


def observations_of(probes: dict[str, Any]) -> dict[str, Any]:
    """{probe: observations} from a report's "probes" section."""
    return {name: result["observations"] for name, result in probes.items()}
