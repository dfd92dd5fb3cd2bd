"""`k8s-agent contract` end to end: our two agents and the plain SDK, black-box, as a user runs it.

One run of the command (a subprocess, no key) serves the module: its exit status, its markdown,
its JSON and its HTML (rendered in headless Chromium). Our agents must hold every item; the plain
SDK's verdicts are what its defaults do, each with the evidence the judge found on the wire.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from k8s_agent import scenarios
from k8s_agent.scenarios import REPORT
from tests.browser import CHROMIUM, chromium
from tests.processes import HANG_SECONDS, alive, clean_env, k8s_agent, wait_until

SUBJECTS = ("handwritten", "sdk", "plain-sdk")


@dataclass(frozen=True)
class Ran:
    done: subprocess.CompletedProcess[str]
    report: dict[str, Any]
    page: Path


def contract(*args: str, cwd: Path, timeout: float = HANG_SECONDS) -> subprocess.CompletedProcess[str]:
    return k8s_agent("contract", *args, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    folder = tmp_path_factory.mktemp("contract")
    named = [argument for subject in SUBJECTS for argument in ("--subject", subject)]
    done = contract(
        *named, "--out", "report.json", "--out", "report.html", "--work-dir", str(folder / "runs"), cwd=folder
    )
    return Ran(done, json.loads((folder / "report.json").read_text()), folder / "report.html")


def verdicts(ran: Ran, subject: str) -> dict[str, str]:
    entry = next(s for s in ran.report["subjects"] if s["subject"] == subject)
    return dict(entry["verdicts"])


def judgement(ran: Ran, subject: str, item: str) -> dict[str, Any]:
    entry = next(s for s in ran.report["subjects"] if s["subject"] == subject)
    return next(j for j in entry["judgements"] if j["item"] == item)


def test_by_default_the_subjects_are_our_two_agents_and_the_exit_status_gates(tmp_path: Path) -> None:
    """With no --subject the command judges handwritten and sdk only: exit 0 when they hold."""
    (tmp_path / "tmp").mkdir()
    done = k8s_agent(
        "contract", "--scenario", "c7-step-budget", "--format", "json", cwd=tmp_path,
        env={"TMPDIR": str(tmp_path / "tmp")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert [s["subject"] for s in json.loads(done.stdout)["subjects"]] == ["handwritten", "sdk"]
    assert list((tmp_path / "tmp").iterdir()) == []  # the runs' files went with the command


def test_the_runs_folder_is_named_only_when_it_is_kept(tmp_path: Path) -> None:
    (tmp_path / "tmp").mkdir()
    one = ("--subject", "handwritten", "--scenario", "c1-forced-first-step")

    removed = k8s_agent(
        "contract", *one, "--out", "removed.md", "--out", "removed.json", cwd=tmp_path, timeout=600,
        env={"TMPDIR": str(tmp_path / "tmp")},
    )  # fmt: skip
    kept = contract(*one, "--work-dir", "runs", "--out", "kept.json", cwd=tmp_path)

    assert removed.returncode == 0, removed.stderr[-2000:]
    assert list((tmp_path / "tmp").iterdir()) == []  # the temporary folder went with the command
    for shown in (removed.stdout, removed.stderr, (tmp_path / "removed.md").read_text()):
        assert str(tmp_path / "tmp") not in shown
    assert "; the runs' files were not kept (--work-dir DIR keeps them)." in removed.stdout
    assert (tmp_path / "removed.md").read_text() == removed.stdout
    report = json.loads((tmp_path / "removed.json").read_text())
    assert (
        report["workdir"] is None and report["subjects"][0]["runs"]["c1-forced-first-step"]["workdir"] is None
    )
    assert kept.returncode == 0, kept.stderr[-2000:]
    assert "; each run's files in runs." in kept.stdout
    run = json.loads((tmp_path / "kept.json").read_text())["subjects"][0]["runs"]["c1-forced-first-step"]
    assert (tmp_path / run["workdir"]).is_dir()


def test_our_agents_hold_every_item_and_the_command_exits_5_because_the_plain_sdk_does_not(ran: Ran) -> None:
    assert ran.done.returncode == 5, ran.done.stderr[-2000:]
    assert [s["subject"] for s in ran.report["subjects"]] == list(SUBJECTS)
    for ours in ("handwritten", "sdk"):
        assert set(verdicts(ran, ours).values()) == {"holds"}, verdicts(ran, ours)
    assert "18 scenarios x 3 subjects" in ran.done.stdout
    assert ran.done.stdout.splitlines()[0] == "| item | behaviour | handwritten | sdk | plain-sdk |"


@pytest.fixture(scope="module")
def ran_over_http(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    folder = tmp_path_factory.mktemp("contract-http")
    named = [argument for subject in SUBJECTS for argument in ("--subject", subject)]
    done = contract(
        *named, "--mcp-transport", "streamable-http", "--jobs", "3", "--out", "report.json",
        "--work-dir", str(folder / "runs"), cwd=folder,
    )  # fmt: skip
    return Ran(done, json.loads((folder / "report.json").read_text()), folder / "report.html")


def test_over_one_shared_http_server_every_subject_is_judged_as_over_stdio(
    ran: Ran, ran_over_http: Ran
) -> None:
    """One mock cluster for all 48 runs, each at its own URL: the same verdicts, and each run the
    same requests, server calls and answer as on a stdio server of its own."""
    assert ran_over_http.done.returncode == ran.done.returncode == 5, ran_over_http.done.stderr[-2000:]
    for subject in SUBJECTS:
        assert verdicts(ran_over_http, subject) == verdicts(ran, subject), subject
        over_http = next(s for s in ran_over_http.report["subjects"] if s["subject"] == subject)["runs"]
        over_stdio = next(s for s in ran.report["subjects"] if s["subject"] == subject)["runs"]
        fields = ("requests", "server_calls", "steps_left", "extra_requests", "answer", "error")
        for scenario, run in over_stdio.items():
            assert {f: over_http[scenario][f] for f in fields} == {f: run[f] for f in fields}, (
                subject,
                scenario,
            )
    logs = list((Path(ran_over_http.report["workdir"])).glob("server*/calls.jsonl"))
    assert len(logs) == 3  # one server for the read-only scenarios, one with write tools, one with secrets
    clients = {json.loads(line)["client"] for log in logs for line in log.read_text().splitlines()}
    assert {client.split("--")[0] for client in clients} == set(SUBJECTS)


def test_the_plain_sdk_s_defaults_are_judged_from_the_wire_with_their_evidence(ran: Ran) -> None:
    plain = verdicts(ran, "plain-sdk")

    assert plain["C9"] == "holds"  # a failing tool comes back as a result
    assert plain["C11"] == plain["C12"] == "not observable"  # it declares no structured report
    assert {item for item, verdict in plain.items() if verdict == "fails"} == {
        "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C10", "C13", "C14",
    }  # fmt: skip
    first = judgement(ran, "plain-sdk", "C1")["violations"]
    assert len(first) == 18  # every scenario's first request, each reported
    leaks = {v["summary"] for v in judgement(ran, "plain-sdk", "C14")["violations"]}
    assert leaks == {f"{what} reached the model" for what in scenarios.SECRETS}  # results are not redacted
    assert first[0]["evidence"] == ['request 1: tools 9, tool_choice "absent"']
    duplicates = judgement(ran, "plain-sdk", "C4")["violations"][0]
    assert duplicates["evidence"] == ['server received list_pods({"namespace": "production"})'] * 3
    step_limit = judgement(ran, "plain-sdk", "C7")
    assert (
        step_limit["violations"][0]["summary"]
        == "the run ended with an error at the step limit, not a summary"
    )
    assert "MaxTurnsExceeded" in step_limit["violations"][0]["evidence"][-1]
    unknown = judgement(ran, "plain-sdk", "C6")["violations"][0]
    assert "ModelBehaviorError" in unknown["evidence"][-1]  # the run died on the unknown tool
    write = judgement(ran, "plain-sdk", "C13")["violations"]
    assert write[0]["summary"] == "tools that change the cluster are offered: delete_pod, restart_pod"
    assert write[1]["evidence"] == [
        'server received delete_pod({"name": "payment-service-6f7b8d9c8-ghj56", "namespace": "production"})'
    ]
    runs = next(s for s in ran.report["subjects"] if s["subject"] == "plain-sdk")["runs"]
    assert runs["c2-zero-tool-pushback"]["requests"] == 1 and runs["c2-zero-tool-pushback"]["steps_left"] == 1
    for failure in ("C1", "C2", "C4", "C7"):
        assert f"**plain-sdk {failure}**" in ran.done.stdout  # the markdown lists each failure's evidence


class Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str, str]] = []
        self._item = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "tr" and found.get("data-item"):
            self._item = str(found["data-item"])
        if tag == "td" and found.get("data-verdict"):
            self.cells.append((self._item, str(found["data-subject"]), str(found["data-verdict"])))


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_headless_chromium_renders_the_matrix_with_each_cell_opening_its_evidence(
    ran: Ran, tmp_path: Path
) -> None:
    dumped = chromium(ran.page, tmp_path / "profile", "--dump-dom")

    assert dumped.returncode == 0, dumped.stderr[-1000:]
    parser = Cells()
    parser.feed(dumped.stdout)
    assert len(parser.cells) == 14 * len(SUBJECTS)
    rendered = {(item, subject): verdict for item, subject, verdict in parser.cells}
    for subject in SUBJECTS:
        for item, verdict in verdicts(ran, subject).items():
            assert rendered[(item, subject)] == verdict
    assert dumped.stdout.count("<details>") == 14 * len(SUBJECTS)
    assert 'server received list_pods({"namespace": "production"})' in dumped.stdout
    assert "<script" not in ran.page.read_text() and "http" not in ran.page.read_text().split("<body>")[0]


def test_any_cli_agent_runs_through_agent_cmd_with_its_placeholders(tmp_path: Path) -> None:
    ours = (
        f"{sys.executable} -m k8s_agent ask {{question}} --base-url {{base_url}} --api-key {{api_key}} "
        "--model {model} --mcp-command {mcp_command} --max-steps {max_steps} --max-repeats {max_repeats} "
        "--report-format {report_format} --accept-unverified --trace-dir {workdir} -q"
    )

    done = contract(
        "--agent-cmd", ours, "--agent-name", "our-cli", "--agent-report", "structured",
        "--scenario", "c6-unknown-tool", "--scenario", "c7-step-budget", "--scenario", "c12-unverified-kept",
        "--format", "json", cwd=tmp_path,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    (subject,) = json.loads(done.stdout)["subjects"]
    assert subject["subject"] == "our-cli" and subject["description"].startswith("command: ")
    assert subject["verdicts"]["C6"] == subject["verdicts"]["C7"] == subject["verdicts"]["C12"] == "holds"
    assert subject["verdicts"]["C2"] == "not observable"  # its scenario was not run
    assert REPORT in subject["runs"]["c6-unknown-tool"]["answer"]  # the answer is the command's stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--subject", "langchain"), "unknown subject 'langchain'"),
        (("--agent-cmd", "x {nope}"), "--agent-cmd names an unknown placeholder 'nope'"),
        (("--agent-cmd", "x 'unclosed"), "--agent-cmd is not a valid command line"),
        (("--scenario", "c99"), "unknown contract scenario c99"),
        (("--agent-name", "a"), "--agent-name names more subjects than there are --agent-cmd"),
        (("--subject", "mutant:nope"), "unknown mutant 'nope'"),
        (("--mutants", "--subject", "sdk"), "--mutants runs its own subjects"),
        (
            ("--mcp-transport", "streamable-http", "--agent-cmd", "x --mcp {mcp_command}"),
            "--agent-cmd names {mcp_command}, but this contract serves the mock cluster over Streamable HTTP",
        ),
        (("--agent-cmd", "x --mcp {mcp_url}"), "--agent-cmd names {mcp_url}, but this contract serves"),
        (("--stream", "yes", "--subject", "plain-sdk"), "--stream yes: not for plain-sdk"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str, tmp_path: Path) -> None:
    done = contract(*args, cwd=tmp_path)

    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_our_agents_asked_to_stream_hold_every_item_of_the_judged_scenarios(tmp_path: Path) -> None:
    scenarios = ["c3-schema-rejection", "c8-invalid-json", "c10-mixed-round", "c12-unverified-kept"]
    picked = [argument for name in scenarios for argument in ("--scenario", name)]
    done = contract("--stream", "yes", *picked, "--format", "json", "--work-dir", "runs", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["stream"] is True
    for subject in report["subjects"]:
        assert set(subject["verdicts"].values()) <= {"holds", "not observable"}, subject["verdicts"]
    traces = sorted((tmp_path / "runs").glob("*/*/2*.jsonl"))  # each run's trace, named by its time
    assert len(traces) == 2 * len(scenarios)
    for trace in traces:
        start = json.loads(trace.read_text().splitlines()[0])
        assert start["kind"] == "run_start" and start["stream"] is True


SLOW_AGENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
open(sys.argv[1], "w").write(f"{child.pid}\\n")
time.sleep(120)
"""


def test_ctrl_c_ends_the_run_with_130_and_kills_the_subject_and_its_children(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(SLOW_AGENT)
    pids = tmp_path / "pids"
    clean = clean_env()
    (tmp_path / "tmp").mkdir()
    clean["TMPDIR"] = str(tmp_path / "tmp")
    process = subprocess.Popen(
        [sys.executable, "-m", "k8s_agent", "contract", "--scenario", "c9-tool-failure",
         "--agent-cmd", f"{sys.executable} {tmp_path / 'agent.py'} {pids}", "-q"],
        cwd=tmp_path, env=clean, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        wait_until(
            lambda: pids.exists() and pids.read_text().endswith("\n"), "the agent started its child", process
        )
        child = int(pids.read_text())
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=HANG_SECONDS)
    finally:
        process.kill()

    assert process.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr
    assert list((tmp_path / "tmp").iterdir()) == []  # the runs' temporary folder went too
    wait_until(lambda: not alive(child), "the subject's child gone")  # SIGKILL is asynchronous
