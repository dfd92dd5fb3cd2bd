"""`k8s-agent eval` as a user runs it: a subprocess, its exit status, its results file, its reports.

A small corpus is written per module from the shipped default fixture (two incidents and one broken
entry), so these tests do not depend on the shipped corpus; `test_shipped_corpus.py` runs that.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.scenarios import LOG_LINE, PAYMENT, finding, report_json
from k8s_agent_mock_cluster import default_fixture_path
from k8s_agent_scripted_llm import Reply, ScriptedModelServer, Step, call, hang, offline_model, text
from tests.browser import CHROMIUM, chromium
from tests.processes import HANG_SECONDS, interrupt, k8s_agent, running, start_cold, wait_until
from tests.wire import RateLimitedFirst

PRODUCTION = [
    ("payment-service-6f7b8d9c8-ghj56", "crash_config", LOG_LINE),
    ("inventory-service-59d8f7c6z-mnq98", "image_not_found", "manifest unknown"),
    ("order-service-7d4c9b8z7-stv44", "readiness_probe_failure", "Readiness probe failed: HTTP probe failed"),
    ("analytics-worker-5c8f9x7d2-vwx78", "insufficient_resources", "3 Insufficient memory"),
    ("search-indexer-8b2z7c6d4-wzz72", "insufficient_resources", "3 Insufficient cpu"),
]


def write_corpus(root: Path) -> Path:
    for name, question, unhealthy in (
        ("default-production", "Which pods in the production namespace are unhealthy, and why?", PRODUCTION),
        ("default-staging", "Which pods in the staging namespace are unhealthy, and why?", []),
    ):
        folder = root / name
        folder.mkdir(parents=True)
        shutil.copy(default_fixture_path(), folder / "cluster.json")
        truth = {
            "question": question,
            "summary": f"{len(unhealthy)} broken",
            "unhealthy": [
                {"kind": "pod", "name": pod, "namespace": "production", "cause": cause, "fact": fact}
                for pod, cause, fact in unhealthy
            ],
        }
        (folder / "truth.json").write_text(json.dumps(truth))
    (root / "broken-entry").mkdir()
    (root / "broken-entry" / "cluster.json").write_text("{not json")
    return root


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def offline(
    corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[subprocess.CompletedProcess[str], Path]:
    folder = tmp_path_factory.mktemp("offline")
    done = k8s_agent(
        "eval", "--corpus", str(corpus), "--results", "r.jsonl", "--out", "r.json", "--out", "r.html",
        "--concurrency", "4", cwd=folder,
    )  # fmt: skip
    return done, folder


def test_the_offline_model_is_scored_on_both_implementations_and_the_broken_entry_is_named(
    offline: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    done, folder = offline

    assert done.returncode == 0, done.stderr[-2000:]
    assert "skipped corpus entry broken-entry: cluster.json:" in done.stderr
    saved = [r for r in records(folder / "r.jsonl") if r["model"] == "offline"]
    assert sorted(r["key"] for r in saved) == sorted(
        f"{impl}|offline|{incident}|1"
        for impl in ("handwritten", "sdk")
        for incident in ("default-production", "default-staging")
    )
    assert all(Path(r["trace"]).is_file() and r["error"] is None for r in saved)
    digests = {r["incident"]: r["incident_digest"] for r in saved}
    assert len(set(digests.values())) == 2 and all(len(d) == 16 for d in digests.values())
    assert all(r["run"]["tool_calls_executed"] > 0 and "report" not in r["run"] for r in saved)  # to rescore
    report = json.loads((folder / "r.json").read_text())
    real = [g for g in report["groups"] if not g["baseline"]]
    assert [(g["impl"], g["model"], g["runs"], g["solved"]) for g in real] == [
        ("handwritten", "offline", 2, 2), ("sdk", "offline", 2, 2),
    ]  # fmt: skip
    assert report["groups"][: len(real)] == real  # the baselines, if any, come after: the floor
    assert report["baselines"] == [
        f"{impl} · baseline:{name}"
        for impl in ("handwritten", "sdk")
        for name in ("parrot", "rules", "status")
    ]  # every eval runs the three, once per incident and implementation
    assert {g["margin_over_best_baseline"]["baseline"].split(" · ")[0] for g in real} == {
        "handwritten",
        "sdk",
    }
    (pair,) = report["pairs"]
    assert pair["first_better"] == pair["second_better"] == [] and not pair["beyond_noise"]
    assert report["skipped"][0]["incident"] == "broken-entry"
    assert "| default-production |" in done.stdout and "✓ 1/1" in done.stdout


def test_the_responses_wire_is_scored_apart_and_merges_beside_chat(
    corpus: Path, offline: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path
) -> None:
    done = k8s_agent(
        "eval", "--corpus", str(corpus), "--api", "responses", "--results", "r.jsonl", "--concurrency", "4",
        cwd=tmp_path,
    )  # fmt: skip
    chat_results = offline[1] / "r.jsonl"
    merged = k8s_agent("eval", "merge", str(chat_results), "r.jsonl", "--out", "all.jsonl", cwd=tmp_path)
    report = k8s_agent(
        "eval", "report", "all.jsonl", "--corpus", str(corpus), "--format", "json", cwd=tmp_path
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert "the model on the responses API" in done.stderr
    saved = [r for r in records(tmp_path / "r.jsonl") if r["model"] == "offline"]
    assert {r["api"] for r in saved} == {"responses"} and all(r["key"].endswith("|responses") for r in saved)
    for record in saved:  # each run was asked for the Responses API and its requests went there
        lines = [json.loads(line) for line in Path(record["trace"]).read_text().splitlines()]
        assert lines[0]["api"] == "responses"
        wires = {line["api"] for line in lines if line["kind"] == "model_request"}  # from the URL path
        assert wires == {"responses"}
    assert merged.returncode == 0 and report.returncode == 0, merged.stderr + report.stderr
    groups = {(g["impl"], g["model"]): g for g in json.loads(report.stdout)["groups"] if not g["baseline"]}
    assert set(groups) == {
        (impl, model) for impl in ("handwritten", "sdk") for model in ("offline", "offline on responses")
    }
    assert all(group["solved"] == 2 for group in groups.values())


def test_a_server_per_run_scores_what_one_shared_server_per_incident_scores(
    offline: tuple[subprocess.CompletedProcess[str], Path], corpus: Path, tmp_path: Path
) -> None:
    shared_done, shared_folder = offline
    done = k8s_agent(
        "eval", "--corpus", str(corpus), "--results", "r.jsonl", "--server-per-run", "--concurrency", "4",
        cwd=tmp_path,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    assert (
        "one MCP server per incident" in shared_done.stderr and "each run its own MCP server" in done.stderr
    )

    def comparable(folder: Path) -> dict[str, Any]:
        """Each run as scored, but its time and the call ids (the shared offline model numbers its
        calls across the runs it answers, in the order they come), and so the sizes the ids' digits
        change (bytes and tokens sent)."""
        kept = {}
        for r in records(folder / "r.jsonl"):
            for cost in ("wall_seconds", "bytes_sent", "prompt_tokens", "completion_tokens", "total_tokens"):
                r["score"]["costs"].pop(cost, None)
            said = re.sub(r"call_\d+", "call_N", json.dumps([r["report"], r["answer"]]))
            kept[r["key"]] = (r["score"], said, r["run"]["tool_calls_executed"], r["error"])
        return kept

    assert comparable(tmp_path) == comparable(shared_folder)
    starts = {
        json.loads(Path(r["trace"]).read_text().splitlines()[0])["mcp_url"] is None
        for r in records(tmp_path / "r.jsonl")
    }
    shared_starts = {
        json.loads(Path(r["trace"]).read_text().splitlines()[0])["mcp_url"].startswith("http://127.0.0.1:")
        for r in records(shared_folder / "r.jsonl")
    }
    assert starts == shared_starts == {True}


def bad_sre(report: str) -> Any:
    """A model that lists the pods once, then answers `report` whatever it is told."""

    def respond(body: dict[str, Any]) -> Step:
        if not any(m.get("role") == "tool" for m in body["messages"]):
            return call("list_pods", namespace="production")
        return text(report)

    return respond


WRONG_POD = report_json(finding("checkout-service-7f6d5c4b4-zbc72", LOG_LINE))
INVENTED = report_json(finding(PAYMENT, LOG_LINE), finding("billing-api-7d8f9c6b5-xk2lm", "OOMKilled"))
ALL_HEALTHY = report_json(healthy=7)


@pytest.mark.parametrize(
    ("report", "expect"),
    [
        (WRONG_POD, {"recall": 0.0, "precision": 0.0}),
        (INVENTED, {"recall": 0.2, "precision": 0.5}),
        (ALL_HEALTHY, {"recall": 0.0, "precision": None}),
    ],
    ids=["wrong-pod", "invented-pod", "all-healthy"],
)
def test_models_that_name_the_wrong_pod_invent_one_or_see_nothing_score_low(
    report: str, expect: dict[str, float], corpus: Path, tmp_path: Path
) -> None:
    with ScriptedModelServer(responder=bad_sre(report)) as server:
        done = k8s_agent(
            "eval", "--corpus", str(corpus), "--incident", "default-production", "--base-url", server.url,
            "--api-key", "scripted", "--model", "scripted", "--report-format", "json_text", "--no-baselines",
            "--results", "r.jsonl", "--format", "json", cwd=tmp_path,
        )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    groups = [g for g in json.loads(done.stdout)["groups"] if not g["baseline"]]
    assert [g["impl"] for g in groups] == ["handwritten", "sdk"]
    for group in groups:
        assert group["solved"] == 0
        for metric, value in expect.items():
            found = group["metrics"][metric]["mean"]
            assert found is None if value is None else found == pytest.approx(value), (metric, group)


def test_an_interrupted_eval_resumes_where_it_stopped_and_never_reruns_a_finished_run(
    offline: tuple[subprocess.CompletedProcess[str], Path], corpus: Path, tmp_path: Path
) -> None:
    lines = (offline[1] / "r.jsonl").read_text().splitlines()
    (tmp_path / "r.jsonl").write_text("\n".join(lines[:3]) + '\n{"kind": "k8s-agent-eval-run", "ver')  # torn

    refused = k8s_agent("eval", "--corpus", str(corpus), "--results", "r.jsonl", cwd=tmp_path)
    resumed = k8s_agent("eval", "--corpus", str(corpus), "--results", "r.jsonl", "--resume", cwd=tmp_path)

    assert refused.returncode == 2 and "--resume continues it, --fresh replaces it" in refused.stderr
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"= {len(lines) - 3} runs (3 already in r.jsonl)" in resumed.stderr
    saved = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()[:3]]
    assert saved == [json.loads(line) for line in lines[:3]]  # the finished runs are kept as they were
    report = k8s_agent("eval", "report", "r.jsonl", "--corpus", str(corpus), "--format", "json", cwd=tmp_path)
    assert sum(g["runs"] for g in json.loads(report.stdout)["groups"]) == len(lines)
    assert "not a complete JSON line" in report.stderr or "not a complete JSON line" in report.stdout


def test_report_rescores_every_run_against_the_truth_now_and_names_what_changed_or_is_gone(
    offline: tuple[subprocess.CompletedProcess[str], Path], corpus: Path, tmp_path: Path
) -> None:
    shutil.copytree(corpus, tmp_path / "corpus")
    truth_file = tmp_path / "corpus" / "default-production" / "truth.json"
    truth = json.loads(truth_file.read_text())
    truth["unhealthy"][0]["cause"] = "oom_killed"  # the truth changed since the runs
    truth_file.write_text(json.dumps(truth))
    lines = (offline[1] / "r.jsonl").read_text().splitlines()
    retired = {
        **json.loads(lines[0]),
        "key": "handwritten|offline|retired-incident|1",
        "incident": "retired-incident",
    }
    (tmp_path / "r.jsonl").write_text("\n".join([*lines, json.dumps(retired)]) + "\n")

    done = k8s_agent(
        "eval", "report", "r.jsonl", "--corpus", "corpus", "--format", "json", "--out", "r.md", cwd=tmp_path
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    real = {g["impl"]: g for g in report["groups"] if g["model"] == "offline"}
    assert [real[impl]["solved"] for impl in ("handwritten", "sdk")] == [1, 1]  # stored: 2 each, rescored: 1
    assert set(report["changed_since_run"]) == {"default-production"}
    assert report["per_incident"]["default-staging"]["changed_since_run"] is None
    assert report["unknown_incidents"] == {"retired-incident": 1}
    assert report["rescored"]["verdicts_changed"] >= 2
    assert "note: default-production: the incident changed since" in done.stderr
    assert "retired-incident (1 run)" in done.stderr
    text = (tmp_path / "r.md").read_text()
    assert "## Incidents changed since their runs" in text and "- retired-incident: 1 run" in text
    assert "cause pod/payment-service-6f7b8d9c8-ghj56 (production): crash_config (want oom_killed)" in text
    merged = k8s_agent("eval", "merge", "r.jsonl", "--out", "all.jsonl", cwd=tmp_path)
    assert merged.returncode == 0 and records(tmp_path / "all.jsonl") == records(tmp_path / "r.jsonl")
    resumed = k8s_agent("eval", "--corpus", "corpus", "--results", "r.jsonl", "--resume", cwd=tmp_path)
    assert resumed.returncode == 2 and "holds runs of another version of 1 incident (default-production)" in (
        resumed.stderr
    )
    assert records(tmp_path / "r.jsonl") == records(tmp_path / "all.jsonl")  # nothing appended


def test_a_report_without_baselines_says_so_in_one_line(
    offline: tuple[subprocess.CompletedProcess[str], Path], corpus: Path, tmp_path: Path
) -> None:
    kept = [
        line for line in (offline[1] / "r.jsonl").read_text().splitlines() if '"model": "offline"' in line
    ]
    (tmp_path / "r.jsonl").write_text("\n".join(kept) + "\n")

    done = k8s_agent("eval", "report", "r.jsonl", "--corpus", str(corpus), cwd=tmp_path)

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("No baselines in these results") == 1 and "Floor:" not in done.stdout


def test_shards_split_the_corpus_and_merge_joins_them(corpus: Path, tmp_path: Path) -> None:
    first = k8s_agent(
        "eval",
        "--corpus",
        str(corpus),
        "--impl",
        "handwritten",
        "--no-baselines",
        "--shard",
        "1/2",
        "--results",
        "a.jsonl",
        cwd=tmp_path,
    )
    second = k8s_agent(
        "eval",
        "--corpus",
        str(corpus),
        "--impl",
        "handwritten",
        "--no-baselines",
        "--shard",
        "2/2",
        "--results",
        "b.jsonl",
        cwd=tmp_path,
    )
    merged = k8s_agent("eval", "merge", "a.jsonl", "b.jsonl", "--out", "all.jsonl", cwd=tmp_path)

    assert first.returncode == second.returncode == merged.returncode == 0, merged.stderr
    shards = [{r["incident"] for r in records(tmp_path / name)} for name in ("a.jsonl", "b.jsonl")]
    assert shards == [{"default-production"}, {"default-staging"}]
    assert {r["incident"] for r in records(tmp_path / "all.jsonl")} == shards[0] | shards[1]
    twice = k8s_agent(
        "eval", "merge", "a.jsonl", "./a.jsonl", "b.jsonl", "--out", "again.jsonl", cwd=tmp_path
    )
    assert twice.returncode == 0 and records(tmp_path / "again.jsonl") == records(tmp_path / "all.jsonl")
    assert twice.stderr.count("note:") == 1 and "a file named twice is read once" in twice.stderr
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    deep = k8s_agent("eval", "merge", "a.jsonl", "deep.jsonl", "--out", "deep-all.jsonl", cwd=tmp_path)
    assert deep.returncode == 0 and "nests JSON values too deeply (skipped)" in deep.stderr


def test_a_429_pauses_the_pool_for_its_retry_after_and_no_run_fails(corpus: Path, tmp_path: Path) -> None:
    limited = RateLimitedFirst(2)

    with ScriptedModelServer(responder=limited) as server:
        done = k8s_agent(
            "eval", "--corpus", str(corpus), "--base-url", server.url, "--api-key", "scripted",
            "--model", "scripted", "--max-retries", "0", "--no-baselines", "--results", "r.jsonl", "--format", "json",
            cwd=tmp_path,
        )  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    assert f"rate limited 2 times by {server.url}" in done.stderr
    assert all(r["error"] is None for r in records(tmp_path / "r.jsonl"))
    assert sum(g["solved"] for g in json.loads(done.stdout)["groups"] if g["model"] == "scripted") == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--repeat", "0"), "--repeat must be at least 1"),
        (("--shard", "3/2"), "--shard 3/2: i must be between 1 and n"),
        (("--impl", "langchain"), "unknown implementation 'langchain'"),
        (("--incident", "no-such-*"), "no incident matches no-such-*"),
        (("--model", "gpt-4o-mini"), "needs an endpoint"),
        (("--resume", "--fresh"), "give one"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: tuple[str, ...], message: str, corpus: Path, tmp_path: Path
) -> None:
    done = k8s_agent("eval", "--corpus", str(corpus), *args, cwd=tmp_path)

    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


class Rows(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.groups: list[str] = []
        self.floors: list[str] = []
        self.rows: list[list[str]] = []
        """Per incident, its cells' data-solved, in the column order (models, then baselines)."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "tr" and found.get("data-group"):
            self.groups.append(str(found["data-group"]))
        if tag == "tr" and found.get("data-floor"):
            self.floors.append(str(found["data-floor"]))
        if tag == "tr" and found.get("data-incident"):
            self.rows.append([])
        if tag == "td" and found.get("data-solved"):
            self.rows[-1].append(str(found["data-solved"]))


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_headless_chromium_renders_the_scores_and_the_drill_down(
    offline: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path
) -> None:
    page = offline[1] / "r.html"

    dumped = chromium(page, tmp_path / "profile", "--dump-dom")

    assert dumped.returncode == 0, dumped.stderr[-1000:]
    rows = Rows()
    rows.feed(dumped.stdout)
    assert rows.groups == ["handwritten · offline", "sdk · offline"]  # the baselines are floor rows
    assert all(label.split(" · ")[1].startswith("baseline:") for label in rows.floors)
    assert [row[:2] for row in rows.rows] == [["true", "true"]] * 2
    assert "<script" not in page.read_text() and "trace</a>" in dumped.stdout


