"""The offline playbook on a question about restarts: the pods that restarted, each with its count,
how and when its container last ended (quoted from describe_pod), and why; never the machine's clock."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from k8s_agent.scenarios import OFFLINE
from k8s_agent_harness.model.context import SEARCH_TOOL
from k8s_agent_mock_cluster import Cluster
from k8s_agent_mock_cluster.synthetic import cluster as synthetic_cluster
from k8s_agent_scripted_llm.playbook.questions import asks_about_restarts
from k8s_agent_scripted_llm.playbook.restarts import terminations
from k8s_agent_scripted_llm.playbook.tables import parse_pod_table
from tests.clusters import restarts_fixture
from tests.conftest import run_scenario
from tests.offline.test_offline_model import causes_of, mini_cluster, mini_pod, play, quotes_of


@pytest.mark.parametrize(
    "question",
    [
        "which pods restarted today",
        "What restarted?",
        "any restarts in staging?",
        "How many times did kafka restart?",
        "Is anything restarting?",
        "Show me the restart counts in web",
    ],
)
def test_a_question_asking_which_pods_restarted_is_about_restarts(question: str) -> None:
    assert asks_about_restarts(question)


@pytest.mark.parametrize(
    "question",
    [
        "inventory-sync keeps restarting. Which pods in checkout are unhealthy, and why?",
        "Pods in logistics keep restarting since lunchtime. Is it one problem or several?",
        "Why did payment-service restart?",
        "The media namespace looks messy (a Completed pod, restarts, a pod not ready). Is anything broken?",
        "Which pods are unhealthy?",
    ],
)
def test_a_question_naming_restarts_as_a_symptom_is_a_diagnosis(question: str) -> None:
    assert not asks_about_restarts(question)


def test_every_restarted_pod_is_listed_with_its_count_last_termination_and_cause() -> None:
    calls, prose, _ = play(Cluster(restarts_fixture()), "which pods restarted today")
    causes, report, _ = causes_of(restarts_fixture(), "which pods restarted today")

    assert list(causes.items()) == [  # most restarts first
        ("pod/cache-0", "liveness_probe_failure"),  # unhealthy now: its own cause, as diagnosed
        ("pod/api-6c5d4b4z2-zzzzz", "oom_killed"),  # healthy now: how it last ended
        ("pod/api-5b4c4d2x7-ddddd", "crash_application"),
        ("pod/worker-7f6x5d4c4-bbbbb", "unknown"),  # ended Completed: not a crash
    ]
    assert [f.status for f in report.findings] == [
        "Running, READY 0/1, 7 restarts",
        "Running, READY 1/1, 3 restarts",
        "Running, READY 1/1, 2 restarts",
        "Running, READY 1/1, 1 restart",
    ]
    api = quotes_of(report, "api-6c5d4b4z2-zzzzz")
    assert api[:4] == [
        "Last State: Terminated Reason: OOMKilled",
        "Exit Code: 137",
        "Finished: 2027-03-04T06:42:17Z",
        "Restart Count: 3",
    ]
    assert any("panic: runtime error" in quote for quote in quotes_of(report, "api-5b4c4d2x7-ddddd"))
    described = sorted(a["name"] for name, a in calls if name == "describe_pod")
    assert described == ["api-5b4c4d2x7-ddddd", "api-6c5d4b4z2-zzzzz", "cache-0", "worker-7f6x5d4c4-bbbbb"]
    assert report.healthy.examples == ["web-5d4c4b2z7-ccccc"]  # never restarted, and healthy
    window = "between 2027-03-03T23:05:09Z and 2027-03-04T09:58:31Z"
    (today,) = [line for line in report.unchecked if "today" in line]
    assert "not checked against a clock" in today and window in today
    assert "2027-03-03T23:05:09Z to 2027-03-04T09:58:31Z" in report.scope
    assert any("report-29986323-xshxj (Pending, READY 0/1)" in line for line in report.unchecked)
    assert "restarted 7 times" in prose and "restarted once" in prose


def test_a_question_about_restarts_in_a_namespace_lists_that_namespaces_alone() -> None:
    causes, report, _ = causes_of(restarts_fixture(), "any restarts in staging?")

    assert causes == {"pod/api-5b4c4d2x7-ddddd": "crash_application"}
    assert report.scope.startswith("restarts of pods in namespace staging")
    assert not any("clock" in line for line in report.unchecked)  # no time asked, no time said


def test_a_cluster_with_no_restarts_says_so() -> None:
    cluster = mini_cluster(
        [mini_pod(f"web-6c5d4b4z2-{n}aaaa", "web", "Running", ready=True, logs=["ok"]) for n in range(3)], []
    )

    calls, prose, _ = play(Cluster(cluster), "What restarted?")
    causes, report, _ = causes_of(cluster, "What restarted?")

    assert [name for name, _ in calls] == ["list_pods"]
    assert causes == {} and report.healthy.count == 3
    assert "No pod restarted: RESTARTS is 0 for all 3 pods listed (list_pods)." in prose


def test_the_last_termination_is_read_per_container_its_current_end_first() -> None:
    description = """Name:         job-1
Containers:
  main:
    Image:          x
    State:          Terminated
      Reason:       Completed
      Exit Code:    0
      Finished:     2027-03-04T10:00:00Z
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
  sidecar:
    Image:          y
    State:          Running
      Started:      2027-03-04T09:00:00Z
Conditions:
  Type              Status
Events:
  <none>"""

    (main,) = terminations(description)

    assert (main.container, main.reason, main.exit_code, main.finished) == (
        "main",
        "Completed",
        "0",
        "2027-03-04T10:00:00Z",
    )
    assert main.reason_quote == "State: Terminated Reason: Completed"


def test_the_time_of_the_last_restart_a_listing_gives_is_kept() -> None:
    listing = (
        "NAMESPACE   NAME        READY   STATUS    RESTARTS        AGE   NODE\n"
        "web         cache-0     1/1     Running   3 (47m ago)     2d    node-a\n"
        "web         web-0       1/1     Running   0               2d    node-a\n"
    )

    pods = parse_pod_table(listing)

    assert [(p.name, p.restarts, p.last_restart) for p in pods] == [
        ("cache-0", 3, "47m ago"),
        ("web-0", 0, ""),
    ]


def test_on_a_listing_too_large_to_read_whole_the_restarted_rows_are_searched_for(
    impl: str, tmp_path: Path
) -> None:
    data = synthetic_cluster(2000)
    restarted = next(p for p in data["pods"] if p["status"] == "Running" and p["containers"][0].get("ready"))
    restarted["containers"][0]["restarts"] = 4
    restarted["containers"][0]["last_state"] = {"terminated": {"reason": "OOMKilled", "exit_code": 137}}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))

    asked = dataclasses.replace(OFFLINE, question="Which pods restarted?")
    run = run_scenario(impl, asked, tmp_path / "run", cluster=path)

    searched = [e["arguments"] for e in run.trace if e["kind"] == "tool_call" and e["tool"] == SEARCH_TOOL]
    assert any("[1-9]" in str(arguments) for arguments in searched)  # the rows whose RESTARTS is not 0
    assert run.result is not None and run.result.verified is True
    report = run.result.report
    assert report is not None
    assert {f.name: f.cause.value for f in report.findings}[restarted["name"]] == "oom_killed"
    assert all(re.search(r", \d+ restarts?$", f.status) for f in report.findings)
