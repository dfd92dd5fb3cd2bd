"""The offline playbook's reading of a question's scope and its verdicts beyond the STATUS column:
the question and a small mock cluster in, the calls and the report out."""

from __future__ import annotations

from typing import Any

import pytest

from k8s_agent_mock_cluster import Cluster
from k8s_agent_scripted_llm.playbook.questions import (
    about_the_cluster,
    question_namespace,
    question_namespaces,
)
from k8s_agent_scripted_llm.playbook.tables import parse_pod_table, parse_table
from tests.offline.test_offline_model import (
    causes_of,
    event,
    mini_cluster,
    mini_pod,
    play,
    play_structured,
    quotes_of,
)


def aged(pod: dict[str, Any], age: str) -> dict[str, Any]:
    return {**pod, "age": age}


SHOPS = mini_cluster(
    [
        mini_pod(
            "checkout-api-7d9f8c6b5-k2m4p",
            "shop",
            "CrashLoopBackOff",
            restarts=5,
            logs=["starting", "Error: connect to ledger failed: no such host"],
        ),
        mini_pod("checkout-api-7d9f8c6b5-z9w8x", "shop", "Running", ready=True, logs=["GET / 200"]),
        mini_pod("storefront-6c5d4b4z2-q8r2t", "shop", "Running", ready=True, logs=["GET / 200"]),
        mini_pod("ledger-5b4c4d2x7-w4x5w", "billing", "CrashLoopBackOff", restarts=3, logs=["panic: oops"]),
        mini_pod("ledger-5b4c4d2x7-z7b2c", "billing", "Running", ready=True, logs=["ok"]),
        mini_pod("metrics-agent-zbcdx", "ops", "Running", ready=True, logs=["ok"]),
    ],
    [],
)


# -- 1. the scope read from the wording --------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "namespaces"),
    [
        ("Which pods in our production namespace are crashing?", ["production"]),
        ("Is anything wrong in the namespace called staging?", ["staging"]),
        ("What about the namespace named 'edge'?", ["edge"]),
        ("Which pods in the namespace are failing?", []),
        ("Check the web and payments namespaces", ["web", "payments"]),
        ("Check namespaces web, data and payments please", ["web", "data", "payments"]),
        ("Is anything broken in all namespaces?", []),
        ("Is the default namespace healthy?", ["default"]),
    ],
)
def test_the_namespaces_are_the_names_around_the_word_never_a_word_of_the_sentence(
    question: str, namespaces: list[str]
) -> None:
    assert question_namespaces(question) == namespaces
    assert question_namespace(question) == (namespaces[0] if len(namespaces) == 1 else None)


def test_our_production_namespace_is_listed_as_production_not_as_are() -> None:
    calls, _, _ = play(Cluster(SHOPS), "Which pods in our shop namespace are crashing?")

    assert calls[0] == ("list_pods", {"namespace": "shop"})


@pytest.mark.parametrize(
    "question", ["What's broken in billing right now?", "Is anything wrong in billing?", "billing ok?"]
)
def test_a_namespace_named_without_the_word_narrows_the_scope_to_it(question: str) -> None:
    causes, report, _ = causes_of(SHOPS, question)

    assert report.scope == "pods in namespace billing"
    assert causes == {"pod/ledger-5b4c4d2x7-w4x5w": "crash_application"}


def test_two_namespaces_named_are_both_checked_and_one_without_pods_is_said() -> None:
    causes, report, _ = causes_of(SHOPS, "Check the shop, billing and payments namespaces")

    assert report.scope == "pods in namespaces shop, billing, payments"
    assert set(causes) == {"pod/checkout-api-7d9f8c6b5-k2m4p", "pod/ledger-5b4c4d2x7-w4x5w"}
    assert any("no namespace payments has pods" in line for line in report.unchecked)


def test_a_place_named_that_is_no_namespace_is_said_not_swept_silently() -> None:
    report, _, _ = play_structured(Cluster(SHOPS), "Is anything wrong in payments?")

    assert report.scope == "pods in all namespaces"
    (note,) = [line for line in report.unchecked if "payments" in line]
    assert "no namespace payments has pods" in note and "billing, ops, shop" in note