def mock_servers_of(corpus: Path) -> list[int]:
    """Mock cluster servers still running on this corpus's fixtures."""
    return running(f"k8s_agent_mock_cluster.*{corpus}")


@pytest.fixture
def slow_corpus(tmp_path: Path) -> Iterator[Path]:
    yield write_corpus(tmp_path / "corpus")


class ThreeRunsThenHang:
    """The offline model as an endpoint that lets three runs finish, then hangs every request: when
    Ctrl-C comes, three records are written and every other run is in flight, however fast or slow
    the machine is. `release()` makes it the offline model again."""

    def __init__(self) -> None:
        self.finished = 0
        self.hanging = True
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Step:
        with self.lock:
            if self.hanging and self.finished >= 3:
                return hang()
            step = offline_model(body)
            if isinstance(step, Reply) and not step.tool_calls:
                self.finished += 1  # a run's last request: its report
            return step

    def release(self) -> None:
        with self.lock:
            self.hanging = False


def test_ctrl_c_leaves_no_mock_cluster_running_and_a_results_file_resume_continues(
    slow_corpus: Path, tmp_path: Path
) -> None:
    model = ThreeRunsThenHang()
    with ScriptedModelServer(responder=model, record=False) as server:
        endpoint = ("--base-url", server.url, "--api-key", "k", "--model", "scripted-offline")
        process = start_cold(
            "eval", "--corpus", str(slow_corpus), "--repeat", "6", "--concurrency", "4", "--no-baselines",
            "--results", "r.jsonl", "-q", *endpoint,
            cwd=tmp_path,
        )  # fmt: skip
        wait_until(
            lambda: (tmp_path / "r.jsonl").exists() and (tmp_path / "r.jsonl").read_text().count("\n") >= 3,
            "three runs written",
            process,
        )
        _, stderr = interrupt(process)

        assert process.returncode == 130 and "Traceback" not in stderr, stderr[-2000:]
        wait_until(lambda: not mock_servers_of(slow_corpus), "the mock clusters gone")
        assert len(records(tmp_path / "r.jsonl")) == 3  # every line complete, the runs in flight not written
        model.release()
        resumed = k8s_agent(
            "eval", "--corpus", str(slow_corpus), "--repeat", "6", "--incident", "default-staging",
            "--impl", "handwritten", "--no-baselines", "--results", "r.jsonl", "--resume", "--concurrency", "4",
            "-q", *endpoint,
            cwd=tmp_path,
        )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    staging = [
        r
        for r in records(tmp_path / "r.jsonl")
        if r["key"].startswith("handwritten|scripted-offline|default-staging")
    ]
    assert sorted(r["repeat"] for r in staging) == list(range(1, 7))


