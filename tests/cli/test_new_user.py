"""What a new user meets in the first hour, observed at the boundary: the words of an error and the
advice it gives, what `--stream` shows, which trace `last` is, the probe table, counts in words,
what `--out` and stdout get, the ETA, the durations printed, and replay's progress."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from k8s_agent_harness.vocabulary import Impl
from tests.cli.test_ask import DEFAULT_QUESTION, ask, traces
from tests.conftest import read_jsonl
from tests.processes import k8s_agent


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`k8s-agent ARGS` with a clean environment and traces in `cwd/traces`."""
    return k8s_agent(*args, cwd=cwd, env={"K8S_AGENT_TRACE_DIR": "traces", **(env or {})})


# -- 1. an unknown flag is named as itself ------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "first"),
    [
        (["--max-step", "3", "hi"], "error: unrecognized arguments: --max-step; did you mean --max-steps?"),
        (["hi", "--max-step", "3"], "error: unrecognized arguments: --max-step; did you mean --max-steps?"),
        (["--max-step=3", "hi"], "error: unrecognized arguments: --max-step=3; did you mean --max-steps?"),
        (["--bogus"], "error: unrecognized arguments: --bogus"),  # no question: the flag is still the error
    ],
)
def test_an_unknown_flag_is_reported_as_itself_whatever_its_value_was_taken_for(
    args: list[str], first: str, tmp_path: Path
) -> None:
    done = cli("ask", *args, cwd=tmp_path)

    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [first, "(see 'k8s-agent ask --help')"]
    assert not (tmp_path / "traces").exists()


# -- 2. a misspelt choice names the closest, whatever set it --------------------------------------------


@pytest.mark.parametrize(
    ("args", "env", "dotenv", "said"),
    [
        (["--impl", "sdkk"], {}, "", "unknown implementation 'sdkk': choose one of handwritten, sdk; did you mean 'sdk'?"),
        (["--api", "respones"], {}, "", "; did you mean 'responses'?"),
        ([], {"K8S_AGENT_API": "respones"}, "", "; did you mean 'responses'? (from K8S_AGENT_API in the environment; flag --api)"),
        ([], {}, "K8S_AGENT_IMPL=sdkk\n", "; did you mean 'sdk'? (from K8S_AGENT_IMPL in .env; flag --impl)"),
        ([], {}, "K8S_AGENT_MCP_TRANSPORT=stdoi\n", "; did you mean 'stdio'? (from K8S_AGENT_MCP_TRANSPORT in .env;"),
        (["--report-format", "json_shema"], {}, "", "; did you mean 'json_schema'?"),
        (["--cluster-server", "kubernetes-mcp-servr"], {}, "", "; did you mean 'kubernetes-mcp-server'?"),
        (["--stream", "yse"], {}, "", "stream must be yes or no, got 'yse'; did you mean 'yes'?"),
        (["--model", "ofline"], {}, "", "or use --model offline; did you mean 'offline'?"),
    ],
)  # fmt: skip
def test_a_misspelt_choice_names_the_closest_valid_one_from_a_flag_the_environment_or_dotenv(
    args: list[str], env: dict[str, str], dotenv: str, said: str, tmp_path: Path
) -> None:
    if dotenv:
        (tmp_path / ".env").write_text(dotenv, encoding="utf-8")

    done = cli("ask", DEFAULT_QUESTION, *args, cwd=tmp_path, env=env)

    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: ") and said in line and line.count("did you mean") == 1
    assert not (tmp_path / "traces").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["trace", "replay", "x.jsonl", "--impl", "sdkk"], "invalid choice: 'sdkk' (choose from 'handwritten', 'sdk'); did you mean 'sdk'?"),
        (["compare", "--side", "sdkk:chat", "--side", "sdk"], "unknown implementation 'sdkk' in --side sdkk:chat"),
        (["compare", "--api", "respones"], "did you mean 'responses'?"),
        (["contract", "--subject", "handwriten"], "did you mean 'handwritten'?"),
        (["eval", "--impl", "sdkk"], "unknown implementation 'sdkk': choose handwritten, sdk; did you mean 'sdk'?"),
        (["probe", "--only", "tool_choise"], "unknown probe tool_choise; known: "),
    ],
)  # fmt: skip
def test_the_other_commands_name_the_closest_choice_too(args: list[str], said: str, tmp_path: Path) -> None:
    done = cli(*args, cwd=tmp_path)

    assert done.returncode == 2
    first = done.stderr.splitlines()[0]
    assert said in first and "did you mean" in first


