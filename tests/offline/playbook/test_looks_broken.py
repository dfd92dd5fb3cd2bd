"""Pods that look broken in the listing and are not: the playbook judges them from more than STATUS."""

from __future__ import annotations

from typing import Any

from tests.offline.test_offline_model import causes_of, event, mini_cluster, mini_pod


def aged(pod: dict[str, Any], age: str) -> dict[str, Any]:
    return {**pod, "age": age}


def test_a_running_pod_seconds_old_and_not_ready_yet_is_starting_unless_a_warning_says_otherwise() -> None:
    cluster = mini_cluster(
        [
            aged(mini_pod("api-6c5d4b4z2-zzzzz", "web", "Running", logs=["listening on :8080"]), "12s"),
            aged(mini_pod("api-6c5d4b4z2-bbbbb", "web", "Running", logs=["listening on :8080"]), "40s"),
            aged(mini_pod("api-6c5d4b4z2-ccccc", "web", "Running", ready=True, logs=["GET / 200"]), "3d"),
            aged(mini_pod("api-6c5d4b4z2-ddddd", "web", "Running", logs=["listening on :8080"]), "20m"),
        ],
        [
            event(
                "web",
                "pod/api-6c5d4b4z2-bbbbb",
                "Unhealthy",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
            event(
                "web",
                "pod/api-6c5d4b4z2-ddddd",
                "Unhealthy",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
        ],
    )

    causes, report, _ = causes_of(cluster, "Is anything wrong in the web namespace?")

    assert set(causes) == {"pod/api-6c5d4b4z2-bbbbb", "pod/api-6c5d4b4z2-ddddd"}
    assert any("api-6c5d4b4z2-zzzzz is starting" in line for line in report.unchecked)


def test_a_job_attempt_that_failed_and_was_retried_to_completion_is_not_unhealthy() -> None:
    cluster = mini_cluster(
        [
            aged(
                mini_pod("export-29401860-k7m2q", "data", "Error", logs=["upload: connection reset by peer"]),
                "40m",
            ),
            aged(mini_pod("export-29401860-t5w9z", "data", "Completed", logs=["uploaded"]), "38m"),
            aged(mini_pod("import-29401861-z2b4c", "data", "Error", logs=["Error: schema mismatch"]), "30m"),
            aged(mini_pod("import-29401861-d4x5f", "data", "Error", logs=["Error: schema mismatch"]), "28m"),
        ],
        [
            event(
                "data",
                "job/import-29401861",
                "BackoffLimitExceeded",
                "Job has reached the specified backoff limit",
            )
        ],
    )

    causes, report, _ = causes_of(cluster, "Is anything wrong in the data namespace?")

    assert set(causes) == {"pod/import-29401861-z2b4c", "pod/import-29401861-d4x5f"}
    assert any("export-29401860-k7m2q (Error) is an attempt of a Job" in line for line in report.unchecked)
