"""A quoted line mapped to the report's cause (playbook/taxonomy.py): the first rule of TAXONOMY
that names one gives it."""

from __future__ import annotations

import pytest

from k8s_agent_scripted_llm.playbook.tables import Pod
from k8s_agent_scripted_llm.playbook.taxonomy import cause_and_fix

CRASHING = Pod("jobs", "worker-5d6c7b8f9-a2b4c", "0/1", "CrashLoopBackOff", 4)
PULLING = Pod("jobs", "worker-5d6c7b8f9-a2b4c", "0/1", "ImagePullBackOff", 0)
PENDING = Pod("jobs", "worker-5d6c7b8f9-a2b4c", "0/1", "Pending", 0)
RUNNING = Pod("jobs", "worker-5d6c7b8f9-a2b4c", "0/1", "Running", 0)
SCHEDULING = "Events:\n  Warning  FailedScheduling  1m  default-scheduler  ..."


@pytest.mark.parametrize(
    ("pod", "line", "description", "cause"),
    [
        (CRASHING, "Last State: Terminated Reason: OOMKilled", "", "oom_killed"),
        (CRASHING, "FATAL required setting QUEUE_URL is not set", "", "crash_config"),
        (CRASHING, '{"level":"error","msg":"unknown option --fast"}', "", "crash_config"),
        (CRASHING, "panic: index out of range [3] with length 3", "", "crash_application"),
        (PULLING, 'Failed to pull image "r.example.org/w:9": manifest unknown', "", "image_not_found"),
        (PULLING, 'Failed to pull image "r.example.org/w:9": 403 Forbidden', "", "image_unauthorized"),
        (PENDING, "0/2 nodes are available: 2 Insufficient cpu.", SCHEDULING, "insufficient_resources"),
        (
            PENDING,
            "0/2 nodes are available: 2 node(s) had untolerated taint {gpu: }.",
            SCHEDULING,
            "untolerated_taint",
        ),
        (
            RUNNING,
            "Readiness probe failed: HTTP probe failed with statuscode: 500",
            "",
            "readiness_probe_failure",
        ),
        (
            RUNNING,
            'Liveness probe failed: Get "http://10.0.0.7:8080/healthz": context deadline exceeded',
            "",
            "liveness_probe_failure",
        ),
        (
            PENDING,
            "0/3 nodes are available: 3 node(s) had volume node affinity conflict.",
            SCHEDULING,
            "unschedulable",
        ),
        (
            PENDING,
            "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
            SCHEDULING,
            "node_selector_mismatch",
        ),
        (RUNNING, "WARN slow request", "", "unknown"),
    ],
)
def test_a_quoted_line_is_mapped_by_the_first_rule_that_names_a_cause(
    pod: Pod, line: str, description: str, cause: str
) -> None:
    """Rules `taxonomy.killed_for_memory`, `refuses_its_configuration`, `cannot_pull_its_image`,
    `cannot_be_scheduled`, `fails_its_readiness_probe`, `fails_its_liveness_probe` and `crashes`: each
    maps its kind of line to its cause."""
    assert cause_and_fix(pod, line, description)[0] == cause
