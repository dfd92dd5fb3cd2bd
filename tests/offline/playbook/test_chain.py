"""The offline playbook on a question about a workload: the report is about that workload's pods,
and, when their own logs say they cannot reach a Service, about that Service's pods too (in its
namespace, whichever that is), so the report shows the chain from the symptom to its cause."""

from __future__ import annotations

import json
from typing import Any

import pytest

from k8s_agent_mock_cluster import Cluster
from k8s_agent_scripted_llm.playbook.dependencies import failed_calls
from tests.clusters import LEDGER_RETRY, LEDGER_TIMEOUT, ledger_chain_fixture
from tests.offline.test_offline_model import (
    causes_of,
    event,
    mini_cluster,
    mini_pod,
    play,
    play_structured,
    quotes_of,
)

# -- a workload named, and the chain its logs point to -------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Why is ledger-writer failing?",
        "Is the ledger writer statefulset healthy?",  # its name's words
        "why is ledger broken?",  # the first word of its name
    ],
)
def test_a_workload_timing_out_on_a_service_of_another_namespace_is_reported_with_that_services_pod(
    question: str,
) -> None:
    calls, prose, _ = play(Cluster(ledger_chain_fixture()), question)
    causes, report, _ = causes_of(ledger_chain_fixture(), question)

    # the symptom first (both pods, the ready one too: its calls fail), then the cause it points to
    assert list(causes.items()) == [
        ("pod/ledger-writer-0", "dependency_down"),
        ("pod/ledger-writer-1", "dependency_down"),
        ("pod/postgres-0", "oom_killed"),
    ]
    assert quotes_of(report, "ledger-writer-0")[0] == LEDGER_TIMEOUT
    assert quotes_of(report, "ledger-writer-1") == [LEDGER_RETRY]
    writer, _, postgres = report.findings
    assert "postgres-0" in writer.explanation and "namespace db" in writer.explanation
    assert postgres.namespace == "db" and "OOMKilled" in postgres.evidence[0].text
    assert report.scope.startswith("workload ledger-writer (pods in namespace billing)")
    assert report.unchecked == []
    described = [(a["name"], a["namespace"]) for name, a in calls if name == "describe_pod"]
    assert sorted(described) == [
        ("ledger-writer-0", "billing"),
        ("ledger-writer-1", "billing"),
        ("postgres-0", "db"),
    ]
    assert "invoice-api" not in prose  # its broken neighbour is not what the question is about


CALLER = "cart-api-6d5f7c8b9-k2m4p"


def calling(line: str, *others: dict[str, Any]) -> dict[str, Any]:
    """A workload of namespace shop whose one pod runs and is ready, its logs failing on `line`."""
    return mini_cluster(
        [
            mini_pod(CALLER, "shop", "Running", ready=True, logs=["cart-api listening on :8080", line]),
            *others,
        ],
        [],
    )


PENDING = {"node": None, "phase": "Pending"}


@pytest.mark.parametrize(
    ("line", "reached"),
    [
        # a Service's DNS name says its namespace
        (
            "payment call failed: connection refused (payments.money.svc:8080); retrying",
            ("payments-0", "money"),
        ),
        # a short name resolves in the caller's own namespace, not in another with the same name
        ("GET http://pricing:8080/quote failed: context deadline exceeded", ("pricing-0", "shop")),
        ("dial redis:6379: connect: connection refused", ("redis-0", "shop")),
        # a workload of the cluster named as a word, and a Service named as what the caller depends on
        ("WARN cache fill from session-store timed out", ("session-store-0", "shop")),
        ("WARN dependency session-store not reachable", ("session-store-0", "shop")),
    ],
)
def test_a_service_is_read_from_the_line_by_its_dns_name_url_host_and_port_or_name(
    line: str, reached: tuple[str, str]
) -> None:
    others = [
        mini_pod(name, namespace, "Pending", **PENDING)
        for name, namespace in [
            ("payments-0", "money"),
            ("payments-0", "shop"),
            ("pricing-0", "shop"),
            ("pricing-0", "money"),
            ("redis-0", "shop"),
            ("session-store-0", "shop"),
        ]
    ]
    events = [
        event(namespace, f"pod/{name}", "FailedScheduling", "0/2 nodes are available: 2 Insufficient memory.")
        for name, namespace in [reached]
    ]
    cluster = calling(line, *others)
    cluster["events"] = events

    report, _, _ = play_structured(Cluster(cluster), "What is wrong with cart-api?")

    assert [(f.name, f.namespace, f.cause.value) for f in report.findings] == [
        (CALLER, "shop", "dependency_down"),
        (*reached, "insufficient_resources"),
    ]
    assert report.findings[0].evidence[0].text == line


