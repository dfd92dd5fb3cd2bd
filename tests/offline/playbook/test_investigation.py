"""The calls of a round (playbook/investigation.py): a pod of several containers is read container
by container once describe_pod shows them; a crash-looping pod whose current log is silent is read
again for its previous instance."""

from __future__ import annotations

from k8s_agent_scripted_llm.playbook.investigation import container_reads
from k8s_agent_scripted_llm.playbook.tables import Container
from tests.offline.playbook.cluster import causes, cluster, container, event, pod, quotes, report_on


def test_a_pod_of_one_container_needs_no_read_by_name() -> None:
    assert container_reads([Container("api", init=False, state="Running", restarts=3)]) == []


def test_init_containers_that_ran_and_app_containers_in_trouble_are_read_by_name() -> None:
    """Rule `container_reads`: a pod of several containers is read container by container: every init
    container that ran, and each app container in trouble."""
    containers = [
        Container("migrate", init=True, state="Terminated", reason="Completed", exit_code="0"),
        Container("api", init=False, state="Running", ready=True),
        Container("proxy", init=False, state="Running", last_state="Terminated", restarts=4, ready=False),
        Container("shipper", init=False, state="Waiting", reason="ContainerCreating"),
    ]

    assert container_reads(containers) == [("migrate", False), ("proxy", False), ("proxy", True)]


SILENT_CRASH_LOG = [
    "2026-06-09 14:02:11 INFO  exporter 3.4 starting",
    "2026-06-09 14:02:12 ERROR archive bucket s3://exports-eu/raw is read-only for this role",
    "2026-06-09 14:02:12 INFO  exiting with status 2",
]


def test_a_crash_looping_pod_whose_current_log_is_silent_is_read_again_for_its_previous_instance() -> None:
    """Rule `silent_crash_read`: a pod of one container that restarted, whose current log is silent, has its
    previous instance read."""
    name = "ledger-exporter-7b9c6d8f5-h3k8v"
    looping = pod(
        name,
        "reporting",
        "CrashLoopBackOff",
        container(
            "exporter",
            restarts=12,
            state={"waiting": {"reason": "CrashLoopBackOff"}},
            last_state={"terminated": {"reason": "Error", "exit_code": 2}},
            previous_logs=SILENT_CRASH_LOG,
        ),
    )
    fixture = cluster(
        [looping, pod("report-ui-5c8d7f6b9-p4q2n", "reporting", "Running")],
        [event("reporting", f"pod/{name}", "BackOff", "Back-off restarting failed container exporter")],
    )

    report, calls = report_on(fixture, "Is anything broken in the reporting namespace?")

    reads = [arguments for tool, arguments in calls if tool == "get_pod_logs" and arguments["name"] == name]
    assert [bool(arguments.get("previous")) for arguments in reads] == [False, True]
    assert causes(report) == {f"pod/{name}": "crash_application"}
    assert quotes(report, name)[0] == SILENT_CRASH_LOG[1]


def test_a_crash_looping_pod_whose_current_log_speaks_is_not_read_twice() -> None:
    name = "ledger-exporter-7b9c6d8f5-w8n2r"
    looping = pod(
        name,
        "reporting",
        "CrashLoopBackOff",
        container(
            "exporter",
            restarts=12,
            state={"waiting": {"reason": "CrashLoopBackOff"}},
            last_state={"terminated": {"reason": "Error", "exit_code": 2}},
            logs=SILENT_CRASH_LOG,
            previous_logs=SILENT_CRASH_LOG,
        ),
    )
    fixture = cluster([looping], [event("reporting", f"pod/{name}", "BackOff", "Back-off restarting")])

    report, calls = report_on(fixture, "Is anything broken in the reporting namespace?")

    assert [a for tool, a in calls if tool == "get_pod_logs" and a.get("previous")] == []
    assert quotes(report, name)[0] == SILENT_CRASH_LOG[1]
