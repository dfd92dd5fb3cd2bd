"""Dependencies (playbook/dependencies.py, chain.py): a dependency a failing pod's logs name is
followed to its pods in any namespace; when those are unhealthy, the dependents are dependency_down
and the dependency is reported with its own cause; noise names no dependency."""

from __future__ import annotations

from typing import Any

import pytest

from k8s_agent_scripted_llm.playbook.dependencies import failed_calls
from tests.offline.playbook.cluster import causes, cluster, container, event, pod, quotes, report_on

NAMESPACE = "store"
QUESTION = "What is wrong in the store namespace?"
CALLER = "catalog-api-5f8d7c9b6-r2t4w"
LOOKUP = "dial tcp: lookup catalog-db.data.svc.cluster.local on 10.96.0.10:53: no such host"
CALLER_LOG = [
    "INFO catalog-api 2.2 starting",
    f"WARN db connect failed: {LOOKUP}",
    "FATAL giving up after 5 attempts",
]


def caller(logs: list[str] = CALLER_LOG) -> dict[str, Any]:
    """A crash-looping pod of namespace store whose last line is a generic exit."""
    return pod(
        CALLER,
        NAMESPACE,
        "CrashLoopBackOff",
        container(
            "catalog-api",
            restarts=8,
            state={"waiting": {"reason": "CrashLoopBackOff"}},
            last_state={"terminated": {"reason": "Error", "exit_code": 1}},
            logs=logs,
        ),
    )


BACK_OFF = event(NAMESPACE, f"pod/{CALLER}", "BackOff", "Back-off restarting failed container catalog-api")
NEIGHBOUR = pod("storefront-6c7d8f9b5-k4m2p", NAMESPACE, "Running")
UNSCHEDULABLE = "0/2 nodes are available: 2 Insufficient memory."


def test_a_dependency_in_another_namespace_is_followed_and_reported_with_its_own_cause() -> None:
    """Rule `start_of_chain`: in a question about a namespace, the dependency is followed from the failing
    pod whose own finding a failed call may explain."""
    database = pod("catalog-db-0", "data", "Pending", container("postgres"), node=None)
    fixture = cluster(
        [caller(), NEIGHBOUR, database],
        [BACK_OFF, event("data", "pod/catalog-db-0", "FailedScheduling", UNSCHEDULABLE)],
    )

    report, calls = report_on(fixture, QUESTION)

    assert causes(report) == {
        f"pod/{CALLER}": "dependency_down",
        "pod/catalog-db-0": "insufficient_resources",
    }
    assert quotes(report, CALLER)[0] == CALLER_LOG[1]
    assert UNSCHEDULABLE in quotes(report, "catalog-db-0")
    dependent, dependency = report.findings
    assert dependency.namespace == "data" and "catalog-db" in dependent.explanation
    assert ("list_pods", {"namespace": "data"}) in calls
    assert ("describe_pod", {"name": "catalog-db-0", "namespace": "data"}) in calls


def test_a_healthy_dependency_leaves_the_failing_pod_its_own_cause() -> None:
    database = pod("catalog-db-0", "data", "Running", container("postgres", logs=["ready"]))
    fixture = cluster([caller(), NEIGHBOUR, database], [BACK_OFF])

    report, _ = report_on(fixture, QUESTION)

    assert causes(report) == {f"pod/{CALLER}": "crash_application"}


def test_a_headless_services_pod_named_in_the_host_is_the_dependency() -> None:
    """Rule `service_pods`: the pod behind a Service a call names is the one its host names (a headless
    Service's pod), in the host's namespace."""
    line = "ERROR producer: broker-1.broker-hl.queue.svc.cluster.local:9093 connection refused"
    broker = pod(
        "broker-1",
        "queue",
        "CrashLoopBackOff",
        container(
            "broker",
            restarts=5,
            state={"waiting": {"reason": "CrashLoopBackOff"}},
            last_state={"terminated": {"reason": "Error", "exit_code": 1}},
            logs=["ERROR log directory /data is not writable"],
        ),
    )
    fixture = cluster(
        [caller(["INFO starting", line, "exiting"]), NEIGHBOUR, broker, pod("broker-0", "queue", "Running")],
        [BACK_OFF, event("queue", "pod/broker-1", "BackOff", "Back-off restarting failed container broker")],
    )

    report, calls = report_on(fixture, QUESTION)

    assert causes(report)[f"pod/{CALLER}"] == "dependency_down"
    assert "pod/broker-1" in causes(report) and "pod/broker-0" not in causes(report)
    assert ("describe_pod", {"name": "broker-0", "namespace": "queue"}) not in calls