def test_a_failing_call_to_a_service_whose_pods_are_healthy_leaves_the_caller_healthy_and_says_so() -> None:
    line = "payment call failed: connection refused (payments.shop.svc:8080); retrying"
    cluster = calling(line, mini_pod("payments-6c5d4b4z2-q8r2t", "shop", "Running", ready=True, logs=["ok"]))

    calls, prose, _ = play(Cluster(cluster), "Why is cart-api broken?")
    report, _, _ = play_structured(Cluster(cluster), "Why is cart-api broken?")

    assert ("describe_pod", {"name": "payments-6c5d4b4z2-q8r2t", "namespace": "shop"}) in calls
    assert report.findings == [] and report.healthy.count == 2
    assert "are healthy now" in prose and line in prose


def test_an_address_is_not_followed_and_a_service_no_pod_is_named_after_is_said_not_guessed() -> None:
    cluster = calling(
        "upstream ledger-svc.shop.svc:9000: connection refused; dial tcp 10.43.0.12:6379: i/o timeout",
        mini_pod("ledger-5b4c4d2x7-w4x5w", "shop", "CrashLoopBackOff", restarts=3, logs=["panic: oops"]),
    )

    calls, _, _ = play(Cluster(cluster), "is cart-api ok?")
    report, _, _ = play_structured(Cluster(cluster), "is cart-api ok?")

    assert [name for name, _ in calls if name == "describe_pod"] == ["describe_pod"]  # cart-api's alone
    assert report.findings == []
    (said,) = report.unchecked
    assert "no pod named after the Service ledger-svc is in namespace shop" in said


def test_a_chain_is_followed_from_service_to_service() -> None:
    """Rule `explained_by_its_calls`: a pod whose own finding a failed call to an unhealthy Service may
    explain is dependency_down, link after link."""
    cluster = mini_cluster(
        [
            mini_pod(
                "web-6c5d4b4z2-q8r2t",
                "shop",
                "Running",
                ready=True,
                logs=["WARN upstream http://orders:8080/list failed: connection refused"],
            ),
            mini_pod(
                "orders-7d9f8c6b5-k2m4p",
                "shop",
                "Running",
                logs=["ERROR db ping postgres.data.svc.cluster.local:5432 failed: i/o timeout"],
            ),
            mini_pod("postgres-0", "data", "Pending", **PENDING),
        ],
        [
            event(
                "shop", "pod/orders-7d9f8c6b5-k2m4p", "Unhealthy", "Readiness probe failed: statuscode: 503"
            ),
            event(
                "data",
                "pod/postgres-0",
                "FailedScheduling",
                "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.",
            ),
        ],
    )

    causes, _, _ = causes_of(cluster, "why is the web deployment down?")

    assert list(causes.items()) == [
        ("pod/web-6c5d4b4z2-q8r2t", "dependency_down"),
        ("pod/orders-7d9f8c6b5-k2m4p", "dependency_down"),
        ("pod/postgres-0", "unbound_volume"),
    ]


def test_a_listing_of_one_namespace_is_followed_by_a_listing_of_the_namespace_a_host_names() -> None:
    calls, _, _ = play(
        Cluster(ledger_chain_fixture()), "Why is ledger-writer failing?\n\nScope: namespace billing."
    )

    lists = [arguments for name, arguments in calls if name == "list_pods"]
    assert lists == [{"namespace": "billing"}, {"namespace": "db"}]
    assert ("describe_pod", {"name": "postgres-0", "namespace": "db"}) in calls


def test_the_line_reader_takes_hosts_in_order_and_leaves_out_addresses_and_the_outside_world() -> None:
    line = (
        "sync failed: http://api.stripe.com/v1 unreachable, redis:6379 refused, dial tcp 10.0.0.9:53: i/o "
        "timeout, then postgres.db.svc.cluster.local:5432 timed out at 2027-03-04T06:42:17Z"
    )

    found = failed_calls(f"INFO all good at redis:6379\n{line}")

    assert [(c.host, c.service, c.namespace) for c in found] == [
        ("redis:6379", "redis", None),
        ("postgres.db.svc.cluster.local:5432", "postgres", "db"),
    ]
    assert {c.line for c in found} == {line}  # the line that says the connection failed, not the INFO one


