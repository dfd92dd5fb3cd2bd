"""Run the probes against the installed SDK and gather one report (what `--json` prints).

A report holds one section per wire: `{"versions": ..., "wires": {"chat": {"probes", "scorecard"},
"responses": {...}}}`. `wire_sections` also reads the older single-wire shape (top-level "probes"
and "scorecard", Chat Completions only).
"""

from __future__ import annotations

import importlib.metadata
import platform
from collections.abc import Sequence
from typing import Any

from poc.probe import Observations, Probe, judge, run_probe
from poc.probes import PROBES
from poc.render import wire_sections
from poc.scorecard import as_json, scorecard
from poc.scripted import WIRES, ScriptedModels, Wire
from poc.words import ABSENT

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


def collect(only: Sequence[str] = (), wires: Sequence[Wire] = WIRES) -> dict[str, Any]:
    """Run the probes (all, or those named) on each wire; versions, and per wire the per-probe
    results and the scorecard."""
    sections: dict[str, Any] = {}
    for wire in wires:
        probes: dict[str, Any] = {}
        with ScriptedModels(wire) as models:
            for probe in PROBES:
                if not only or probe.name in only:
                    probes[probe.name] = _result(probe, run_probe(probe, models))
        sections[wire] = {"probes": probes, "scorecard": as_json(scorecard(observations_of(probes)))}
    return {"versions": installed_versions(), "wires": sections}


def _result(probe: Probe, observations: Observations) -> dict[str, Any]:
    judgement = judge(probe, observations)
    return {
        "question": probe.question,
        "expects": expects(probe),
        "verdict": judgement.verdict,
        "headline": judgement.headline,
        "observations": observations,
    }


def expects(probe: Probe) -> str:
    """What a probe's "ok" stands for, in words: its judge's "ok when ..." without those words."""
    doc = " ".join((probe.judge.__doc__ or "").split("\n\n")[0].split())
    return doc.removeprefix("ok when ").removesuffix(".").removesuffix("; informational")


def observations_of(probes: dict[str, Any]) -> dict[str, Any]:
    """{probe: observations} from a report's "probes" section."""
    return {name: result["observations"] for name, result in probes.items()}


def pinned_wires(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{wire: {probe: {observation: value}}} of a pinned file (poc/expected/<version>.json).

    The current shape pins each wire (`{"wires": {"chat": {"probes": ...}, "responses": {...}}}`);
    a file with a top-level "probes" (the older shape) pins the chat wire alone.
    """
    if "wires" in document:
        return {wire: dict(section.get("probes", {})) for wire, section in document["wires"].items()}
    return {"chat": dict(document.get("probes", {}))}


def pinned_report(document: dict[str, Any]) -> dict[str, Any]:
    """The report `collect` would give for a pinned file's observations (poc/expected/<version>.json),
    judged as a live run is, with this interpreter's versions: what `probe` prints for an SDK that
    observes exactly what is pinned."""
    sections: dict[str, Any] = {}
    for wire, observed in pinned_wires(document).items():
        probes = {
            probe.name: _result(probe, observed[probe.name]) for probe in PROBES if probe.name in observed
        }
        sections[wire] = {"probes": probes, "scorecard": as_json(scorecard(observed))}
    return {"versions": installed_versions(), "wires": sections}


__all__ = [
    "collect",
    "installed_versions",
    "observations_of",
    "pinned_report",
    "pinned_wires",
    "wire_sections",
]
