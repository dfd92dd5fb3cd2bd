"""Init containers (playbook/init_containers.py): every one that ran is read, in order and by name;
the one holding the pod is the first not completed, quoted from its own log; a pod in Init with no
Warning event is starting only while young and while its log does not loop on a failure."""

from __future__ import annotations

from typing import Any

import pytest

from k8s_agent_scripted_llm.playbook.init_containers import (
    failing_init_container,
    init_log_reads,
    loops_on_a_failure,
)
from k8s_agent_scripted_llm.playbook.tables import Container, containers_of
from tests.offline.playbook.cluster import causes, cluster, container, event, pod, quotes, report_on

NAMESPACE = "imaging"
QUESTION = "Is anything wrong in the imaging namespace?"
SERVER = container("thumbnailer", state={"waiting": {"reason": "PodInitializing"}})
NEIGHBOUR = pod("gallery-web-7c9f8d6b5-m2k4p", NAMESPACE, "Running", container("gallery", logs=["GET / 200"]))

UNRESOLVED = "lookup objects.storage.svc.cluster.local on 10.96.0.10:53: no such host; retrying in 5s"


def waiting_pod(age: str, logs: list[str]) -> dict[str, Any]:
    """A pod in Init:0/1 whose one init container runs (waits for a store) with these log lines."""
    return pod(
        "thumbnailer-6d8f9c7b5-q2w8r",
        NAMESPACE,
        "Init:0/1",
        container("wait-for-store", state={"running": {"started_at": "2026-05-01T10:00:00Z"}}, logs=logs),
        SERVER,
        age=age,
        ready=False,
    )


def test_a_pod_in_init_for_tens_of_minutes_looping_on_a_name_that_does_not_resolve_is_failing() -> None:
    fixture = cluster([waiting_pod("35m", [UNRESOLVED] * 4), NEIGHBOUR])

    report, calls = report_on(fixture, QUESTION)

    assert causes(report) == {"pod/thumbnailer-6d8f9c7b5-q2w8r": "init_container_failure"}
    assert quotes(report, "thumbnailer-6d8f9c7b5-q2w8r")[0] == UNRESOLVED
    assert "wait-for-store" in report.findings[0].explanation
    assert (
        "get_pod_logs",
        {
            "name": "thumbnailer-6d8f9c7b5-q2w8r",
            "namespace": NAMESPACE,
            "tail": 20,
            "container": "wait-for-store",
        },
    ) in calls


def test_a_young_pod_in_init_whose_log_shows_progress_is_starting() -> None:
    """Rule `still_initialising`: a young pod in Init with no Warning event, whose log does not loop on a
    failure, is still starting."""
    fixture = cluster(
        [waiting_pod("40s", ["waiting for objects.storage.svc.cluster.local:9000 (attempt 1)"]), NEIGHBOUR]
    )

    report, _ = report_on(fixture, QUESTION)

    assert report.findings == []
    assert any("is starting" in line for line in report.unchecked)


def test_a_young_pod_in_init_whose_log_says_a_name_does_not_resolve_is_failing() -> None:
    fixture = cluster([waiting_pod("40s", [UNRESOLVED]), NEIGHBOUR])

    report, _ = report_on(fixture, QUESTION)

    assert causes(report) == {"pod/thumbnailer-6d8f9c7b5-q2w8r": "init_container_failure"}


def test_a_pod_in_init_past_the_grace_period_is_failing_even_with_a_calm_log() -> None:
    fixture = cluster([waiting_pod("25m", ["copying assets (3 of 40)"]), NEIGHBOUR])

    report, _ = report_on(fixture, QUESTION)

    assert causes(report) == {"pod/thumbnailer-6d8f9c7b5-q2w8r": "init_container_failure"}


FETCH_LOG = [
    "fetching model bundle v7",
    "ERROR connection reset by peer, resuming at byte 1048576 (attempt 2 of 5)",
    "bundle v7 downloaded",
]
RENDER_LOG = [
    "rendering /etc/thumbnailer/config.yaml from the template",
    "render: template variable 'cache.dir' has no value",
]


def test_the_second_init_container_failing_after_the_first_succeeded_is_quoted_from_its_own_log() -> None:
    """Cause rule `init_container_failed`: a pod held in Init is init_container_failure, told by the failing
    init container's own log; the ones that completed before it are named, not quoted."""
    name = "thumbnailer-6d8f9c7b5-z7x2c"
    broken = pod(
        name,
        NAMESPACE,
        "Init:CrashLoopBackOff",
        container(
            "fetch-bundle",
            state={"terminated": {"reason": "Completed", "exit_code": 0}},
            logs=FETCH_LOG,
        ),
        container(
            "render-config",
            restarts=7,
            state={"waiting": {"reason": "CrashLoopBackOff"}},
            last_state={"terminated": {"reason": "Error", "exit_code": 1}},
            logs=RENDER_LOG,
            previous_logs=RENDER_LOG,
        ),
        SERVER,
        age="30m",
        ready=False,
    )
    fixture = cluster(
        [broken, NEIGHBOUR],
        [event(NAMESPACE, f"pod/{name}", "BackOff", "Back-off restarting failed container render-config")],
    )

    report, calls = report_on(fixture, QUESTION)

    assert causes(report) == {f"pod/{name}": "init_container_failure"}
    quoted = quotes(report, name)
    assert RENDER_LOG[1] in quoted
    assert not any(line in quoted for line in FETCH_LOG)
    assert "render-config" in report.findings[0].explanation
    assert "after fetch-bundle completed" in report.findings[0].explanation
    read = [(a.get("container"), bool(a.get("previous"))) for tool, a in calls if tool == "get_pod_logs"]
    assert ("fetch-bundle", False) in read and ("render-config", False) in read
    assert read.index(("fetch-bundle", False)) < read.index(("render-config", False))


