"""A pod's cause from one kind of evidence (playbook/causes.py): a container killed for its memory
(told by that container's own evidence when it is a sidecar), a quota's refusal, a Job that gave up,
a liveness probe's kills; else the most telling Warning, a passed one being history."""

from __future__ import annotations

from k8s_agent_scripted_llm.playbook.causes import CAUSE_RULES
from tests.offline.playbook.cluster import causes, cluster, container, event, pod, quotes, report_on

NAMESPACE = "checkout"
NAME = "basket-api-5c7d9f8b6-t4m2x"
SIDECAR_LOG = [
    "log-forwarder 1.4 started, output https://logs.example.org",
    "WARN output unreachable, holding 40211 records in buffer",
    "WARN output unreachable, holding 88102 records in buffer",
]
APP_LOG = ["INFO basket-api listening on :8080", "ERROR pricing lookup for sku 88 took 2.1s"]


def test_a_sidecar_killed_for_its_memory_is_told_by_the_sidecars_own_log() -> None:
    """Cause rule `causes.killed_for_memory`: a container terminated OOMKilled makes the pod oom_killed, told
    by that container's own evidence even when it is a sidecar."""
    fixture = cluster(
        [
            pod(
                NAME,
                NAMESPACE,
                "Running",
                container("basket-api", ready=True, limits={"memory": "1Gi"}, logs=APP_LOG),
                container(
                    "log-forwarder",
                    ready=False,
                    restarts=9,
                    state={"running": {"started_at": "2026-05-01T10:00:00Z"}},
                    last_state={"terminated": {"reason": "OOMKilled", "exit_code": 137}},
                    limits={"memory": "96Mi"},
                    logs=SIDECAR_LOG[:1],
                    previous_logs=SIDECAR_LOG,
                ),
            ),
            pod("basket-web-6f8d7c9b5-k2p4w", NAMESPACE, "Running"),
        ],
        [event(NAMESPACE, f"pod/{NAME}", "BackOff", "Back-off restarting failed container log-forwarder")],
    )

    report, calls = report_on(fixture, "Which pods in the checkout namespace are unhealthy, and why?")

    assert causes(report) == {f"pod/{NAME}": "oom_killed"}
    quoted = quotes(report, NAME)
    assert quoted[0] == "Last State: Terminated Reason: OOMKilled"
    assert SIDECAR_LOG[2] in quoted and APP_LOG[1] not in quoted
    (finding,) = report.findings
    assert "log-forwarder" in finding.explanation and "96Mi" in finding.explanation
    assert "log-forwarder" in finding.fix
    assert (
        "get_pod_logs",
        {"name": NAME, "namespace": NAMESPACE, "tail": 20, "container": "log-forwarder", "previous": True},
    ) in calls


def test_the_cause_rules_are_named_and_each_states_its_rule() -> None:
    for rule in CAUSE_RULES:
        assert rule.__doc__ and rule.__doc__.startswith("Cause rule: "), rule.__name__


PULLER = "indexer-7d9c8b6f5-p2q4r"
PULL_FAILED = (
    'Failed to pull image "registry.example.org/indexer:9.9": rpc error: code = NotFound '
    'desc = failed to resolve reference "registry.example.org/indexer:9.9": not found'
)


def test_a_warning_whose_trouble_has_passed_is_history_and_the_current_one_decides() -> None:
    """Rule `is_history`: a scheduling failure of a pod that has a node since is history; the current Warning
    decides."""
    waiting = container("indexer", state={"waiting": {"reason": "ImagePullBackOff"}})
    fixture = cluster(
        [
            pod(PULLER, "search", "ImagePullBackOff", waiting, age="40m"),
            pod("query-api-5b6c7d8f9-x2z4k", "search", "Running"),
        ],
        [
            event(
                "search",
                f"pod/{PULLER}",
                "FailedScheduling",
                "0/2 nodes are available: 2 Insufficient cpu.",
                last_seen="35m",
            ),
            event(
                "search",
                f"pod/{PULLER}",
                "Scheduled",
                "Successfully assigned search/indexer to worker-1",
                kind="Normal",
                last_seen="33m",
            ),
            event("search", f"pod/{PULLER}", "Failed", PULL_FAILED, last_seen="2m"),
        ],
    )

    report, _ = report_on(fixture, "What is wrong in the search namespace?")

    assert causes(report) == {f"pod/{PULLER}": "image_not_found"}
    assert quotes(report, PULLER)[0] == PULL_FAILED


def test_a_volume_that_attached_after_its_failure_is_history() -> None:
    """Rules `is_history` and `references_a_missing_object`: a volume's attach failure is history once a
    later event says it attached; the missing ConfigMap decides, as missing_config_reference."""
    waiting = container("indexer", state={"waiting": {"reason": "CreateContainerConfigError"}})
    missing = 'Error: configmap "indexer-synonyms" not found'
    fixture = cluster(
        [pod(PULLER, "search", "CreateContainerConfigError", waiting, age="30m")],
        [
            event(
                "search",
                f"pod/{PULLER}",
                "FailedAttachVolume",
                'Multi-Attach error for volume "pvc-1": Volume is already exclusively attached to one node',
                last_seen="29m",
            ),
            event(
                "search",
                f"pod/{PULLER}",
                "SuccessfulAttachVolume",
                'AttachVolume.Attach succeeded for volume "pvc-1"',
                kind="Normal",
                last_seen="26m",
            ),
            event("search", f"pod/{PULLER}", "Failed", missing, last_seen="1m"),
        ],
    )

    report, _ = report_on(fixture, "What is wrong in the search namespace?")

    assert causes(report) == {f"pod/{PULLER}": "missing_config_reference"}
    assert quotes(report, PULLER)[0] == missing