@pytest.mark.parametrize("traces_given", [False, True])
def test_ctrl_c_before_the_first_run_ends_leaves_no_empty_folder_the_eval_made(
    traces_given: bool, corpus: Path, tmp_path: Path
) -> None:
    # The incident's mock cluster is started through a warm-start socket that takes the launcher's
    # call (and lets go of its pipes) but never answers: the eval has made its folders and waits for
    # its server to start, and no run has started.
    import socket as sockets

    stall = tmp_path / "stall.sock"
    listener = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    listener.bind(str(stall))
    listener.listen()
    listener.settimeout(HANG_SECONDS)
    mine = tmp_path / "mine"  # a folder the user had, empty: kept
    mine.mkdir()
    traces = ["--traces", str(mine)] if traces_given else []
    process = start_cold(
        "eval", "--corpus", str(corpus), "--incident", "default-staging", "--impl", "handwritten", "--no-baselines",
        "--results", "out/deeper/r.jsonl", *traces, "-q",
        cwd=tmp_path, env={"K8S_AGENT_MOCK_CLUSTER_WARM": str(stall)},
    )  # fmt: skip
    try:
        connection, _ = listener.accept()  # the eval is starting the incident's server
        _, pipes, _, _ = sockets.recv_fds(connection, 1 << 20, 3)
        for pipe in pipes:
            os.close(pipe)
        _, stderr = interrupt(process)
        connection.close()
    finally:
        listener.close()
        if process.poll() is None:  # interrupt() was not reached
            process.kill()
            process.wait()

    assert process.returncode == 130 and "Traceback" not in stderr, stderr[-2000:]
    left = sorted(str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*"))
    assert left == ["mine", "stall.sock"]  # out/, out/deeper/ and the traces folders are gone


def test_a_report_file_that_cannot_be_written_is_one_line_exit_2_and_stdout_still_gets_the_report(
    offline: tuple[subprocess.CompletedProcess[str], Path], corpus: Path, tmp_path: Path
) -> None:
    (tmp_path / "a-file").write_text("")
    shutil.copy(offline[1] / "r.jsonl", tmp_path / "r.jsonl")

    done = k8s_agent(
        "eval",
        "report",
        "r.jsonl",
        "--corpus",
        str(corpus),
        "--out",
        "a-file/r.html",
        "--out",
        "r.json",
        cwd=tmp_path,
    )

    assert done.returncode == 2 and "error: cannot write a-file/r.html" in done.stderr, done.stderr
    assert "| default-production |" in done.stdout and (tmp_path / "r.json").is_file()  # nothing else lost