def init(name: str, **fields: Any) -> Container:
    return Container(name, init=True, **fields)


@pytest.mark.parametrize(
    ("containers", "failing"),
    [
        ([init("a", state="Terminated", reason="Completed"), init("b", state="Running")], "b"),
        ([init("a", state="Waiting", reason="CrashLoopBackOff", restarts=3), init("b")], "a"),
        ([init("a", state="Terminated", reason="Completed", exit_code="0")], None),
    ],
)
def test_the_init_container_holding_a_pod_is_the_first_not_completed(
    containers: list[Container], failing: str | None
) -> None:
    """Rule `failing_init_container`: the init container holding the pod is the first one not completed."""
    found = failing_init_container(containers)
    assert (found.name if found else None) == failing


def test_every_init_container_that_ran_is_read_in_order_and_the_previous_instance_of_one_that_restarted() -> (
    None
):
    """Rule `init_log_reads`: every init container that ran is read in order, and the previous instance of
    one that restarted."""
    containers = [
        init("a", state="Terminated", reason="Completed"),
        init("b", state="Waiting", reason="CrashLoopBackOff", last_state="Terminated", restarts=4),
        init("c", state="Waiting", reason="PodInitializing"),
        Container("app", init=False, state="Waiting", reason="PodInitializing"),
    ]

    assert init_log_reads(containers) == [("a", False), ("b", False), ("b", True)]


@pytest.mark.parametrize(
    ("log", "loops"),
    [
        ("nc: bad address 'db.data.svc'\nnc: bad address 'db.data.svc'", "nc: bad address 'db.data.svc'"),
        ("broker not ready, sleeping 2s\n" * 3, "broker not ready, sleeping 2s"),
        ("10:00:01 waiting (1)\n10:00:06 waiting (2)\n10:00:11 waiting (3)", "10:00:11 waiting (3)"),
        ("applied 0001.sql\napplied 0002.sql", None),
    ],
    ids=["unresolved", "repeated", "repeated-times-aside", "progress"],
)
def test_a_log_that_loops_on_a_failure(log: str, loops: str | None) -> None:
    """Rule `loops_on_a_failure`: a log that says a name does not resolve, or says the same thing again and
    again, loops on a failure."""
    assert loops_on_a_failure(log) == loops


def test_init_containers_are_read_from_either_layout_of_describe() -> None:
    """kubectl's `Init Containers:` section, and one `Containers:` list whose app containers wait in
    PodInitializing (the mock cluster's)."""
    sections = (
        "Init Containers:\n  migrate:\n    State:          Running\n"
        "Containers:\n  api:\n    State:          Waiting\n      Reason:       PodInitializing\n"
    )
    one_list = (
        "Containers:\n  migrate:\n    State:          Running\n"
        "  api:\n    State:          Waiting\n      Reason:       PodInitializing\n"
    )

    for description in (sections, one_list):
        assert [(c.name, c.init) for c in containers_of(description)] == [("migrate", True), ("api", False)]


MIGRATE_LOG = [
    "applying migrations to orders",
    "ERROR lock wait timeout on table orders, retrying (attempt 2 of 3)",
    "applied 0041_add_index.sql",
    "schema version 43 is newer than this migrator supports (42)",
]


def test_an_init_container_that_exited_is_quoted_with_the_last_line_it_wrote() -> None:
    """Rule `last_words`: an init container that exited and was restarted is quoted with the last
    line it wrote before it exited, beside its deciding line."""
    name = "orders-api-7c8d9f6b5-n3m5q"
    broken = pod(
        name,
        NAMESPACE,
        "Init:CrashLoopBackOff",
        container(
            "migrate",
            restarts=5,
            state={"waiting": {"reason": "CrashLoopBackOff"}},
            last_state={"terminated": {"reason": "Error", "exit_code": 1}},
            logs=MIGRATE_LOG,
            previous_logs=MIGRATE_LOG,
        ),
        container("orders-api", state={"waiting": {"reason": "PodInitializing"}}),
        age="20m",
        ready=False,
    )
    fixture = cluster(
        [broken, NEIGHBOUR],
        [event(NAMESPACE, f"pod/{name}", "BackOff", "Back-off restarting failed container migrate")],
    )

    report, _ = report_on(fixture, QUESTION)

    assert causes(report) == {f"pod/{name}": "init_container_failure"}
    quoted = quotes(report, name)
    assert quoted[0] != MIGRATE_LOG[-1] and MIGRATE_LOG[-1] in quoted