def test_a_failed_call_the_process_says_it_ignores_names_no_dependency() -> None:
    ignored = "metrics push to telemetry-gw.monitoring.svc:9091 failed: connection refused (ignored)"
    gateway = pod("telemetry-gw-0", "monitoring", "Pending", container("gw"), node=None)
    fixture = cluster(
        [caller(["INFO starting", ignored, "ERROR stock index is corrupt", "exiting"]), NEIGHBOUR, gateway],
        [BACK_OFF, event("monitoring", "pod/telemetry-gw-0", "FailedScheduling", UNSCHEDULABLE)],
    )

    report, calls = report_on(fixture, QUESTION)

    assert causes(report) == {f"pod/{CALLER}": "crash_application"}
    assert not any(arguments.get("namespace") == "monitoring" for _, arguments in calls)


def test_a_failed_call_is_read_with_every_line_that_says_so_and_the_pod_a_headless_name_gives() -> None:
    logs = "\n".join(
        [
            "Error connecting to node ledger-0.ledger-hl.books.svc.cluster.local:7000",
            "java.net.UnknownHostException: ledger-0.ledger-hl.books.svc.cluster.local",
            "INFO retrying",
        ]
    )

    (call,) = failed_calls(logs)

    assert (call.service, call.namespace, call.pod) == ("ledger-hl", "books", "ledger-0")
    assert call.line == logs.splitlines()[0]
    assert call.lines == tuple(logs.splitlines()[:2])


@pytest.mark.parametrize(
    "said",
    [
        "amqp: no hosts available (amqp://events-mq.messaging.svc.cluster.local:5672)",
        "upstream error: no healthy upstream for events-mq.messaging.svc:5672",
    ],
)
def test_a_client_with_no_server_of_its_dependency_left_is_a_failed_call(said: str) -> None:
    waiting = "order-sync-6b7c8d9f5-t2v4x"
    lines = [
        '{"ts":"2026-05-03T08:00:00Z","level":"INFO","msg":"order-sync 1.4 up"}',
        f'{{"ts":"2026-05-03T08:41:10Z","level":"WARN","msg":"publish deferred","err":"{said}"}}',
    ]
    broker = pod(
        "events-mq-0",
        "messaging",
        "ImagePullBackOff",
        container("mq", state={"waiting": {"reason": "ImagePullBackOff"}}),
        ready=False,
    )
    fixture = cluster(
        [
            pod(waiting, NAMESPACE, "Running", container("order-sync", logs=lines), ready=False),
            NEIGHBOUR,
            broker,
        ],
        [
            event(
                NAMESPACE,
                f"pod/{waiting}",
                "Unhealthy",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
            event("messaging", "pod/events-mq-0", "Failed", 'Failed to pull image "mq:9.9": not found'),
        ],
    )

    report, _ = report_on(fixture, QUESTION)

    assert causes(report) == {f"pod/{waiting}": "dependency_down", "pod/events-mq-0": "image_not_found"}
    assert quotes(report, waiting)[0] == lines[1]


WAITING = "checkout-api-6d7f8c9b5-w4x6z"
NO_STORE = "ERROR session store unavailable: connection refused, serving 503 until it is back"


def test_a_pod_not_ready_whose_logs_fail_on_a_broken_workload_they_name_in_words_waits_on_it() -> None:
    """Cause rule `waits_on_a_broken_dependency`: a running pod that fails its readiness probe, never
    restarted, and whose logs fail to connect to another workload (named in words, no host to
    follow) that is itself unhealthy is dependency_down, quoted from that log line."""
    fixture = cluster(
        [
            pod(WAITING, "shop", "Running", container("checkout-api", logs=[NO_STORE]), ready=False),
            pod(
                "session-store-0",
                "shop",
                "CrashLoopBackOff",
                container(
                    "redis",
                    restarts=6,
                    state={"waiting": {"reason": "CrashLoopBackOff"}},
                    last_state={"terminated": {"reason": "Error", "exit_code": 1}},
                    logs=["FATAL can't open the append-only file: Permission denied"],
                ),
            ),
        ],
        [
            event(
                "shop",
                f"pod/{WAITING}",
                "Unhealthy",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
            event("shop", "pod/session-store-0", "BackOff", "Back-off restarting failed container redis"),
        ],
    )

    report, _ = report_on(fixture, "Why is the checkout-api pod not ready in the shop namespace?")

    assert causes(report)[f"pod/{WAITING}"] == "dependency_down"
    assert quotes(report, WAITING)[0] == NO_STORE
    assert "session-store-0" in report.findings[0].explanation