def test_of_two_warnings_of_one_kind_the_most_recent_tells_the_state_now() -> None:
    earlier = "0/3 nodes are available: 3 Insufficient memory."
    now = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
    fixture = cluster(
        [pod(PULLER, "search", "Pending", container("indexer"), node=None, age="1h")],
        [
            event("search", f"pod/{PULLER}", "FailedScheduling", earlier, last_seen="50m"),
            event("search", f"pod/{PULLER}", "FailedScheduling", now, last_seen="30s"),
        ],
    )

    report, _ = report_on(fixture, "What is wrong in the search namespace?")

    assert causes(report) == {f"pod/{PULLER}": "node_selector_mismatch"}
    assert quotes(report, PULLER)[0] == now


REFUSED = "data-load-q8w2x"
OVER_QUOTA = (
    'Error creating: pods "data-load-z4x6c" is forbidden: exceeded quota: batch-quota, '
    "requested: cpu=2, used: cpu=7, limited: cpu=8"
)


def test_a_pod_whose_job_is_refused_by_the_namespaces_quota_is_quota_exceeded() -> None:
    """Cause rule `refused_by_quota`: a pod whose owner's events (here its Job's, read with
    get_events once the pod failed) say it exceeded the namespace's ResourceQuota is quota_exceeded,
    quoted from that event and naming the quota."""
    failed = container("loader", ready=False, state={"terminated": {"reason": "Error", "exit_code": 1}})
    fixture = cluster(
        [
            pod(REFUSED, "batch", "Error", failed, phase="Failed"),
            pod("scheduler-7d8e9f6b5-c3v5b", "batch", "Running"),
        ],
        [event("batch", "job/data-load", "FailedCreate", OVER_QUOTA, count=14)],
    )

    report, _ = report_on(fixture, "What is wrong in the batch namespace?")

    assert causes(report) == {f"pod/{REFUSED}": "quota_exceeded"}
    assert OVER_QUOTA in quotes(report, REFUSED)[0]
    assert "batch-quota" in report.findings[0].explanation


JOB_POD = "nightly-export-x7k2p"
JOB_LOG = ["starting export of 3 tables", "ERROR table orders: permission denied for relation orders"]
GAVE_UP = "Job has reached the specified backoff limit"


def test_a_pod_of_a_job_that_reached_its_backoff_limit_is_told_by_the_jobs_event() -> None:
    """Cause rule `job_gave_up`: a pod of a Job whose events say BackoffLimitExceeded is
    job_backoff_limit, quoted from the Job's event, with the pod's own last words beside it."""
    failed = container(
        "export", ready=False, state={"terminated": {"reason": "Error", "exit_code": 1}}, logs=JOB_LOG
    )
    fixture = cluster(
        [
            pod(JOB_POD, "batch", "Error", failed, phase="Failed"),
            pod("scheduler-7d8e9f6b5-c3v5b", "batch", "Running"),
        ],
        [event("batch", "job/nightly-export", "BackoffLimitExceeded", GAVE_UP)],
    )

    report, _ = report_on(fixture, "What is wrong in the batch namespace?")

    assert causes(report) == {f"pod/{JOB_POD}": "job_backoff_limit"}
    quoted = quotes(report, JOB_POD)
    assert GAVE_UP in quoted[0] and JOB_LOG[1] in quoted
    assert "nightly-export" in report.findings[0].explanation


STALLED = "search-api-5d6f7c8b9-r4t6y"
STALLED_LOG = ["INFO search-api listening on :8080", "WARN query on index products took 14.2s"]
PROBE_FAILED = 'Liveness probe failed: Get "http://10.0.1.9:8080/healthz": context deadline exceeded'


def test_a_restarting_pod_killed_by_its_liveness_probe_with_no_crash_of_its_own_is_told_by_the_probe() -> (
    None
):
    """Cause rule `killed_by_its_liveness_probe`: a restarting pod with "Liveness probe failed"
    events whose logs show no crash of their own is liveness_probe_failure, quoted from the probe's
    event, not from its log."""
    stalled = container(
        "search-api",
        restarts=4,
        state={"running": {"started_at": "2026-05-01T10:00:00Z"}},
        last_state={"terminated": {"reason": "Error", "exit_code": 137}},
        logs=STALLED_LOG,
        previous_logs=STALLED_LOG,
    )
    fixture = cluster(
        [
            pod(STALLED, "search", "Running", stalled, ready=False),
            pod("search-web-6c7d8f9b5-u2i4o", "search", "Running"),
        ],
        [
            event("search", f"pod/{STALLED}", "Unhealthy", PROBE_FAILED, count=12),
            event(
                "search",
                f"pod/{STALLED}",
                "Killing",
                "Container search-api failed liveness probe, will be restarted",
                kind="Normal",
            ),
        ],
    )

    report, _ = report_on(fixture, "What is wrong in the search namespace?")

    assert causes(report) == {f"pod/{STALLED}": "liveness_probe_failure"}
    assert quotes(report, STALLED)[0] == PROBE_FAILED
