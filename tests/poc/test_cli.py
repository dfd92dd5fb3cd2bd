"""`python -m poc` / `k8s-agent probe`: the table, the JSON, and a CLI that starts without the SDK."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from poc import cli
from tests.processes import HANG_SECONDS


def run_poc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "poc", *args],
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        check=False,
    )


def test_json_names_the_versions_and_each_probe_observation() -> None:
    done = run_poc("--json", "--only", "features", "tool_choice")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report["versions"]) == {"openai-agents", "openai", "mcp", "python"}
    assert set(report["wires"]) == {"chat", "responses"}
    for section in report["wires"].values():
        assert set(section["probes"]) == {"features", "tool_choice"}
        assert section["probes"]["tool_choice"]["observations"]["default_request_1"] == "required"
        assert {row["id"] for row in section["scorecard"]} >= {"C1", "C10"}


def test_the_table_shows_each_wire_and_whether_they_differ() -> None:
    done = run_poc("--only", "tool_choice")

    assert done.returncode == 0, done.stderr
    header, _, row = done.stdout.split("\n\n")[1].splitlines()[:3]
    assert header.split() == [
        "probe",
        "chat:",
        "observed",
        "chat",
        "responses:",
        "observed",
        "responses",
        "wires",
    ]
    assert row.split()[0] == "tool_choice" and row.split()[-1] == "same"
    assert "(every probed behaviour is the same on both wires)" in done.stdout


def test_one_wire_prints_the_single_wire_table() -> None:
    done = run_poc("--only", "tool_choice", "--wire", "responses")

    assert done.returncode == 0, done.stderr
    title, probes = done.stdout.split("\n\n")[:2]
    assert title.endswith("wire responses")
    header, _, row = probes.splitlines()[:3]
    assert header.split() == ["probe", "observed", "verdict"]
    assert row.split()[0] == "tool_choice" and row.split()[-1] == "ok"


def test_an_unknown_probe_name_is_a_usage_error() -> None:
    done = run_poc("--only", "no_such_probe")

    assert done.returncode == 2
    assert "unknown probe no_such_probe; known: " in done.stderr


def test_importing_the_cli_does_not_import_the_sdk() -> None:
    script = "import sys, poc.cli, poc.scorecard, poc.matrix; print('agents' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_SECONDS, check=False
    )

    assert done.stdout.strip() == "False", done.stderr


def test_register_adds_the_probe_command_to_a_parser() -> None:
    parser = argparse.ArgumentParser(prog="k8s-agent")
    cli.register(parser.add_subparsers(dest="command"))

    args = parser.parse_args(["probe", "--versions", "0.18.3", "0.24.0", "--json"])

    assert args.handler is cli.run
    assert args.versions == ["0.18.3", "0.24.0"] and args.json


def test_run_prints_the_report_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)

    assert cli.run(parser.parse_args(["--json", "--only", "features"])) == 0
    wires = json.loads(capsys.readouterr().out)["wires"]
    assert {wire: wires[wire]["probes"]["features"]["verdict"] for wire in wires} == {
        "chat": "ok",
        "responses": "ok",
    }