# -- 3. --stream alone, and a structured report streamed as findings ---------------------------------


@pytest.mark.parametrize("flags", [["--stream"], ["--stream", "yes"], ["--stream=yes"]])
def test_stream_alone_means_yes_and_the_question_after_it_stays_the_question(
    flags: list[str], tmp_path: Path
) -> None:
    done = ask(*flags, DEFAULT_QUESTION, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    (trace,) = traces(tmp_path)
    assert trace[0]["stream"] is True and trace[0]["question"] == DEFAULT_QUESTION
    streamed = [line for line in done.stderr.splitlines() if line.startswith("  │ ")]
    # The structured report is not echoed as JSON: one line says it is being written, then a line
    # per finding, in the order the model wrote them.
    assert streamed[0] == "  │ writing the report; each finding as it is written:"
    written = json.loads(next(e["text"] for e in reversed(trace) if e["kind"] == "model_response"))
    assert streamed[1:] == [
        f"  │ finding: {f['kind']} {f['name']} ({f['namespace']}): {f['status']} · {f['cause']}"
        for f in written["findings"]
    ]
    assert '"findings"' not in done.stderr and not any(line.strip() in "{}│" for line in streamed)
    assert "Health report" in done.stdout  # the checked report, rendered


def test_stream_no_streams_nothing_and_a_prose_report_streams_its_text(tmp_path: Path) -> None:
    (tmp_path / "off").mkdir()
    (tmp_path / "prose").mkdir()
    off = ask("--stream", "no", DEFAULT_QUESTION, cwd=tmp_path / "off")
    assert off.returncode == 0, off.stderr
    assert "│" not in off.stderr and traces(tmp_path / "off")[0][0]["stream"] is False

    prose = ask(DEFAULT_QUESTION, "--report-format", "prose", "--stream", cwd=tmp_path / "prose")
    assert prose.returncode == 0, prose.stderr
    streamed = "\n".join(line[4:] for line in prose.stderr.splitlines() if line.startswith("  │ "))
    assert "payment-service" in streamed and "writing the report" not in streamed


# -- 4. the kubeconfig advice ---------------------------------------------------------------------------


def fake_kubernetes_mcp_server(tmp_path: Path) -> dict[str, str]:
    """An executable named as kubernetes-mcp-server (never started: the kubeconfig is checked first),
    a home without ~/.kube/config, no KUBECONFIG."""
    binary = tmp_path / "bin" / "kubernetes-mcp-server"
    binary.parent.mkdir()
    binary.write_text("#!/bin/sh\necho v0.0.0\n", encoding="utf-8")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "home").mkdir()
    return {"KUBERNETES_MCP_SERVER_BIN": str(binary), "HOME": str(tmp_path / "home"), "KUBECONFIG": ""}


@pytest.mark.parametrize(
    ("kubeconfig", "said"),
    [
        ({}, "there is none at ~/.kube/config (KUBECONFIG is not set): name yours with --kubeconfig FILE"),
        (
            {"KUBECONFIG": "/nowhere/config"},
            "KUBECONFIG names a file that does not exist (/nowhere/config): name an existing kubeconfig with "
            "--kubeconfig FILE",
        ),
    ],
)
def test_a_missing_kubeconfig_is_answered_with_the_flag_that_names_one(
    kubeconfig: dict[str, str], said: str, tmp_path: Path
) -> None:
    env = {**fake_kubernetes_mcp_server(tmp_path), **kubeconfig}

    done = cli("ask", DEFAULT_QUESTION, "--cluster-server", "kubernetes-mcp-server", cwd=tmp_path, env=env)

    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: kubernetes-mcp-server needs a kubeconfig") and said in line
    assert "export KUBECONFIG" not in line and "--mcp-env" not in line


def test_a_kubeconfig_given_through_mcp_env_that_is_missing_is_named_so(tmp_path: Path) -> None:
    env = fake_kubernetes_mcp_server(tmp_path)

    done = cli(
        "ask", DEFAULT_QUESTION, "--cluster-server", "kubernetes-mcp-server", "--mcp-env", "KUBECONFIG=/x/y",
        cwd=tmp_path, env=env,
    )  # fmt: skip

    assert done.returncode == 2
    assert "--mcp-env KUBECONFIG names a file that does not exist (/x/y)" in done.stderr