def test_a_service_named_as_a_dependency_is_read_even_when_no_workload_has_its_name() -> None:
    found = failed_calls("GET /ready -> 503: dependency memcache not reachable\nupstream 'ledger' timed out")

    assert [(c.host, c.service, c.namespace) for c in found] == [
        ("memcache", "memcache", None),
        ("ledger", "ledger", None),
    ]


# -- the scope a workload's name gives, and what it is not ----------------------------------------------


def test_a_workload_named_by_kind_that_has_no_pods_is_said_plainly_with_what_was_listed() -> None:
    question = "why is the billing-api deployment not available?"
    calls, prose, _ = play(Cluster(ledger_chain_fixture()), question)
    report, _, _ = play_structured(Cluster(ledger_chain_fixture()), question)

    # the pods, then the kinds past them (a Deployment with no pod may be one that cannot create them)
    assert [name for name, _ in calls] == ["list_pods"] + ["resources_list"] * 10 + ["get_events"]
    assert report.findings == [] and report.scope.startswith("workload billing-api")
    (said,) = report.unchecked
    assert said.startswith("No pod of a workload named billing-api in any namespace: list_pods shows 4 pods")
    assert "of the workloads invoice-api, ledger-writer, postgres." in said
    assert said in prose


def test_a_bare_word_that_is_a_namespace_is_the_namespace_not_the_first_word_of_a_workload() -> None:
    cluster = mini_cluster(
        [
            mini_pod(
                "cart-api-7d9f8c6b5-k2m4p", "checkout", "CrashLoopBackOff", restarts=5, logs=["panic: boom"]
            ),
            mini_pod(
                "checkout-gateway-6c5d4b4z2-q8r2t", "edge", "CrashLoopBackOff", restarts=2, logs=["panic: x"]
            ),
        ],
        [],
    )

    causes, report, _ = causes_of(cluster, "Why is checkout down?")

    assert report.scope == "pods in namespace checkout"
    assert set(causes) == {"pod/cart-api-7d9f8c6b5-k2m4p"}


def test_a_question_about_a_namespace_as_a_whole_keeps_the_namespace_and_looks_at_the_workload_first() -> (
    None
):
    question = "ledger-writer seems stuck. Which pods in billing are unhealthy?"
    calls, _, _ = play(Cluster(ledger_chain_fixture()), question)
    causes, report, _ = causes_of(ledger_chain_fixture(), question)

    assert report.scope == "pods in namespace billing"
    assert set(causes) == {"pod/ledger-writer-0", "pod/invoice-api-6c5d4b4z2-q8r2t", "pod/postgres-0"}
    assert causes["pod/ledger-writer-0"] == "dependency_down" and causes["pod/postgres-0"] == "oom_killed"
    assert ("describe_pod", {"name": "ledger-writer-1", "namespace": "billing"}) in calls  # looks healthy
    # the failing pod's dependency is followed to its namespace and reported with its own cause
    assert ("describe_pod", {"name": "postgres-0", "namespace": "db"}) in calls


# -- `unchecked` says only what the report does not show --------------------------------------------------


def test_unchecked_never_restates_the_pods_a_named_workload_resolved_to_when_the_report_shows_them() -> None:
    shown, _, _ = play_structured(
        Cluster(ledger_chain_fixture()), "ledger-writer seems stuck. Which pods in billing are unhealthy?"
    )
    workload, _, _ = play_structured(Cluster(ledger_chain_fixture()), "why is the postgres statefulset down?")

    assert not any("names the workload" in line for line in shown.unchecked)
    assert [f.name for f in workload.findings] == ["postgres-0"] and workload.unchecked == []


def test_a_workload_note_stays_when_the_report_cannot_show_all_its_pods() -> None:
    many = [mini_pod(f"web-6c5d4b4z2-{n}aaaa", "shop", "Running", ready=True, logs=["ok"]) for n in range(7)]
    cluster = mini_cluster(
        [*many, mini_pod("db-0", "shop", "CrashLoopBackOff", restarts=3, logs=["panic: x"])], []
    )

    report, _, _ = play_structured(Cluster(cluster), "Is anything wrong in the shop namespace? web is slow")

    (note,) = [line for line in report.unchecked if "names the workload web" in line]
    assert all(pod["name"] in note for pod in many)  # 7 pods, 5 examples: the note names the other two
    assert json.dumps(report.healthy.examples).count("web-6c5d4b4z2") == 5