@pytest.mark.parametrize(
    "question", ["What is the capital of France?", "Who wrote Hamlet?", "What's 2 plus 2?"]
)
def test_a_question_that_is_not_about_the_cluster_gets_a_short_answer_and_no_call(question: str) -> None:
    assert not about_the_cluster(question)
    calls, report, _ = play(Cluster(SHOPS), question)
    structured, _, _ = play_structured(Cluster(SHOPS), question)

    assert calls == []
    assert "not a question about the cluster" in report and "namespace" not in report.split(":")[0]
    assert structured.findings == [] and "not a question about the cluster" in structured.unchecked[0]


@pytest.mark.parametrize(
    "question",
    ["Why is checkout down?", "Users report 502s from edge. Why?", "Daily rollups are hours behind."],
)
def test_questions_about_the_cluster_in_everyday_words_are_about_the_cluster(question: str) -> None:
    assert about_the_cluster(question)


# -- 1 and 2. a node or a workload named by its name alone --------------------------------------------


NODES = mini_cluster(
    [
        mini_pod("api-6c5d4b4z2-q8r2t", "web", "Running", ready=True, node="gke-prod-pool-1-abcd"),
        mini_pod("db-0", "web", "Unknown", node="gke-prod-pool-2-wxyz"),
    ],
    [],
    nodes=[
        {
            "name": "gke-prod-pool-1-abcd",
            "status": "Ready",
            "conditions": {"Ready": "True", "MemoryPressure": "False", "DiskPressure": "False"},
        },
        {
            "name": "gke-prod-pool-2-wxyz",
            "status": "NotReady",
            "conditions": {"Ready": "Unknown", "MemoryPressure": "Unknown", "DiskPressure": "Unknown"},
        },
    ],
)


def test_a_node_named_without_the_word_node_is_found_among_the_nodes_and_described() -> None:
    calls, report, _ = play(Cluster(NODES), "Is gke-prod-pool-2-wxyz OK?")
    structured, _, _ = play_structured(Cluster(NODES), "Is gke-prod-pool-2-wxyz OK?")

    assert [name for name, _ in calls] == ["list_pods", "list_nodes", "describe_node"]
    assert "no pod" not in report
    assert [(f.kind, f.name, f.cause.value) for f in structured.findings] == [
        ("node", "gke-prod-pool-2-wxyz", "node_not_ready")
    ]
    assert any("db-0" in line for line in structured.unchecked)  # its unhealthy pod is named
    _, healthy, _ = play(Cluster(NODES), "Is gke-prod-pool-1-abcd OK?")
    assert "gke-prod-pool-1-abcd is healthy" in healthy


@pytest.mark.parametrize("question", ["What is the issue with checkout-api?", "checkout-api is down"])
def test_a_workload_named_is_the_scope_its_pods_not_its_namespace(question: str) -> None:
    calls, _, _ = play(Cluster(SHOPS), question)
    causes, structured, _ = causes_of(SHOPS, question)

    assert structured.scope.startswith("workload checkout-api (pods in namespace shop)")
    assert causes == {"pod/checkout-api-7d9f8c6b5-k2m4p": "crash_application"}
    described = {a["name"] for name, a in calls if name == "describe_pod"}
    assert described == {"checkout-api-7d9f8c6b5-k2m4p", "checkout-api-7d9f8c6b5-z9w8x"}  # both its pods
    assert structured.healthy.examples == ["checkout-api-7d9f8c6b5-z9w8x"]  # not storefront, its neighbour
    # Its logs fail to resolve `ledger`: no such Service in shop (ledger runs in billing), which is said.
    (said,) = structured.unchecked
    assert "no pod named after the Service ledger is in namespace shop" in said


