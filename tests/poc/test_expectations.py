"""The installed SDK still behaves as poc/expected/<version>.json says, on both wires.

Upgrading openai-agents fails here, naming each wire, probe and observation that changed. To pin a
new version: run `python -m poc --json`, review the observations, and write
poc/expected/<version>.json with the stable ones only, one section per wire
(`{"wires": {"chat": {"probes": ...}, "responses": {"probes": ...}}}`; a file with a top-level
"probes" pins the chat wire alone).
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest

import poc
from poc.report import collect, pinned_wires

EXPECTED_DIR = Path(poc.__file__).resolve().parent / "expected"
INSTALLED = importlib.metadata.version("openai-agents")
EXPECTED_FILE = EXPECTED_DIR / f"{INSTALLED}.json"


def _expected() -> dict[str, dict[str, Any]]:
    if not EXPECTED_FILE.exists():
        return {}
    return pinned_wires(json.loads(EXPECTED_FILE.read_text(encoding="utf-8")))


EXPECTED = _expected()
PINNED = sorted((wire, probe) for wire, probes in EXPECTED.items() for probe in probes)


@pytest.fixture(scope="module")
def observed() -> dict[str, Any]:
    """Every probe's observations on every wire, run once against the installed SDK (~15 s)."""
    wires: dict[str, Any] = {wire: section["probes"] for wire, section in collect()["wires"].items()}
    return wires


def test_the_installed_sdk_version_has_pinned_expectations() -> None:
    pinned = sorted(path.stem for path in EXPECTED_DIR.glob("*.json"))
    assert EXPECTED_FILE.exists(), (
        f"openai-agents {INSTALLED} is installed but poc/expected/ pins {pinned}: run `python -m poc --json`, "
        f"review what changed and write poc/expected/{INSTALLED}.json before the SDK port relies on it"
    )


def test_both_wires_are_pinned() -> None:
    assert sorted(EXPECTED) == ["chat", "responses"], f"poc/expected/{INSTALLED}.json pins {sorted(EXPECTED)}"


@pytest.mark.parametrize(("wire", "probe"), PINNED)
def test_the_sdk_still_behaves_as_the_port_expects(wire: str, probe: str, observed: dict[str, Any]) -> None:
    result = observed.get(wire, {}).get(probe)
    assert result is not None, (
        f"probe {probe} no longer runs on {wire} but poc/expected/{INSTALLED}.json pins it"
    )
    observations = result["observations"]
    assert "error" not in observations, f"probe {probe} failed on {wire}: {observations['error']}"
    changed = [
        f"{wire}: {probe}.{key}: expected {value!r}, observed {observations.get(key, '<not observed>')!r}"
        for key, value in EXPECTED[wire][probe].items()
        if observations.get(key, "<not observed>") != value
    ]
    assert not changed, f"openai-agents {INSTALLED} changed behaviour the SDK port relies on:\n" + "\n".join(
        changed
    )


@pytest.mark.parametrize("wire", ["chat", "responses"])
def test_every_probe_is_pinned(wire: str, observed: dict[str, Any]) -> None:
    unpinned = sorted(set(observed[wire]) - set(EXPECTED.get(wire, {})))
    assert not unpinned, f"probes without {wire} expectations in poc/expected/{INSTALLED}.json: {unpinned}"


def test_a_single_wire_pinned_file_pins_the_chat_wire() -> None:
    older = {"openai-agents": "0.23.1", "probes": {"retries": {"max_retries_0_requests_sent": 1}}}
    assert pinned_wires(older) == {"chat": {"retries": {"max_retries_0_requests_sent": 1}}}