# -- 5. `last` is your newest ask run that has ended -----------------------------------------------------


def test_last_is_the_newest_run_that_ended_and_a_run_still_going_is_passed_over(
    recorded: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "traces"
    folder.mkdir()
    ended = Path(shutil.copy(recorded, folder / recorded.name))
    going = folder / "99991231T235959Z-sdk-0123456789ab.jsonl"  # newer, and its run has not ended
    events = read_jsonl(recorded)
    going.write_text(
        "".join(json.dumps({**event, "question": "still going"}) + "\n" for event in events[:-1]),
        encoding="utf-8",
    )
    os.utime(ended, (1_700_000_000, 1_700_000_000))

    shown = cli("trace", "show", "last", cwd=tmp_path)

    assert shown.returncode == 0, shown.stderr
    assert "still going" not in shown.stdout and events[0]["run_id"] in shown.stdout
    assert shown.stderr.splitlines() == [
        f"note: `last` is {ended.name}; newer in traces: 1 of a run that has not ended (still running, or "
        "stopped before it could end its trace)"
    ]
    alone = cli("trace", "show", "last", "--trace-dir", str(tmp_path / "none"), cwd=tmp_path)
    assert alone.returncode == 2 and "`last` means your newest ask run there that has ended" in alone.stderr
    ended.unlink()
    only_going = cli("trace", "show", "last", cwd=tmp_path)
    assert only_going.returncode == 2
    assert "no trace in traces is of your own ask run that has ended (1 of a run that has not ended" in (
        only_going.stderr
    )


def test_the_help_of_trace_show_says_what_last_means(tmp_path: Path) -> None:
    done = cli("trace", "show", "--help", cwd=tmp_path)

    assert done.returncode == 0
    assert "your newest `ask` run that has ended" in " ".join(done.stdout.split())


# -- 6. probe explains each row that is not "ok", and wraps the long column ---------------------------


def test_probe_says_in_words_why_a_row_differs_and_keeps_its_lines_readable(tmp_path: Path) -> None:
    done = cli("probe", "--only", "reused_ids", "forced_summary", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    rows = [
        line.split() for line in done.stdout.splitlines() if line.startswith(("reused_ids", "forced_summary"))
    ]
    differing = {row[0] for row in rows if "differs" in row}
    assert differing  # reused_ids differs on the pinned SDK
    explained = " ".join(done.stdout.split('why a row is not "ok"')[1].split("\n\n")[0].split())
    for name in differing:
        assert re.search(
            rf"{name}: differs on (both wires|the chat wire|the responses wire): ok when .+?; here: ",
            explained,
        )
    # The scorecard's reasons are wrapped, not one line of hundreds of characters.
    assert max(len(line) for line in done.stdout.splitlines()) < 180
    assert "sentinel stops after 1 request," in done.stdout  # a count in words (7.)


# -- 7. counts in words ----------------------------------------------------------------------------------


def test_one_of_a_kind_is_counted_in_the_singular(tmp_path: Path) -> None:
    done = cli(
        "eval", "--incident", "pending-insufficient-cpu", "--impl", "handwritten", "--no-baselines",
        "--results", "one.jsonl", "--out", "one.md", cwd=tmp_path,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert "eval: 1 incident x 1 implementation x 1 model x 1 repeat = 1 run, " in done.stderr
    assert (tmp_path / "one.md").read_text(encoding="utf-8").startswith("# Eval: 1 incident, 1 repeat\n")
    assert "(s)" not in done.stderr + done.stdout


# -- 8 and 10. compare: stdout gets --format, each --out file its suffix; the wait is the command's ----


def test_compare_prints_the_format_asked_for_and_writes_each_file_in_its_suffix_s(tmp_path: Path) -> None:
    html = cli(
        "compare", "--scenario", "c9-tool-failure", "--format", "html", "--out", "r.html", "--out", "r.json",
        cwd=tmp_path,
    )  # fmt: skip

    assert html.returncode == 0, html.stderr
    assert html.stdout.startswith("<!doctype html>") and "| c9-tool-failure |" not in html.stdout
    assert (tmp_path / "r.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    assert (
        json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["rows"][0]["name"] == "c9-tool-failure"
    )
    assert "report written to r.html" in html.stderr and "report written to r.json" in html.stderr
    assert "1 row x 2 implementations" in html.stdout

    plain = cli("compare", "--scenario", "c9-tool-failure", "--out", "r2.json", cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert "| c9-tool-failure |" in plain.stdout  # no --format: markdown, as contract and eval print
    assert "1 row x 2 implementations: the runs took " in plain.stdout
    assert json.loads((tmp_path / "r2.json").read_text(encoding="utf-8"))["mode"] == "scenarios"
    done = re.search(r"^done in ([\d.]+) s \(the runs took ([\d.]+) s\)$", plain.stderr, re.MULTILINE)
    assert done is not None and float(done[1]) >= float(done[2])  # the command's wait covers the runs


# -- 9. the ETA is not the first run's warm-up ----------------------------------------------------------


def test_the_eta_waits_for_runs_after_the_first_wave_and_is_measured_from_them() -> None:
    from k8s_agent.eval.runner import Job, Progress

    now = [0.0]
    out = io.StringIO()
    progress = Progress(10, stream=out, jobs=2, clock=lambda: now[0], command_clock=lambda: 99.0)
    record = {"score": {"solved": True}, "error": None}
    job = cast(
        Job,
        SimpleNamespace(impl=Impl.HANDWRITTEN, model="offline", incident=SimpleNamespace(id="x"), repeat=1),
    )

    for at in (40.0, 41.0, 43.0, 45.0):  # two runs end after a 40 s start, then one every 2 s a side
        now[0] = at
        progress.finished(job, record)
    for _ in range(6):
        progress.finished(job, record)

    lines = out.getvalue().splitlines()
    assert all("ETA estimating..." in line for line in lines[:3])
    assert "0.50 runs/s · ETA 12s" in lines[3]  # 6 left at 2 runs in 4 s, not at 4 runs in 45 s
    assert lines[-1].startswith("[10/10] 100% done in 1m39s")


def test_the_first_line_of_an_eval_has_no_eta_yet(tmp_path: Path) -> None:
    done = cli(
        "eval", "--incident", "pending-insufficient-*", "--impl", "handwritten", "--no-baselines",
        "--concurrency", "1", "--results", "r.jsonl", cwd=tmp_path,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    runs = [line for line in done.stderr.splitlines() if line.startswith("[")]
    assert len(runs) == 2 and "ETA estimating..." in runs[0] and "done in " in runs[-1]


# -- 10. ask: the run's time and the command's ----------------------------------------------------------


def test_ask_says_how_long_the_run_took_and_how_long_the_command_has_run(tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    said = re.search(
        r"^run ended after ([\d.]+) s; ([\d.]+) s since the command started \(the rest: loading the agent "
        r"and checking the request\)$",
        done.stderr,
        re.MULTILINE,
    )
    assert said is not None
    assert float(said[2]) >= float(said[1])
    header = re.fullmatch(r".* · ([\d.]+) s", done.stdout.splitlines()[1])
    assert header is not None  # the report's figure is the run's, as the line says (each rounds it)
    assert abs(float(header[1]) - float(said[1])) <= 0.1


# -- 11. replay shows what it does ----------------------------------------------------------------------


def test_replay_prints_each_stage_and_each_step_on_stderr(recorded: Path, tmp_path: Path) -> None:
    trace = Path(shutil.copy(recorded, tmp_path / "run.jsonl"))

    done = cli("trace", "replay", str(trace), "--impl", "sdk", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == (
        f"trace {trace}: recorded by the handwritten agent, 4 model requests on the chat API; loading the agent"
    )
    assert (
        lines[1]
        == "replaying 4 recorded model answers on the sdk agent (chat API) against the embedded mock cluster"
    )
    steps = [line for line in lines if line.startswith("step ")]
    assert [line.split(":")[0] for line in steps] == ["step 1", "step 2", "step 3", "step 4"]
    assert sum(1 for line in lines if line.startswith("  ✓ ")) >= 8
    assert lines[-1] == "comparing the replay with the recording, turn by turn"
    assert "no divergence" in done.stdout

    quiet = cli("trace", "replay", str(trace), "--quiet", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == ""
