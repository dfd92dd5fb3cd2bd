"""`k8s-agent compare` as a user runs it: listing, selecting, fixtures, reports, and a repeated question."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from k8s_agent.cli import main
from k8s_agent.scenarios import QUESTION, SCENARIOS
from k8s_agent_scripted_llm import ScriptedModelServer, offline_model
from tests.processes import HANG_SECONDS
from tests.wire import RateLimitedFirst

DEFAULT_FIXTURE = Path(__file__).resolve().parents[2] / "k8s_agent_mock_cluster" / "fixtures" / "default.json"


def test_compare_list_shows_every_scenario_in_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "list"]) == 0

    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(SCENARIOS)
    assert "script, 4 turns, max-steps 3" in next(line for line in lines if line.startswith("c7-step-budget"))
    assert "offline model" in lines[-1]


def test_compare_list_aligns_its_columns_whatever_their_widths(tmp_path: Path) -> None:
    from tests.processes import k8s_agent

    fixture = tmp_path / "a-cluster-fixture-with-a-name-longer-than-any-scenario-s.json"
    shutil.copyfile(DEFAULT_FIXTURE, fixture)

    done = k8s_agent("compare", "list", "--cluster", str(fixture), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(SCENARIOS) + 1
    # Three columns, apart by two spaces or more: each starts at the same place on every line.
    starts = {tuple(gap.end() for gap in re.finditer(r" {2,}", line)) for line in lines}
    assert len(starts) == 1 and len(next(iter(starts))) == 2, lines
    assert any("report-format" in line for line in lines)  # the rows that were misaligned


def test_a_cluster_fixture_becomes_a_scenario_of_the_offline_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = tmp_path / "staging.json"
    shutil.copyfile(DEFAULT_FIXTURE, fixture)

    assert main(["compare", "list", "--cluster", str(fixture)]) == 0

    last = capsys.readouterr().out.splitlines()[-1]
    assert last.split()[0] == "cluster-staging"
    assert "offline model" in last and "staging.json" in last


def test_compare_runs_the_selected_scenarios_and_writes_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = tmp_path / "staging.json"
    shutil.copyfile(DEFAULT_FIXTURE, fixture)
    out = tmp_path / "report" / "compare.json"
    for age, name in enumerate(["compare-20260101T000000Z-older", "compare-20250101T000000Z-oldest"]):
        (tmp_path / "traces" / name).mkdir(parents=True)
        os.utime(tmp_path / "traces" / name, (1_700_000_000 - age * 60, 1_700_000_000 - age * 60))

    code = main(
        [
            "compare",
            "--keep-traces",
            "2",
            "--scenario",
            "c6-unknown-tool",
            "--scenario",
            "cluster-staging",
            "--cluster",
            str(fixture),
            "--out",
            str(out),
            "--trace-dir",
            str(tmp_path / "traces"),
        ]
    )

    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [row["name"] for row in report["rows"]] == ["c6-unknown-tool", "cluster-staging"]
    cluster = report["rows"][1]
    assert cluster["cluster"] == str(fixture) and cluster["model"] == "offline"
    assert cluster["runs"]["sdk"]["tool_calls_executed"] == 19 and cluster["answers_identical"] is True
    # stdout still gets the table, stderr the progress
    assert "| c6-unknown-tool | ✓ / ✓ |" in captured.out
    assert "[4/4]" in captured.err and f"report written to {out}" in captured.err
    runs = tmp_path.glob("traces/compare-*/[!w]*/*/*.jsonl")  # not warm-up/
    assert sorted(path.name == "calls.jsonl" for path in runs) == [False] * 4 + [True] * 4  # trace, call log
    kept = sorted(path.name for path in (tmp_path / "traces").glob("compare-*"))
    assert len(kept) == 2 and kept[0] == "compare-20260101T000000Z-older"  # --keep-traces: the newest two


def test_compare_can_ask_both_sides_for_streamed_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "compare.json"
    argv = [
        "compare",
        "--stream",
        "yes",
        "--scenario",
        "c10-mixed-round",
        "--format",
        "json",
        "--out",
        str(out),
    ]

    code = main([*argv, "--trace-dir", str(tmp_path / "traces")])

    assert code == 0, capsys.readouterr().err
    (row,) = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert row["name"] == "c10-mixed-round" and row["answers_identical"] is True
    traces = sorted(tmp_path.glob("traces/compare-*/c10-mixed-round/*/2*.jsonl"))
    assert len(traces) == 2
    assert all(json.loads(path.read_text().splitlines()[0])["stream"] is True for path in traces)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scenario", "c99"], "unknown scenario c99"),
        (["--impl", "sdk"], "compare always runs two sides, both implementations by default: drop --impl"),
        (["--model", "gpt-4o"], "--model needs --question"),
        (["--repeat", "3"], "--repeat needs --question"),
        (["--question", "Q", "--repeat", "0"], "--repeat must be at least 1"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--cluster", "missing.json"], "cluster fixture not found"),
    ],
)
def test_compare_rejects_bad_input_in_one_line_with_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *argv]) == 2

    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1


def empty_env_file(folder: Path) -> Path:
    """An env file with no settings, so that no .env of the folder the tests run in is read."""
    path = folder / "empty.env"
    path.write_text("")
    return path


@pytest.mark.parametrize(
    "transport",
    [(), ("--mcp-transport", "streamable-http")],
    ids=["a-server-per-run", "one-shared-http-server"],
)
def test_a_repeated_question_reports_the_median_and_range_of_each_metric(
    transport: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "repeat.json"
    # A real endpoint as far as the agents can tell: an OpenAI-compatible server on loopback.
    with ScriptedModelServer(responder=offline_model, model="playbook") as endpoint:
        code = main(
            [
                "compare",
                "--question",
                QUESTION,
                "--repeat",
                "2",
                "--base-url",
                endpoint.url,
                "--model",
                "playbook",
                "--api-key",
                "sk-test-compare-000",
                "--env-file",
                str(empty_env_file(tmp_path)),
                "--trace-dir",
                str(tmp_path / "traces"),
                "--out",
                str(out),
                "--quiet",
                *transport,
            ]
        )
        assert len(endpoint.requests) == 2 * 2 * 4  # two rounds, two implementations, four requests each

    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.err == ""
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["mode"] == "repeat" and report["repeat"] == 2 and report["question"] == QUESTION
    assert [row["name"] for row in report["rows"]] == ["round 1", "round 2"]
    assert all(row["model"] == "playbook" and row["deterministic"] is False for row in report["rows"])
    for impl in ("handwritten", "sdk"):
        summary = report["summary"][impl]
        assert summary["runs"] == 2 and summary["report"] == 2 and summary["invariants_held"] == 2
        assert summary["model_requests"] == {"median": 4, "min": 4, "max": 4}
        assert summary["tool_calls_executed"] == {"median": 19, "min": 19, "max": 19}
        wall = summary["wall_seconds"]
        assert 0 < wall["min"] <= wall["median"] <= wall["max"]
        assert summary["distinct_answers"] == 1
        for row in report["rows"]:
            assert row["runs"][impl]["server_calls"] == 19  # the mock cluster's call log (this run's lines)
    assert report["summary"]["rounds_with_identical_answers"] == 2
    assert "| model requests | 4 [4-4] | 4 [4-4] |" in captured.out
    assert "sk-test-compare-000" not in out.read_text(encoding="utf-8")


def test_a_429_pauses_every_run_of_a_repeated_question_and_no_run_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    limited = RateLimitedFirst(2)

    with ScriptedModelServer(responder=limited, model="playbook") as endpoint:
        code = main(
            [
                "compare", "--question", QUESTION, "--repeat", "2", "--jobs", "4", "--base-url", endpoint.url,
                "--model", "playbook", "--api-key", "sk-test-compare-000", "--max-retries", "0",
                "--env-file", str(empty_env_file(tmp_path)), "--trace-dir", str(tmp_path / "traces"),
                "--format", "json", "--out", str(tmp_path / "r.json"), "--quiet",
            ]
        )  # fmt: skip

    assert code == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    for impl in ("handwritten", "sdk"):
        assert report["summary"][impl]["report"] == 2 and report["summary"][impl]["invariants_held"] == 2
    assert limited.seen == 2 + 2 * 2 * 4  # the two refused, then every run's four


def test_registering_compare_and_trace_imports_nothing_heavy() -> None:
    """The CLI imports these modules at start-up: beyond the standard library they add no module
    but themselves, and neither the CLI nor they import the SDK, openai or mcp."""
    script = (
        "import argparse, sys\n"
        "import k8s_agent.cli\n"
        "before = set(sys.modules)\n"
        "import k8s_agent.compare, k8s_agent.trace_tools\n"
        "commands = argparse.ArgumentParser().add_subparsers()\n"
        "k8s_agent.compare.register(commands)\n"
        "k8s_agent.trace_tools.register(commands)\n"
        "added = {m for m in set(sys.modules) - before if m.split('.')[0] not in sys.stdlib_module_names}\n"
        "print(sorted(added), any(m in sys.modules for m in ('agents', 'openai', 'mcp')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_SECONDS, check=False
    )

    assert done.returncode == 0, done.stderr
    # k8s_agent.outputs (--format and --out, shared with contract and eval, which the CLI registers too)
    assert done.stdout.strip() == "['k8s_agent.compare', 'k8s_agent.outputs', 'k8s_agent.trace_tools'] False"