def test_a_job_or_statefulset_named_is_resolved_to_its_pods() -> None:
    cluster = mini_cluster(
        [
            mini_pod("nightly-etl-29986323-xshxj", "data", "Error", phase="Failed", logs=["KeyError: 'x'"]),
            mini_pod("kafka-0", "data", "CrashLoopBackOff", restarts=4, logs=["FATAL: bad broker.id"]),
            mini_pod("other-6c5d4b4z2-q8r2t", "ops", "CrashLoopBackOff", restarts=4, logs=["panic: x"]),
        ],
        [],
    )

    job, _, _ = causes_of(cluster, "Why did nightly-etl fail?")
    stateful, _, _ = causes_of(cluster, "What is wrong with kafka?")

    assert set(job) == {"pod/nightly-etl-29986323-xshxj"}  # the workload's pods, not its namespace's
    assert set(stateful) == {"pod/kafka-0"}


# -- 6. verdicts beyond the STATUS column -------------------------------------------------------------


def test_a_pod_starting_with_no_warning_is_not_unhealthy_and_one_with_warnings_is() -> None:
    cluster = mini_cluster(
        [
            aged(mini_pod("web-6c5d4b4z2-zzzzz", "web", "ContainerCreating"), "4s"),
            aged(mini_pod("web-6c5d4b4z2-bbbbb", "web", "Init:0/1"), "6s"),
            aged(mini_pod("api-6c5d4b4z2-ccccc", "web", "ContainerCreating"), "9m"),
        ],
        [
            event(
                "web",
                "pod/api-6c5d4b4z2-ccccc",
                "FailedMount",
                'MountVolume.SetUp failed for volume "certs" : secret "api-tls" not found',
            )
        ],
    )

    causes, report, _ = causes_of(cluster, "Is anything wrong in the web namespace?")

    assert set(causes) == {"pod/api-6c5d4b4z2-ccccc"}
    assert report.healthy.count == 2
    assert sum("is starting" in line for line in report.unchecked) == 2


def test_a_running_pod_that_restarted_is_judged_from_describe_pod_not_from_status() -> None:
    cluster = mini_cluster(
        [
            mini_pod(
                "kafka-1", "data", "Running", ready=True, restarts=3, logs=["ok"], previous_logs=["bye"]
            ),
            mini_pod(
                "api-6c5d4b4z2-ccccc",
                "data",
                "Running",
                ready=True,
                restarts=6,
                logs=["ok"],
                previous_logs=["Exception in thread main java.lang.IllegalStateException: pool closed"],
            ),
            mini_pod("etl-29986323-xshxj", "data", "Completed", phase="Succeeded", restarts=1),
        ],
        [event("data", "pod/api-6c5d4b4z2-ccccc", "BackOff", "Back-off restarting failed container api")],
    )

    calls, prose, _ = play(Cluster(cluster), "Is anything wrong in the data namespace?")
    causes, report, _ = causes_of(cluster, "Is anything wrong in the data namespace?")

    assert {a["name"] for name, a in calls if name == "describe_pod"} == {"kafka-1", "api-6c5d4b4z2-ccccc"}
    assert causes == {"pod/api-6c5d4b4z2-ccccc": "crash_application"}
    assert report.healthy.count == 2  # kafka-1 (restarts long ago), the Completed job pod
    assert "kafka-1: Running, READY 1/1, 3 restarts, and describe_pod shows no Warning event" in prose


def test_a_running_pod_not_ready_is_investigated() -> None:
    cluster = mini_cluster(
        [
            mini_pod(
                "api-6c5d4b4z2-ccccc", "web", "Running", logs=["listening"], readiness_probe="http-get :8080"
            )
        ],
        [event("web", "pod/api-6c5d4b4z2-ccccc", "Unhealthy", "Readiness probe failed: statuscode: 500")],
    )

    causes, _, _ = causes_of(cluster, "Is anything wrong in web?")

    assert causes == {"pod/api-6c5d4b4z2-ccccc": "readiness_probe_failure"}


# -- 5 and 4. the deciding line, and a JSON line's message ----------------------------------------------


