"""Input a newcomer gives without meaning harm, at the boundary (exit code, what is printed): an
unterminated quote, a deeply nested JSON line, a compose-style `.env`, `--max-steps 1e3`, a
value from the environment, a huge question, bidi controls in what tools and models return."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from k8s_agent.progress import ProgressPrinter
from k8s_agent_harness.traces import events
from k8s_agent_harness.vocabulary import Outcome
from tests.cli.test_ask import DEFAULT_QUESTION, ask, traces
from tests.cli.test_hostile_input import cli, in_process
from tests.conftest import read_jsonl

RLO = "\u202e"
DEEP = "[" * 5000 + "]" * 5000


def copy_of(trace: Path, tmp_path: Path) -> Path:
    return Path(shutil.copy(trace, tmp_path / "run.jsonl"))


# -- evidence that names a Secret reaches the model and the report ---------------------------------

MOUNT_FAILED = 'MountVolume.SetUp failed for volume "api-credentials" : secret "frontend-api-keys" not found'


def test_a_mount_event_naming_the_missing_secret_reaches_the_model_and_the_report(tmp_path: Path) -> None:
    from tests.clusters import shop_fixture

    cluster = shop_fixture()
    mailer = next(e for e in cluster["events"] if e["object"].startswith("pod/mailer-"))
    mailer.update(reason="FailedMount", message=MOUNT_FAILED)
    fixture = tmp_path / "shop.json"
    fixture.write_text(json.dumps(cluster))

    done = ask(
        "Which pods in the shop namespace are unhealthy, and why?",
        *("--cluster", str(fixture), "--markdown", "--quiet"),
        cwd=tmp_path,
    )

    assert done.returncode == 0, done.stderr
    assert f"`{MOUNT_FAILED}`" in done.stdout  # quoted as evidence, verified
    (trace,) = traces(tmp_path)
    seen = [e["result"] for e in trace if e["kind"] == "tool_call" and MOUNT_FAILED in e["result"]]
    assert seen  # what the model was given
    assert "[REDACTED]" not in json.dumps(trace)


# -- exit 2, never "internal error" ---------------------------------------------------------------


def test_an_unterminated_quote_in_the_mcp_command_is_bad_input_from_flag_or_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = in_process(
        "ask", DEFAULT_QUESTION, "--mcp-command", 'kubernetes-mcp-server --x "unterminated',
        cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch,
    )  # fmt: skip
    from_env = cli("ask", DEFAULT_QUESTION, cwd=tmp_path, env={"K8S_AGENT_MCP_COMMAND": "server 'oops"})

    assert code == 2
    assert err.splitlines()[0] == (
        "error: mcp-command is not a command line (no closing quotation): "
        "'kubernetes-mcp-server --x \"unterminated'"
    )
    assert from_env.returncode == 2 and "internal error" not in from_env.stderr
    assert from_env.stderr.splitlines()[0] == (
        'error: mcp-command is not a command line (no closing quotation): "server \'oops" '
        "(from K8S_AGENT_MCP_COMMAND in the environment; flag --mcp-command)"
    )


def test_trace_replay_refuses_an_unterminated_quote_in_its_mcp_command(
    recorded: Path, tmp_path: Path
) -> None:
    done = cli(
        "trace", "replay", str(copy_of(recorded, tmp_path)), "--mcp-command", 'server "x',
        "--trace-dir", str(tmp_path / "replays"), cwd=tmp_path,
    )  # fmt: skip

    assert done.returncode == 2
    assert done.stderr == "error: --mcp-command is not a command line (no closing quotation): 'server \"x'\n"
    assert not (tmp_path / "replays").exists()


@pytest.mark.parametrize("where", ["first line", "later line"])
def test_a_json_line_nested_thousands_deep_is_not_a_readable_trace(
    where: str,
    recorded: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trace = tmp_path / "deep.jsonl"
    if where == "first line":
        trace.write_text(DEEP + "\n")
    else:
        lines = recorded.read_text().splitlines(keepends=True)
        trace.write_text("".join([lines[0], DEEP + "\n", *lines[1:]]))

    for command in ("show", "replay"):
        code, out, err = in_process(
            "trace", command, str(trace), cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch
        )

        assert code == 2, err
        assert out == ""
        assert err == f"error: {trace} is not a readable trace: a line nests JSON values too deeply\n"


# -- .env as compose and python-dotenv read it ----------------------------------------------------

COMPOSE_ENV = """\
# written for docker compose
export OPENAI_BASE_URL_FOR_OTHER_TOOL=http://localhost:11434/v1
CA_BUNDLE="-----BEGIN CERTIFICATE-----
MIIBszCCAVmgAwIBAgIU
-----END CERTIFICATE-----"
GREETING='hello # not a comment'
K8S_AGENT_MAX_REPEATS=3 # after the multi-line value
"""


def test_a_compose_env_file_with_a_multi_line_value_is_read_and_max_steps_takes_1e3(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(COMPOSE_ENV)

    done = ask(DEFAULT_QUESTION, "--quiet", "--max-steps", "1e3", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    (trace,) = traces(tmp_path)
    assert trace[0]["budgets"]["max_steps"] == 1000
    assert trace[0]["budgets"]["max_repeats"] == 3


def test_a_line_that_cannot_be_read_fails_only_in_an_env_file_that_was_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = 'K8S_AGENT_MAX_STEPS=0\nNOT A SETTING\nTOKEN="never closed\n'
    (tmp_path / ".env").write_text(broken)
    (tmp_path / "named.env").write_text(broken.replace("K8S_AGENT_MAX_STEPS=0\n", ""))

    found, _, found_err = in_process(
        "ask", DEFAULT_QUESTION, cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch
    )
    named, _, named_err = in_process(
        "ask",
        DEFAULT_QUESTION,
        "--env-file",
        "named.env",
        cwd=tmp_path,
        capsys=capsys,
        monkeypatch=monkeypatch,
    )

    # The .env found in the folder is read for what it holds: the one setting in it is checked ...
    assert found == 2
    assert found_err.splitlines()[0] == (
        "error: max-steps must be at least 1 (from K8S_AGENT_MAX_STEPS in .env; flag --max-steps)"
    )
    # ... and the file named on the command line must be readable to the end.
    assert named == 2
    assert named_err.splitlines()[0] == "error: named.env:1: expected KEY=VALUE"


def test_max_steps_that_is_not_a_whole_number_says_so(tmp_path: Path) -> None:
    fraction = cli("ask", DEFAULT_QUESTION, "--max-steps", "2.5", cwd=tmp_path)
    replayed = cli("trace", "replay", "x.jsonl", "--max-steps", "2.5", cwd=tmp_path)

    assert fraction.returncode == 2
    assert fraction.stderr.splitlines()[0] == "error: max-steps must be a whole number, got '2.5'"
    assert replayed.returncode == 2
    assert replayed.stderr.splitlines()[0] == "error: argument --max-steps: must be a whole number, got '2.5'"


@pytest.mark.parametrize(
    ("command", "flag"),
    [
        (("ask", DEFAULT_QUESTION), ("--api-k", "sk-x")),  # a prefix of --api-key
        (("ask", DEFAULT_QUESTION), ("--max-step", "3")),  # of --max-steps
        (("compare",), ("--scen", "c1-forced-first-step")),  # of --scenario
        (("trace", "replay", "x.jsonl"), ("--keep", "3")),  # of --keep-traces
    ],
)
def test_a_flag_is_taken_only_as_spelled_in_full(
    command: tuple[str, ...], flag: tuple[str, ...], tmp_path: Path
) -> None:
    done = cli(*command, *flag, cwd=tmp_path)

    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[0].startswith(f"error: unrecognized arguments: {flag[0]}")
    assert not (tmp_path / "traces").exists()  # nothing ran


def test_a_bad_value_from_the_environment_names_the_variable_and_the_flag(tmp_path: Path) -> None:
    done = cli("ask", DEFAULT_QUESTION, cwd=tmp_path, env={"K8S_AGENT_MAX_STEPS": "many"})

    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        "error: max-steps must be a number, got 'many' (from K8S_AGENT_MAX_STEPS in the environment; "
        "flag --max-steps)"
    )


# -- what reaches the terminal --------------------------------------------------------------------


def test_a_huge_question_is_clipped_in_the_progress_line_and_kept_whole_in_the_trace(tmp_path: Path) -> None:
    question = "Which pods are unhealthy? " + "x" * 128_000

    done = ask(question, cwd=tmp_path)

    first = done.stderr.splitlines()[0]
    assert first.startswith("k8s-agent · handwritten agent · model offline · question: Which pods")
    assert len(first) < 300 and first.endswith("…")
    assert len(done.stderr) < 2_000
    (trace,) = traces(tmp_path)
    assert trace[0]["question"] == question


def test_bidi_controls_from_a_model_or_a_question_reach_no_terminal_raw(tmp_path: Path) -> None:
    from k8s_agent_scripted_llm import ScriptedModelServer, call, text

    answer = f"payment-service is down: see the file {RLO}gnp.exe, and \x9b31m C1 too."

    def run(*flags: str) -> tuple[int, str, str]:
        script = [call("list_pods", namespace="production"), text(answer)]
        with ScriptedModelServer(script) as server:
            done = ask(
                f"Which pods are unhealthy? {RLO}txt.exe",
                *("--base-url", server.url, "--model", "scripted", "--api-key", "sk-test-1"),
                *("--report-format", "prose", "--accept-unverified", *flags),
                cwd=tmp_path,
            )
        return done.returncode, done.stdout, done.stderr

    for flags in ((), ("--markdown",), ("--json",)):
        code, out, err = run(*flags)
        assert code == 0, err
        assert RLO not in out + err and "\x9b" not in out + err
        assert "\\u202e" in out and "\\u202etxt.exe" in err  # shown, as an escape
        if flags == ("--json",):
            assert json.loads(out)["answer"] == answer  # the same value, escaped


def test_trace_show_prints_bidi_controls_of_a_tool_result_as_escapes(recorded: Path, tmp_path: Path) -> None:
    trace = copy_of(recorded, tmp_path)
    lines = read_jsonl(trace)
    call = next(e for e in lines if e["kind"] == "tool_call")
    call["result"] = f"log line {RLO}gnp.exe \u2066isolate\u2069"
    call["tool"] = f"list_pods{RLO}"
    trace.write_text("".join(json.dumps(event) + "\n" for event in lines), encoding="utf-8")

    done = cli("trace", "show", str(trace), "--full", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert RLO not in done.stdout and "\u2066" not in done.stdout
    assert "log line \\u202egnp.exe \\u2066isolate\\u2069" in done.stdout


def test_progress_lines_escape_bidi_controls_and_count_one_line_in_the_singular() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, environ={})
    huge = events.ToolCall(
        request_id="c1",
        tool=f"get_pod_logs{RLO}",
        arguments={"name": f"api{RLO}"},
        fingerprint="f",
        outcome=Outcome.EXECUTED,
        result="excerpt",
        handle="r1",
        full_result="{" + '"x": 1, ' * 10_000 + "}",  # one line of JSON, too large for the model
    )

    printer(huge)

    line = stream.getvalue()
    assert RLO not in line
    assert line.startswith("  ✓ get_pod_logs\\u202e(name=api\\u202e): 1 line, too large: stored as r1")


# -- the trace folder and `last` --------------------------------------------------------------------


def test_a_trace_folder_that_is_a_file_is_exit_2_and_no_trace_path_is_printed(tmp_path: Path) -> None:
    (tmp_path / "traces").write_text("a file, not a folder\n")
    done = ask(DEFAULT_QUESTION, cwd=tmp_path)
    assert done.returncode == 2 and "is a file: --trace-dir names a folder" in done.stderr
    assert "trace:" not in done.stderr and "warning" not in done.stderr and done.stdout == ""


def test_a_refused_run_leaves_no_trace_and_a_trace_of_a_run_that_never_started_is_not_last(
    recorded: Path, tmp_path: Path
) -> None:
    (tmp_path / "traces").mkdir()
    shutil.copy(recorded, tmp_path / "traces" / recorded.name)
    refused = ask(DEFAULT_QUESTION, "--max-steps", "many", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stderr == "error: max-steps must be a number, got 'many'\n"
    assert [p.name for p in (tmp_path / "traces").iterdir()] == [recorded.name]
    # A trace whose run_start names no model is of a run that never started (a trace folder may hold
    # such traces, from k8s-agent versions that wrote one for refused input): never `last`.
    start, *_, end = read_jsonl(recorded)
    never_started = [{**start, "model": None, "question": "never started"}, end]
    (tmp_path / "traces" / "99991231T235959Z-handwritten-000000000000.jsonl").write_text(
        "".join(json.dumps(event) + "\n" for event in never_started)
    )
    shown = cli("trace", "show", "last", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "list_pods" in shown.stdout and "never started" not in shown.stdout
