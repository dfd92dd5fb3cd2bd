"""What stays on disk stays private: every file k8s-agent writes that can hold what the cluster showed
(traces, saved reports, eval results) or a credential (a kubeconfig, a server's settings) is 0600, and
every folder it creates for one is 0700, whatever the umask; a folder that was there keeps its mode.

The umask is the process's, so these runs start `python -m k8s_agent` cold with the umask set (a run
forked from the session's warm `k8s-agent` has that process's umask, not the one a test asks for).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from k8s_agent_harness.cluster.servers import ServerLaunch
from k8s_agent_harness.traces.private import open_private, private_dirs, write_private
from k8s_agent_harness.traces.trace import RUN_TRACE
from k8s_agent_mock_cluster import default_fixture_path
from tests.processes import HANG_SECONDS, clean_env, k8s_agent

QUESTION = "Which pods in the production namespace are unhealthy, and why?"
UMASKS = [pytest.param(0o022, id="umask-022"), pytest.param(0o000, id="umask-000")]


def cold(
    *args: str, cwd: Path, umask: int, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m k8s_agent ARGS` started cold in `cwd` with `umask`, in a clean environment."""
    return subprocess.run(
        [sys.executable, "-m", "k8s_agent", *args],
        cwd=cwd,
        env=clean_env(env),
        umask=umask,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        check=False,
    )


def mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


def below(folder: Path) -> Iterator[Path]:
    """`folder` and everything under it."""
    yield folder
    yield from folder.rglob("*")