def test_the_evidence_is_the_line_that_says_what_failed_not_a_line_around_it() -> None:
    cluster = mini_cluster(
        [
            mini_pod(
                "api-6c5d4b4z2-ccccc",
                "web",
                "CrashLoopBackOff",
                restarts=4,
                logs=[
                    "starting api v2",
                    "Error: EACCES: permission denied, open '/data/cache.db'",
                    "    at Object.openSync (node:fs:601:3)",
                    "shutting down after failure",
                ],
            )
        ],
        [],
    )

    _, report, _ = causes_of(cluster, "Is anything wrong in web?")

    assert (
        quotes_of(report, "api-6c5d4b4z2-ccccc")[0]
        == "Error: EACCES: permission denied, open '/data/cache.db'"
    )


def test_a_json_log_line_is_explained_by_its_message_not_its_level_or_time() -> None:
    """Rule `lacks_a_setting`: a line saying a required setting is missing is crash_config, naming the
    setting read from a JSON line's message."""
    line = (
        '{"ts":"2024-05-01T10:00:00Z","level":"error","caller":"main.go:42",'
        '"msg":"config invalid","error":"missing required setting \'LEDGER_URL\'"}'
    )
    cluster = mini_cluster(
        [
            mini_pod(
                "api-6c5d4b4z2-ccccc",
                "web",
                "CrashLoopBackOff",
                restarts=4,
                logs=['{"ts":"2024-05-01T10:00:00Z","level":"info","msg":"starting"}', line],
            )
        ],
        [],
    )

    causes, report, _ = causes_of(cluster, "Is anything wrong in web?")

    assert causes == {"pod/api-6c5d4b4z2-ccccc": "crash_config"}
    (finding,) = report.findings
    assert finding.evidence[0].text == line
    assert "LEDGER_URL" in finding.explanation and "ts" not in finding.explanation.split("'")


# -- 3. a dependency in another namespace ------------------------------------------------------------------


def test_a_readiness_failure_reaching_a_broken_service_of_another_namespace_is_followed_there() -> None:
    line = "redis ping billing-cache.billing.svc.cluster.local:6379 failed: connect: connection refused"
    cluster = mini_cluster(
        [
            mini_pod("invoice-api-6c5d4b4z2-ccccc", "web", "Running", logs=["started", line]),
            mini_pod("billing-cache-0", "billing", "CrashLoopBackOff", restarts=9, logs=["FATAL bad AOF"]),
        ],
        [
            event(
                "web",
                "pod/invoice-api-6c5d4b4z2-ccccc",
                "Unhealthy",
                "Readiness probe failed: statuscode: 503",
            )
        ],
    )

    causes, report, _ = causes_of(cluster, "Is anything wrong in the web namespace?")

    assert causes == {
        "pod/invoice-api-6c5d4b4z2-ccccc": "dependency_down",
        "pod/billing-cache-0": "crash_application",
    }
    assert quotes_of(report, "invoice-api-6c5d4b4z2-ccccc")[0] == line
    assert "FATAL bad AOF" in quotes_of(report, "billing-cache-0")
    (dependent, dependency) = report.findings
    assert dependency.namespace == "billing" and "billing-cache" in dependent.explanation


# -- 7. the harness's own notes are no table rows ---------------------------------------------------------


def test_excerpt_markers_and_notes_are_never_parsed_as_rows() -> None:
    listing = "\n".join(
        [
            "[Result r1 of list_pods: 9,000 lines, 1,200,000 bytes; too large to show whole. Shown: lines 1-2.]",
            "NAMESPACE   NAME                  READY   STATUS    RESTARTS   AGE   NODE",
            "web         api-6c5d4b4z2-ccccc   1/1     Running   0          3d    node-1",
            "[... 12,345 lines not shown ...]",
            "[1,024 characters] web a b c d e f",
            "this line has seven words in it too",
            "web         db-0                  0/1     Pending   0          3d    <none>",
            "[... 88 more bytes of this answer, cut to keep the conversation within the context budget]",
        ]
    )

    assert [pod.name for pod in parse_pod_table(listing)] == ["api-6c5d4b4z2-ccccc", "db-0"]
    nodes = "NAME STATUS ROLES AGE VERSION\nnode-1 Ready worker 3d v1.29\n[... 3 lines not shown ...]\n"
    assert [row["NAME"] for row in parse_table(nodes)] == ["node-1"]
