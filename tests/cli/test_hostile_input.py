"""Hostile input and a newcomer's first hour: what a user sees at the boundary (exit codes, output,
files created or not, trace contents), run as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_ask import DEFAULT_QUESTION, ask, traces
from tests.conftest import read_jsonl
from tests.processes import HANG_SECONDS, interrupt, k8s_agent, running, start_cold

HANGING_SERVER = f'{sys.executable} -c "import time; time.sleep(120)"'


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m k8s_agent ARGS` with a clean environment and traces in `cwd/traces`."""
    return k8s_agent(*args, cwd=cwd, env={"K8S_AGENT_TRACE_DIR": "traces", **(env or {})})


def in_process(
    *args: str, cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    """`k8s-agent ARGS` in this process (for input checked before anything starts): exit, out, err."""
    from k8s_agent.cli import main

    for name in [n for n in os.environ if n.startswith(("OPENAI_", "K8S_AGENT_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("K8S_AGENT_TRACE_DIR", str(cwd / "traces"))
    monkeypatch.chdir(cwd)
    try:
        code = main(list(args))
    except SystemExit as exit:  # argparse's own --help, --version and errors
        code = int(exit.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def recorded_trace(tmp_path: Path, *args: str) -> Path:
    """One `ask` run's trace file (the offline model on the default fixture unless `args` say else)."""
    done = ask(DEFAULT_QUESTION, "--quiet", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (path,) = sorted((tmp_path / "traces").glob("*.jsonl"))
    return path


def rewrite(path: Path, change: Any) -> None:
    """Apply `change` to the trace's run_start event, in place."""
    events = read_jsonl(path)
    change(events[0])
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")


# -- 1-3: a trace is data, never a command; no path from an unchecked string ----------------------


def test_replay_never_runs_the_command_a_trace_names(tmp_path: Path) -> None:
    trace = recorded_trace(tmp_path)
    marker = tmp_path / "the-trace-ran-this"
    injected = ["sh", "-c", f"touch {marker}; exec {sys.executable} -m k8s_agent_mock_cluster"]
    rewrite(trace, lambda start: start.update(mcp_command=injected))

    done = cli("trace", "replay", str(trace), "--trace-dir", str(tmp_path / "replays"), cwd=tmp_path)

    assert not marker.exists()
    assert done.returncode == 0, done.stderr  # replayed on the embedded mock cluster: no divergence
    assert "note: the trace ran against `sh -c touch" in done.stderr
    assert "a trace is data, never a command, so that is not started" in done.stderr
    (server,) = [line for line in done.stdout.splitlines() if line.startswith("  MCP server: ")]
    assert server.startswith(f"  MCP server: {sys.executable} ")  # the mock cluster (warm or not)
    assert "-m k8s_agent_mock_cluster --call-log" in server and "touch" not in server


@pytest.mark.parametrize("impl", ["../../../elsewhere/x", "a/b", "handwritten/../../x"])
def test_an_implementation_that_is_a_path_builds_no_path(impl: str, tmp_path: Path) -> None:
    work = tmp_path / "deep" / "down"
    work.mkdir(parents=True)

    flag = ask(DEFAULT_QUESTION, "--impl", impl, cwd=work)
    env = ask(DEFAULT_QUESTION, cwd=work, env={"K8S_AGENT_IMPL": impl})

    for done in (flag, env):
        assert done.returncode == 2 and "unknown implementation" in done.stderr
    created = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert created == ["deep", "deep/down"]  # refused before any path was built from it


def test_a_trace_whose_fields_break_the_schema_is_refused_before_anything_runs(tmp_path: Path) -> None:
    trace = recorded_trace(tmp_path)
    rewrite(trace, lambda start: start.update(impl="../../x"))

    done = cli("trace", "replay", str(trace), "--trace-dir", str(tmp_path / "replays"), cwd=tmp_path)

    assert done.returncode == 2
    assert "not a valid trace event (run_start.impl: " in done.stderr
    assert not (tmp_path / "replays").exists()


def test_a_recorded_fault_plan_is_copied_and_its_state_written_only_in_the_replay_folder(
    tmp_path: Path,
) -> None:
    plan = tmp_path / "elsewhere" / "plan.json"
    plan.parent.mkdir()
    plan.write_text(json.dumps({"faults": [{"tool": "get_pod_logs", "action": "error", "times": 1}]}))
    trace = recorded_trace(tmp_path)
    rewrite(trace, lambda start: start["mcp_command"].extend(["--faults", str(plan)]))

    done = cli(
        "trace", "replay", str(trace), "--trace-dir", str(tmp_path / "replays"), "--json", cwd=tmp_path
    )

    assert done.returncode in (0, 5), done.stderr
    assert sorted(p.name for p in plan.parent.iterdir()) == ["plan.json"]  # no plan.json.state beside it
    replay_dir = Path(json.loads(done.stdout)["replay_trace"]).parent
    assert (replay_dir / "faults.json").read_text() == plan.read_text()
    assert (replay_dir / "faults.json.state").exists()


def test_a_recorded_fixture_that_is_not_a_cluster_is_refused(tmp_path: Path) -> None:
    trace = recorded_trace(tmp_path)
    not_a_fixture = tmp_path / "notes.txt"
    not_a_fixture.write_text("just some text")
    rewrite(trace, lambda start: start["mcp_command"].extend(["--cluster", str(not_a_fixture)]))

    done = cli("trace", "replay", str(trace), "--trace-dir", str(tmp_path / "replays"), cwd=tmp_path)

    assert done.returncode == 2
    assert (
        "the trace's mock cluster fixture cannot be used" in done.stderr and "--cluster FILE" in done.stderr
    )


# -- 4-5: interruption and time --------------------------------------------------------------------


def test_ctrl_c_while_the_mcp_server_hangs_at_start_up_ends_the_run_with_an_interrupted_trace(
    tmp_path: Path,
) -> None:
    marker = f"hang-{tmp_path.name}"  # names this test's hanging server among the machine's processes
    hanging = f'{sys.executable} -c "import time; time.sleep(3600)" {marker}'
    process = start_cold(
        "ask", DEFAULT_QUESTION, "--mcp-command", hanging, "--mcp-start-timeout", str(HANG_SECONDS),
        cwd=tmp_path, env={"K8S_AGENT_TRACE_DIR": "traces"},
    )  # fmt: skip
    deadline = time.monotonic() + HANG_SECONDS
    server = f"^[^ ]+ -c import time; time.sleep.3600. {marker}$"  # the server's command line, not the run's
    while not running(server) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # until the run has started the server and waits for it

    _, err = interrupt(process)

    assert process.returncode == 130, err
    assert err.strip().splitlines()[-1] == "interrupted" and "Traceback" not in err
    (trace,) = traces(tmp_path)
    assert trace[-1]["kind"] == "run_end" and trace[-1]["interrupted"] is True
    assert trace[-1]["error"] == "interrupted" and trace[-1]["error_type"] == "Interrupted"
    assert not running(server)  # the server went with the run


def test_ctrl_c_in_the_first_moments_ends_in_one_line_and_exit_130(tmp_path: Path) -> None:
    # -X importtime prints a line as each module is imported: Ctrl-C is pressed once the CLI's own
    # module is in, while the rest imports and the run starts (the window a raw traceback used to show
    # in), however long the machine takes to get there.
    process = start_cold(
        "ask", DEFAULT_QUESTION, cwd=tmp_path, env={"K8S_AGENT_TRACE_DIR": "traces"},
        python_options=("-X", "importtime"),
    )  # fmt: skip
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # ends at the latest when the run does
        seen.append(line)
        if line.rstrip().endswith("| k8s_agent.cli"):
            break

    _, err = interrupt(process)

    said = [line for line in (*seen, *err.splitlines(keepends=True)) if not line.startswith("import time:")]
    assert process.returncode == 130, "".join(said)
    assert "".join(said).strip().splitlines()[-1] == "interrupted" and not any("Traceback" in s for s in said)
    for trace in traces(tmp_path):  # when the run got as far as its trace, the trace says so
        assert trace[-1]["kind"] == "run_end" and trace[-1]["interrupted"] is True


def test_the_mcp_start_timeout_is_a_setting(tmp_path: Path) -> None:
    done = ask(DEFAULT_QUESTION, "--mcp-command", HANGING_SERVER, "--mcp-start-timeout", "0.5", cwd=tmp_path)

    assert done.returncode == 4
    assert "did not answer the initialize request in time (--mcp-start-timeout)" in done.stderr
    (trace,) = traces(tmp_path)
    assert trace[0]["budgets"]["mcp_start_timeout"] == 0.5


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--max-seconds", "nan", "max-seconds must be a finite number, got 'nan'"),
        ("--max-seconds", "inf", "max-seconds must be a finite number, got 'inf'"),
        ("--max-seconds", "0", "max-seconds must be positive"),
        ("--tool-timeout", "-1", "tool-timeout must be positive"),
        ("--request-timeout", "NaN", "request-timeout must be a finite number"),
        ("--max-retries", "-1", "max-retries must not be negative"),
        ("--keep-traces", "-5", "keep-traces must not be negative"),
    ],
)
def test_numbers_that_are_not_finite_or_out_of_range_are_rejected(
    flag: str,
    value: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = in_process(
        "ask", DEFAULT_QUESTION, flag, value, cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch
    )

    assert code == 2
    (line,) = err.splitlines()
    assert line.startswith(f"error: {message}")
    assert not (tmp_path / "traces").exists()  # refused: no run started, no trace to hold a NaN


# -- 6-7: exit codes and messages ------------------------------------------------------------------


def test_a_fixture_that_is_not_json_is_bad_input_checked_before_any_server_starts(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{ nodes: [")

    done = ask(DEFAULT_QUESTION, "--cluster", str(broken), cwd=tmp_path)

    assert done.returncode == 2
    assert done.stderr.startswith(f"error: fixture {broken} is not valid JSON")
    assert len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "traces").exists()  # nothing was started


@pytest.mark.parametrize(
    ("broken_nodes", "tail"), [(1, ""), (2, " (and 1 more problem)"), (3, " (and 2 more problems)")]
)
def test_a_fixture_s_problems_are_counted_in_words_that_agree(
    broken_nodes: int,
    tail: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fixture = tmp_path / "odd.json"
    nodes = [{"name": f"node-{n}"} for n in range(broken_nodes)]  # each lacks its status
    fixture.write_text(json.dumps({"nodes": nodes, "pods": []}))

    code, _, err = in_process(
        "ask",
        DEFAULT_QUESTION,
        "--cluster",
        str(fixture),
        cwd=tmp_path,
        capsys=capsys,
        monkeypatch=monkeypatch,
    )

    assert code == 2
    assert err.splitlines()[0].endswith(f"'status' is a required property{tail}")


def test_an_env_file_that_is_named_must_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = in_process(
        "ask",
        DEFAULT_QUESTION,
        "--env-file",
        "missing.env",
        cwd=tmp_path,
        capsys=capsys,
        monkeypatch=monkeypatch,
    )

    assert code == 2 and err.startswith("error: env file not found: missing.env")


def test_a_bad_flag_points_to_the_subcommand_s_help(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for args, hint in (
        (["ask", "q", "--bogus"], "(see 'k8s-agent ask --help')"),
        (["compare", "--bogus"], "(see 'k8s-agent compare --help')"),
        (["trace", "show", "x", "--bogus"], "(see 'k8s-agent trace show --help')"),
    ):
        code, _, err = in_process(*args, cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch)
        assert code == 2 and err.splitlines() == ["error: unrecognized arguments: --bogus", hint]


@pytest.mark.parametrize(
    ("args", "error", "hint", "help_of"),
    [
        (["aks", "q"], "invalid choice: 'aks' (choose from 'ask', ", "; did you mean 'ask'?", "k8s-agent"),
        (
            ["eval", "--repeats", "1"],
            "unrecognized arguments: --repeats",
            "; did you mean --repeat?",
            "k8s-agent eval",
        ),
        (
            ["eval", "--repeats=1"],
            "unrecognized arguments: --repeats=1",
            "; did you mean --repeat?",
            "k8s-agent eval",
        ),
        (
            ["ask", "q", "--max-step", "3"],
            "unrecognized arguments: --max-step",
            "; did you mean --max-steps?",
            "k8s-agent ask",
        ),
        (
            ["trace", "shwo", "last"],
            "invalid choice: 'shwo' (choose from 'show', ",
            "; did you mean 'show'?",
            "k8s-agent trace",
        ),
        (
            ["compare", "--format", "htm"],
            "invalid choice: 'htm' (choose from 'md', ",
            "; did you mean 'html'?",
            "k8s-agent compare",
        ),
        (
            ["ask", "q", "--modle", "x", "--trace-dri", "t"],
            "unrecognized arguments: --modle --trace-dri",
            "; did you mean --model or --trace-dir?",
            "k8s-agent ask",
        ),
    ],
)
def test_a_misspelt_subcommand_choice_or_flag_is_refused_with_the_closest_one_as_a_hint(
    args: list[str], error: str, hint: str, help_of: str, tmp_path: Path
) -> None:
    done = cli(*args, cwd=tmp_path)

    assert done.returncode == 2 and done.stdout == ""
    first, see = done.stderr.splitlines()
    assert first.startswith("error: ") and error in first and first.endswith(hint)
    assert first.count("did you mean") == 1
    assert see == f"(see '{help_of} --help')"
    assert not (tmp_path / "traces").exists()


@pytest.mark.parametrize("args", [["ask", "q", "--bogus"], ["frobnicate"], ["compare", "--format", "pdf"]])
def test_a_word_close_to_nothing_the_command_knows_gets_no_hint(args: list[str], tmp_path: Path) -> None:
    done = cli(*args, cwd=tmp_path)

    assert done.returncode == 2
    assert "did you mean" not in done.stderr and len(done.stderr.splitlines()) == 2


def test_neither_a_bad_value_nor_a_malformed_command_line_leaves_a_trace(tmp_path: Path) -> None:
    value = ask(DEFAULT_QUESTION, "--max-steps", "many", cwd=tmp_path)
    assert value.returncode == 2 and value.stderr == "error: max-steps must be a number, got 'many'\n"

    syntax = cli("ask", cwd=tmp_path)  # no question: nothing was asked
    assert syntax.returncode == 2 and "the following arguments are required: question" in syntax.stderr
    assert not (tmp_path / "traces").exists()


def test_an_empty_question_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = in_process("ask", "   ", cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch)

    assert code == 2 and err.startswith("error: the question is empty") and len(err.splitlines()) == 1
    assert not (tmp_path / "traces").exists()


def test_compare_checks_its_output_file_before_the_run(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")

    started = time.monotonic()
    done = cli("compare", "--out", str(blocker / "report.html"), "--format", "html", cwd=tmp_path)

    assert done.returncode == 2 and "cannot write the report to" in done.stderr
    assert "internal error" not in done.stderr and "[1/" not in done.stderr  # no run was made
    assert time.monotonic() - started < 60  # a bound on the test, not a measurement


def test_help_texts_list_only_what_works_and_say_figures_depend_on_the_machine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, compare, _ = in_process("compare", "--help", cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch)
    _, bench, _ = in_process("bench", "--help", cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch)

    assert "--impl" not in compare
    assert "with --question" in compare
    assert "this machine's" in " ".join(bench.split())


def test_counts_are_worded_in_the_singular_when_there_is_one(tmp_path: Path) -> None:
    done = ask("Which pods in the qa namespace are unhealthy?", cwd=tmp_path)  # none: one listing

    assert done.returncode == 0, done.stderr
    assert "2 model requests · 1 tool call · " in done.stdout
    assert "model proposes 1 tool call (" in done.stderr
    assert "1 tool calls" not in done.stdout + done.stderr


def test_trace_show_full_prints_the_answer_once(tmp_path: Path) -> None:
    trace = recorded_trace(tmp_path, "--report-format", "prose")  # the answer is the model's text

    done = cli("trace", "show", str(trace), "--full", cwd=tmp_path)

    assert done.returncode == 0
    assert done.stdout.count("5 of 7 pods are unhealthy.") == 1
    assert "answer: the model's last text, above" in done.stdout


def test_trace_replay_takes_the_implementation_from_the_trace_and_keeps_the_newest_replays(
    tmp_path: Path,
) -> None:
    trace = recorded_trace(tmp_path, "--impl", "sdk")
    older = [tmp_path / "r" / f"replay-2026010{day}T000000Z-sdk-old" for day in (1, 2)]
    for age, folder in enumerate(older):
        folder.mkdir(parents=True)
        os.utime(folder, (1_700_000_000 + age, 1_700_000_000 + age))
    (tmp_path / "r" / "replay-notes").mkdir()  # not a replay folder: never touched

    done = cli(
        "trace", "replay", str(trace), "--trace-dir", str(tmp_path / "r"), "--keep-traces", "2", "--json",
        cwd=tmp_path,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["recorded_impl"] == "sdk" and result["impl"] == "sdk"
    kept = sorted(path.name for path in (tmp_path / "r").iterdir())
    assert len(kept) == 3 and older[0].name not in kept and {older[1].name, "replay-notes"} < set(kept), kept
    assert (
        Path(result["replay_trace"]).is_file()
        and Path(result["replay_trace"]).parent.parent == tmp_path / "r"
    )


# -- 8: the offline model answers the question asked ---------------------------------------------


def calls_of(trace: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(e["tool"], e["arguments"]) for e in trace if e["kind"] == "tool_call"]


def test_a_question_about_nodes_gets_a_node_investigation(tmp_path: Path) -> None:
    done = ask("Are any of my nodes unhealthy or under pressure?", "--json", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    (trace,) = traces(tmp_path)
    assert {tool for tool, _ in calls_of(trace)} == {"list_nodes", "describe_node"}
    out = json.loads(done.stdout)
    assert out["answer"].startswith("Health report: nodes") and out["report"]["scope"] == "nodes"
    listed = next(e["result"] for e in trace if e["kind"] == "tool_call" and e["tool"] == "list_nodes")
    assert out["report"]["healthy"]["count"] + len(out["report"]["findings"]) == len(listed.splitlines()) - 1


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("Which pods in the Production namespace are unhealthy, and why?", {"namespace": "production"}),
        ("Which pods are unhealthy in all namespaces?", {}),
    ],
)
def test_the_namespace_is_read_in_any_case_and_all_means_all(
    question: str, first: dict[str, str], tmp_path: Path
) -> None:
    done = ask(question, "--json", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    (trace,) = traces(tmp_path)
    assert calls_of(trace)[0] == ("list_pods", first)
    out = json.loads(done.stdout)
    assert out["report"]["findings"] and out["report_verified"] is True
    assert f"{len(out['report']['findings'])} unhealthy, " in out["answer"]


def test_a_namespace_that_does_not_exist_gets_the_ones_that_do(tmp_path: Path) -> None:
    done = ask("What is wrong in the prodution namespace?", "--json", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["answer"]
    assert "Namespaces with pods: batch, kube-system, production, staging." in answer


def test_a_question_naming_one_pod_investigates_that_pod(tmp_path: Path) -> None:
    pod = "payment-service-6f7b8d9c8-ghj56"

    done = ask(f"Why is {pod} crashing?", "--json", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    (trace,) = traces(tmp_path)
    described = [args["name"] for tool, args in calls_of(trace) if tool != "list_pods"]
    assert described == [pod, pod]


# -- 9: small things users reach for ---------------------------------------------------------------


def test_namespace_flag_scopes_the_question_without_rewriting_it(tmp_path: Path) -> None:
    done = ask("Which pods are unhealthy?", "-n", "Staging", "--json", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    (trace,) = traces(tmp_path)
    assert calls_of(trace)[0] == ("list_pods", {"namespace": "staging"})
    assert trace[0]["question"] == "Which pods are unhealthy?\n\nScope: namespace staging."
    bad = ask("Which pods are unhealthy?", "-n", "no_such/ns", cwd=tmp_path)
    assert bad.returncode == 2 and "is not a namespace name" in bad.stderr


def test_version_names_the_release_and_the_pinned_sdk(tmp_path: Path) -> None:
    done = cli("--version", cwd=tmp_path)

    assert done.returncode == 0
    assert done.stdout.startswith("k8s-agent 0.") and "openai-agents 0.24.0" in done.stdout


def test_traces_go_to_one_place_by_default_and_are_kept_up_to_a_number(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = {"XDG_STATE_HOME": str(state), "K8S_AGENT_TRACE_DIR": ""}
    for _ in range(3):
        done = ask(DEFAULT_QUESTION, "--quiet", "--keep-traces", "2", cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr

    kept = sorted((state / "k8s-agent" / "traces").glob("*.jsonl"))
    assert len(kept) == 2
    assert not (tmp_path / "traces").exists()
    newest = max(kept, key=lambda path: path.stat().st_mtime_ns)  # two runs may share a second of their names
    last = cli("trace", "show", "last", cwd=tmp_path, env=env)
    assert last.returncode == 0 and newest.name.split("-")[-1].removesuffix(".jsonl") in last.stdout


def test_kubeconfig_and_context_are_for_a_real_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = in_process(
        "ask", DEFAULT_QUESTION, "--context", "prod", cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch
    )
    assert code == 2 and "--context is for a real cluster" in err

    missing = ("ask", DEFAULT_QUESTION, "--kubeconfig", "nope", "--mcp-command", "x")
    code, _, err = in_process(*missing, cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch)
    assert code == 2 and "kubeconfig not found: nope" in err


def test_trace_show_prints_a_result_s_terminal_escapes_as_text(tmp_path: Path) -> None:
    trace = recorded_trace(tmp_path)
    events = read_jsonl(trace)
    call = next(e for e in events if e["kind"] == "tool_call")
    call["result"] = "\x1b]0;owned\x07\x1b[2Jcleared"
    trace.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")

    done = cli("trace", "show", str(trace), "--full", cwd=tmp_path)

    assert done.returncode == 0
    assert "\x1b" not in done.stdout and "\\x1b]0;owned\\x07\\x1b[2Jcleared" in done.stdout