def run_traces(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*.jsonl") if RUN_TRACE.match(path.name)]


def user_folder(path: Path, was: int) -> Path:
    """A folder of the user's, there before the run, with mode `was` (set whatever the umask)."""
    path.mkdir(parents=True)
    path.chmod(was)
    return path


@pytest.mark.parametrize("umask", UMASKS)
def test_ask_makes_its_trace_folders_0700_and_its_trace_0600(umask: int, tmp_path: Path) -> None:
    mine = user_folder(tmp_path / "mine", 0o755)
    state = mine / "state"  # $XDG_STATE_HOME, not there yet: ask makes it, and k8s-agent/traces in it

    done = cold("ask", QUESTION, cwd=tmp_path, umask=umask, env={"XDG_STATE_HOME": str(state)})

    assert done.returncode == 0, done.stderr[-2000:]
    folder = state / "k8s-agent" / "traces"
    (trace,) = folder.iterdir()
    assert RUN_TRACE.match(trace.name) and trace.read_text(encoding="utf-8").count("\n") > 3
    assert {str(path.relative_to(mine)): mode(path) for path in below(state)} == {
        "state": "0o700",
        "state/k8s-agent": "0o700",
        "state/k8s-agent/traces": "0o700",
        f"state/k8s-agent/traces/{trace.name}": "0o600",
    }
    assert mode(mine) == "0o755"  # the user's folder is left as it was


def test_a_trace_folder_that_exists_keeps_its_mode_and_the_trace_in_it_is_0600(tmp_path: Path) -> None:
    traces = user_folder(tmp_path / "traces", 0o775)

    done = cold("ask", QUESTION, "--trace-dir", str(traces), cwd=tmp_path, umask=0o000)

    assert done.returncode == 0, done.stderr[-2000:]
    (trace,) = traces.iterdir()
    assert (mode(traces), mode(trace)) == ("0o775", "0o600")


def test_a_replay_writes_its_folders_0700_and_its_trace_0600(tmp_path: Path) -> None:
    asked = k8s_agent("ask", QUESTION, cwd=tmp_path, env={"K8S_AGENT_TRACE_DIR": "traces"})
    assert asked.returncode == 0, asked.stderr[-2000:]
    (recorded,) = (tmp_path / "traces").iterdir()

    done = cold(
        "trace", "replay", str(recorded), "--trace-dir", "replays/new", "--json", cwd=tmp_path, umask=0o000
    )

    assert done.returncode == 0, done.stderr[-2000:]
    replays = tmp_path / "replays"
    (replay,) = run_traces(replays)
    folders = {mode(path) for path in below(replays) if path.is_dir()}
    assert folders == {"0o700"} and mode(replay) == "0o600"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """One incident of the shipped fixture, with nothing broken in its namespace: a quick eval."""
    incident = tmp_path / "corpus" / "staging"
    incident.mkdir(parents=True)
    shutil.copy(default_fixture_path(), incident / "cluster.json")
    truth = {"question": "Which pods in the staging namespace are unhealthy, and why?", "unhealthy": []}
    (incident / "truth.json").write_text(json.dumps({**truth, "summary": "nothing broken"}))
    return incident.parent


def test_eval_writes_its_results_traces_and_reports_0600_in_folders_it_makes_0700(
    corpus: Path, tmp_path: Path
) -> None:
    done = cold(
        "eval", "--corpus", str(corpus), "--impl", "handwritten", "--no-baselines", "-q",
        "--results", "results/r.jsonl", "--out", "reports/r.json", "--out", "reports/r.md",
        cwd=tmp_path, umask=0o000,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    results, reports = tmp_path / "results", tmp_path / "reports"
    assert run_traces(results / "r-traces")  # the run's trace, below the results' folder
    written = [*below(results), *below(reports)]
    assert {str(p.relative_to(tmp_path)): mode(p) for p in written if p.is_file()} == {
        **{str(p.relative_to(tmp_path)): "0o600" for p in run_traces(results)},
        "results/r.jsonl": "0o600",
        "reports/r.json": "0o600",
        "reports/r.md": "0o600",
    }
    assert {mode(path) for path in written if path.is_dir()} == {"0o700"}


def test_eval_merge_and_report_make_the_files_they_rewrite_0600(corpus: Path, tmp_path: Path) -> None:
    ran = k8s_agent(
        "eval", "--corpus", str(corpus), "--impl", "handwritten", "--no-baselines", "-q",
        "--results", "r.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    merged, page = tmp_path / "merged.jsonl", tmp_path / "page.html"
    for old in (merged, page):  # files of the user's, readable by all: each becomes private when rewritten
        old.write_text("old\n")
        old.chmod(0o644)

    merging = k8s_agent("eval", "merge", "r.jsonl", "--out", "merged.jsonl", cwd=tmp_path)
    reporting = k8s_agent(
        "eval", "report", "merged.jsonl", "--corpus", str(corpus), "--out", "page.html", cwd=tmp_path
    )

    assert merging.returncode == 0, merging.stderr[-2000:]
    assert reporting.returncode == 0, reporting.stderr[-2000:]
    assert [json.loads(line)["key"] for line in merged.read_text().splitlines()] == [
        json.loads(line)["key"] for line in (tmp_path / "r.jsonl").read_text().splitlines()
    ]
    assert page.read_text().startswith("<!doctype html>")
    assert (mode(merged), mode(page)) == ("0o600", "0o600")


def test_contract_writes_its_report_0600_and_makes_its_folders_0700(tmp_path: Path) -> None:
    done = cold(
        "contract", "--subject", "handwritten", "--scenario", "c1-forced-first-step",
        "--out", "reports/card.json", "--work-dir", "runs/kept", cwd=tmp_path, umask=0o000,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    report = tmp_path / "reports" / "card.json"
    assert json.loads(report.read_text())["subjects"] and mode(report) == "0o600"
    assert mode(report.parent) == "0o700"
    runs = tmp_path / "runs"
    (trace,) = run_traces(runs)
    assert mode(trace) == "0o600"
    assert {mode(path) for path in below(runs) if path.is_dir()} == {"0o700"}


def test_compare_writes_its_report_and_traces_0600_in_folders_0700(tmp_path: Path) -> None:
    state = tmp_path / "state"

    done = cold(
        "compare", "--scenario", "c1-forced-first-step", "--out", "reports/compare.html", "-q",
        cwd=tmp_path, umask=0o000, env={"XDG_STATE_HOME": str(state)},
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    report = tmp_path / "reports" / "compare.html"
    assert (mode(report.parent), mode(report)) == ("0o700", "0o600")
    traces = run_traces(state)
    assert len(traces) >= 2 and {mode(trace) for trace in traces} == {"0o600"}
    assert {mode(path) for path in below(state) if path.is_dir()} == {"0o700"}


@pytest.mark.parametrize("umask", UMASKS)
def test_files_written_for_a_server_are_0600_in_cache_folders_made_0700(umask: int, tmp_path: Path) -> None:
    """The small kubeconfig that selects `--context`, and kubernetes-mcp-server's settings: written by
    the run, in process, into the cache (`K8S_AGENT_CACHE`)."""
    cache = tmp_path / "cache"
    override = cache / "contexts" / "0123456789abcdef.yaml"
    settings = cache / "kubernetes-mcp-server" / "k8s-agent.toml"
    launch = ServerLaunch(
        ("server",), files={override: "current-context: prod\n", settings: "read_only = true\n"}
    )
    previous = os.umask(umask)
    try:
        launch.prepare()
    finally:
        os.umask(previous)

    assert {str(path.relative_to(tmp_path)): mode(path) for path in below(cache)} == {
        "cache": "0o700",
        "cache/contexts": "0o700",
        "cache/contexts/0123456789abcdef.yaml": "0o600",
        "cache/kubernetes-mcp-server": "0o700",
        "cache/kubernetes-mcp-server/k8s-agent.toml": "0o600",
    }
    assert override.read_text() == "current-context: prod\n"
    override.chmod(0o644)  # as an earlier version left it: the same content, readable by all

    launch.prepare()

    assert (mode(override), override.read_text()) == ("0o600", "current-context: prod\n")


def test_the_helpers_give_exactly_0600_and_0700_even_under_a_umask_that_takes_the_owner_s_bits(
    tmp_path: Path,
) -> None:
    controller, terminal = os.openpty()  # a terminal of this test's own, as `--out /dev/tty` would name
    os.chmod(os.ttyname(terminal), 0o620)  # as a login terminal is
    previous = os.umask(0o277)
    try:
        made = private_dirs(tmp_path / "a" / "b")
        write_private(tmp_path / "a" / "b" / "file", "text\n")
        with open_private(tmp_path / "a" / "b" / "file", "a") as appended:
            appended.write("more\n")
        with open_private(Path(os.ttyname(terminal)), "w") as shown:  # not a regular file: left as it is
            shown.write("shown\n")
        assert mode(Path(os.ttyname(terminal))) == "0o620"
    finally:
        os.umask(previous)
        os.close(terminal)
        os.close(controller)

    assert made == [tmp_path / "a", tmp_path / "a" / "b"]
    assert [mode(path) for path in made] == ["0o700", "0o700"]
    assert (tmp_path / "a" / "b" / "file").read_text() == "text\nmore\n"
    assert mode(tmp_path / "a" / "b" / "file") == "0o600"
    assert private_dirs(tmp_path / "a" / "b") == []  # there already: nothing made, nothing changed
