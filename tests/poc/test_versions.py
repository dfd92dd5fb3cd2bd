"""`probe --versions`: builds a venv per SDK version from the registry. Run by hand, not in CI:

    K8S_AGENT_NETWORK_TESTS=1 python -m pytest tests/poc/test_versions.py -m network

It needs the package registry and a few minutes (pip's cache makes later runs faster).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import poc
from poc.report import pinned_wires

EXPECTED = Path(poc.__file__).resolve().parent / "expected" / "0.24.0.json"

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(
        os.environ.get("K8S_AGENT_NETWORK_TESTS") != "1",
        reason="builds venvs from the package registry: set K8S_AGENT_NETWORK_TESTS=1",
    ),
]


def test_versions_builds_each_sdk_on_both_wires_and_reports_an_uninstallable_one(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "poc",
            "--json",
            "--cache-dir",
            str(tmp_path),
            "--versions",
            "0.18.3",
            "0.24.0",
            "0.0.999",
        ],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )

    assert done.returncode == 5, done.stderr[-3000:]  # one version could not be probed
    columns = {column["label"]: column for column in json.loads(done.stdout)["columns"]}
    assert columns["0.0.999"]["status"] == "install failed" and columns["0.0.999"]["reason"]
    assert not list(tmp_path.glob("sdk-venvs/*/openai-agents-0.0.999"))  # its venv went
    for version in ("0.18.3", "0.24.0"):
        column = columns[version]
        assert column["status"] == "ok", column
        assert column["openai"], column
        assert column["report"]["versions"]["openai-agents"] == version
        assert set(column["report"]["wires"]) == {"chat", "responses"}
        for wire, section in column["report"]["wires"].items():
            failed = {name: r["headline"] for name, r in section["probes"].items() if r["verdict"] == "error"}
            assert not failed, f"{version} {wire}: {failed}"
    # The 0.24.0 column observes, on each wire, what poc/expected/0.24.0.json pins.
    wires = columns["0.24.0"]["report"]["wires"]
    for wire, probes in pinned_wires(json.loads(EXPECTED.read_text(encoding="utf-8"))).items():
        for probe, pinned in probes.items():
            observed = wires[wire]["probes"][probe]["observations"]
            changed = {key: observed.get(key) for key, value in pinned.items() if observed.get(key) != value}
            assert not changed, f"0.24.0 {wire} {probe}: {changed}"
    assert "[openai-agents 0.18.3] pip install openai-agents==0.18.3" in done.stderr
    findings = json.loads((tmp_path / "sdk-venvs" / "openai-compat.json").read_text())
    assert set(next(iter(findings.values()))) == {"0.18.3", "0.24.0", "0.0.999"}
