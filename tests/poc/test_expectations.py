"""The installed SDK still behaves as poc/expected/<version>.json says: the port relies on it.

Upgrading openai-agents fails here, naming each probe and observation that changed. To pin a new
version: run `python -m poc --json`, review the observations, and write poc/expected/<version>.json
with the stable ones only.
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest

import poc
from poc.report import collect

EXPECTED_DIR = Path(poc.__file__).resolve().parent / "expected"
INSTALLED = importlib.metadata.version("openai-agents")
EXPECTED_FILE = EXPECTED_DIR / f"{INSTALLED}.json"


def _expected() -> dict[str, Any]:
    if not EXPECTED_FILE.exists():
        return {}
    expected: dict[str, Any] = json.loads(EXPECTED_FILE.read_text(encoding="utf-8"))["probes"]
    return expected


EXPECTED = _expected()


@pytest.fixture(scope="module")
def observed() -> dict[str, Any]:
    """Every probe's observations, run once against the installed SDK (a few seconds)."""
    probes: dict[str, Any] = collect()["probes"]
    return probes


def test_the_installed_sdk_version_has_pinned_expectations() -> None:
    pinned = sorted(path.stem for path in EXPECTED_DIR.glob("*.json"))
    assert EXPECTED_FILE.exists(), (
        f"openai-agents {INSTALLED} is installed but poc/expected/ pins {pinned}: run `python -m poc --json`, "
        f"review what changed and write poc/expected/{INSTALLED}.json before the SDK port relies on it"
    )


@pytest.mark.parametrize("probe", sorted(EXPECTED))
def test_the_sdk_still_behaves_as_the_port_expects(probe: str, observed: dict[str, Any]) -> None:
    result = observed.get(probe)
    assert result is not None, f"probe {probe} no longer exists but poc/expected/{INSTALLED}.json pins it"
    observations = result["observations"]
    assert "error" not in observations, f"probe {probe} failed: {observations['error']}"
    changed = [
        f"{probe}.{key}: expected {value!r}, observed {observations.get(key, '<not observed>')!r}"
        for key, value in EXPECTED[probe].items()
        if observations.get(key, "<not observed>") != value
    ]
    assert not changed, f"openai-agents {INSTALLED} changed behaviour the SDK port relies on:\n" + "\n".join(
        changed
    )


def test_every_probe_is_pinned(observed: dict[str, Any]) -> None:
    unpinned = sorted(set(observed) - set(EXPECTED))
    assert not unpinned, f"probes without expectations in poc/expected/{INSTALLED}.json: {unpinned}"
