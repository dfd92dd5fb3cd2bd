"""The scorer on its own: a report that is right scores solved, and each way of being wrong costs what it should;
each loophole a trivial or careless report used to score through is a case here. Then the report built
from results lines: means over every run, the solved interval over incidents, rescoring, baselines.

The inputs are `ask --json` objects as the agents write them; the incident is a small truth.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.eval.corpus import Incident, Resource
from k8s_agent.eval.report import NO_BASELINES, as_json, build, html, markdown
from k8s_agent.eval.score import costs, counted, matches, quotes_fact, rescore, run_of, score
from k8s_agent_harness.evidence.report import Cause

CRASH = "payment-7c9d8f6b5-q2w4x"
PENDING = "ledger-6d5f7c8b9-k2m4p"
FACT = "FATAL: required environment variable DB_URL is not set"
SCHEDULER = "0/3 nodes are available: 3 Insufficient cpu."

INCIDENT = Incident(
    id="two-broken",
    folder=Path("."),
    question="Which pods in payments are unhealthy?",
    summary="",
    unhealthy=(
        Resource("pod", CRASH, "payments", Cause.CRASH_CONFIG, (), FACT),
        Resource("pod", PENDING, "payments", Cause.INSUFFICIENT_RESOURCES, (), SCHEDULER),
    ),
    allowed=(Resource("pod", "worker-5c8f9x7d2-vwx78", "payments"),),
)
HEALTHY = Incident(id="fine", folder=Path("."), question="q", summary="", unhealthy=())


def finding(
    name: str, cause: str, *quotes: str, verified: bool = True, ns: str = "payments"
) -> dict[str, Any]:
    return {
        "kind": "pod",
        "name": name,
        "namespace": ns,
        "status": "x",
        "cause": cause,
        "explanation": "x",
        "evidence": [{"text": q, "verified": verified} for q in quotes]
        or [{"text": "x", "verified": verified}],
        "fix": "x",
        "name_verified": True,
    }


def run(*findings: dict[str, Any], ungrounded: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "answer": "report",
        "report": {"scope": "payments", "findings": list(findings), "healthy": {"count": 3}},
        "ungrounded_names": list(ungrounded),
        "model_requests": 4,
        "tool_calls_executed": 6,
        "tool_calls_rejected": 1,
        "pushbacks": 1,
        "forced_summary": False,
        "prompt_tokens": 900,
        "bytes_sent": 12000,
        "wall_seconds": 1.5,
    }


RIGHT = run(finding(CRASH, "crash_config", FACT), finding(PENDING, "insufficient_resources", SCHEDULER))


def test_the_right_report_is_solved_with_every_score_full_and_its_costs() -> None:
    scored = score(RIGHT, INCIDENT)

    assert scored.solved and scored.scorable
    assert (scored.recall, scored.precision, scored.cause, scored.evidence, scored.fact) == (1, 1, 1, 1, 1)
    assert (
        scored.costs["requests"] == 4
        and scored.costs["guardrails"] == 2
        and scored.costs["bytes_sent"] == 12000
    )


def test_naming_the_wrong_pod_loses_recall_and_precision() -> None:
    scored = score(run(finding("payment-7c9d8f6b5-zzzzz", "crash_config", FACT)), INCIDENT)

    assert not scored.solved and scored.recall == 0 and scored.precision == 0
    assert scored.missed == [f"pod/{CRASH} (payments)", f"pod/{PENDING} (payments)"]
    assert scored.extra == ["pod/payment-7c9d8f6b5-zzzzz (payments)"]


def test_an_invented_pod_beside_the_right_ones_is_an_extra_and_ungrounded() -> None:
    invented = finding("billing-api-7d8f9c6b5-xk2lm", "oom_killed", "OOMKilled", verified=False)
    invented["name_verified"] = False
    scored = score(run(*RIGHT["report"]["findings"], invented), INCIDENT)

    assert not scored.solved and scored.recall == 1 and scored.precision == pytest.approx(2 / 3)
    assert scored.ungrounded == 1 and scored.evidence == pytest.approx(2 / 3)


def test_calling_everything_healthy_finds_nothing() -> None:
    scored = score(run(), INCIDENT)

    assert not scored.solved and scored.recall == scored.cause == scored.fact == 0
    assert scored.precision is None  # no finding: nothing to be precise about, not a free 1.0


def test_the_right_pods_with_a_wrong_cause_and_a_quote_that_is_not_the_fact() -> None:
    scored = score(
        run(
            finding(CRASH, "oom_killed", "Back-off restarting failed container"),
            RIGHT["report"]["findings"][1],
        ),
        INCIDENT,
    )

    assert not scored.solved and scored.recall == 1 and scored.cause == 0.5 and scored.fact == 0.5
    assert scored.wrong_cause == [f"pod/{CRASH} (payments): oom_killed (want crash_config)"]


def test_an_accepted_cause_counts_and_an_allowed_pod_costs_nothing() -> None:
    incident = Incident(
        id="x", folder=Path("."), question="q", summary="",
        unhealthy=(Resource("pod", CRASH, "payments", Cause.CRASH_CONFIG, (Cause.CRASH_APPLICATION,), FACT),),
        allowed=INCIDENT.allowed,
    )  # fmt: skip
    scored = score(
        run(finding(CRASH, "crash_application", FACT), finding("worker-5c8f9x7d2-vwx78", "unknown")), incident
    )

    assert scored.solved and scored.precision == 1 and scored.extra == []


def test_the_same_name_in_another_namespace_is_not_the_pod() -> None:
    scored = score(run(finding(CRASH, "crash_config", FACT, ns="staging")), INCIDENT)

    assert scored.recall == 0 and scored.extra == [f"pod/{CRASH} (staging)"]


def test_an_all_healthy_cluster_is_solved_by_an_empty_report_and_failed_by_any_finding() -> None:
    assert score(run(), HEALTHY).solved
    wrong = score(run(finding(CRASH, "crash_config", FACT)), HEALTHY)
    assert not wrong.solved and wrong.recall is None and wrong.precision == 0
    assert wrong.cause is wrong.fact is None  # not applicable to an empty truth


def test_a_prose_report_listing_every_pod_name_is_not_scorable_and_gets_no_recall() -> None:
    prose = {
        **RIGHT,
        "report": None,
        "answer": f"Maybe {CRASH} or {PENDING} or worker-5c8f9x7d2-vwx78: {FACT}.",
    }

    scored = score(prose, INCIDENT)

    assert not scored.scorable and not scored.solved
    assert scored.recall is scored.precision is scored.cause is scored.evidence is scored.fact is None
    assert scored.found == [] and len(scored.missed) == 2
    assert "prose report" in scored.why_not and "structured findings" in scored.why_not
    assert counted(scored.as_dict(), "recall", INCIDENT) == 0  # in the means: a run that found nothing


def test_a_failed_run_scores_nothing_and_says_why() -> None:
    scored = score(None, INCIDENT, "ModelError: the endpoint answered 500")

    assert not scored.solved and scored.recall == scored.cause == scored.fact == 0
    assert "the endpoint answered 500" in scored.why_not


# -- the loopholes: each a report that used to score and must not ---------------------------------------


def unverified(*findings: dict[str, Any]) -> dict[str, Any]:
    return run(*[{**f, "evidence": [{**q, "verified": False} for q in f["evidence"]]} for f in findings])


def test_a_report_whose_quotes_are_all_unverified_is_not_solved() -> None:
    scored = score(unverified(*RIGHT["report"]["findings"]), INCIDENT)

    assert not scored.solved and scored.recall == scored.cause == 1
    assert scored.fact == scored.evidence == 0
    assert scored.fact_missing == [f"pod/{CRASH} (payments)", f"pod/{PENDING} (payments)"]


def test_the_fact_must_be_in_a_verified_quote_and_is_matched_across_case_and_whitespace() -> None:
    not_the_fact = score(
        run(
            finding(CRASH, "crash_config", "Back-off restarting failed container"),
            RIGHT["report"]["findings"][1],
        ),
        INCIDENT,
    )
    spaced = score(
        run(
            finding(CRASH, "crash_config", "12:00:01  " + FACT.upper().replace(" ", "   ") + " (exit 1)"),
            RIGHT["report"]["findings"][1],
        ),
        INCIDENT,
    )

    assert not not_the_fact.solved and not_the_fact.fact == 0.5 and not_the_fact.evidence == 1
    assert spaced.solved and spaced.fact == 1


LOG = [
    "12:00:00 INFO starting payment 2.4.1",
    "12:00:00 INFO loading settings from /etc/payment/settings.yaml",
    "12:00:01 WARN metrics exporter: connection refused (will retry)",
    "12:00:01 " + FACT,
    "12:00:01 ERROR startup aborted",
    "12:00:01 INFO shutting down",
]


@pytest.mark.parametrize(
    ("lines", "proves"),
    [
        (LOG[3:4], True),
        (LOG[2:5], True),  # the fact's line with a neighbour on each side
        (LOG[1:4], True),  # two lines of context, both before it
        (LOG, False),  # the whole log: every fact in it, pointing at none
        (LOG[0:4], False),
    ],
    ids=["the-line", "one-each-side", "two-before", "the-whole-log", "three-before"],
)
def test_a_quote_proves_its_fact_as_a_line_with_its_neighbours_not_as_the_whole_result(
    lines: list[str], proves: bool
) -> None:
    scored = score(
        run(finding(CRASH, "crash_config", "\n".join(lines)), RIGHT["report"]["findings"][1]), INCIDENT
    )

    assert scored.solved is proves and scored.fact == (1 if proves else 0.5)


def test_only_a_findings_first_four_quotes_are_read_for_its_fact() -> None:
    """A finding that lists every line that might decide points at none: its fact is read from the
    first quotes, as many as a careful report needs."""
    guesses = [line for line in LOG if line != "12:00:01 " + FACT]
    fourth = score(
        run(finding(CRASH, "crash_config", *guesses[:3], FACT), RIGHT["report"]["findings"][1]), INCIDENT
    )
    fifth = score(
        run(finding(CRASH, "crash_config", *guesses[:4], FACT), RIGHT["report"]["findings"][1]), INCIDENT
    )

    assert fourth.solved and fourth.fact == 1
    assert not fifth.solved and fifth.fact == 0.5


def test_a_finding_without_its_namespace_names_no_pod() -> None:
    bare = {**RIGHT["report"]["findings"][0], "namespace": None}

    scored = score(run(bare, RIGHT["report"]["findings"][1]), INCIDENT)

    assert not scored.solved and scored.recall == 0.5 and scored.extra == [f"pod/{CRASH}"]


def test_a_pod_reported_as_a_node_or_a_node_as_a_pod_matches_nothing() -> None:
    node = "ip-10-0-1-17.ec2.internal"
    incident = Incident(
        id="node", folder=Path("."), question="q", summary="",
        unhealthy=(
            Resource("pod", CRASH, "payments", Cause.CRASH_CONFIG, (), FACT),
            Resource("node", node, None, Cause.NODE_NOT_READY, (), "Kubelet stopped posting node status"),
        ),
    )  # fmt: skip
    as_node = {**finding(CRASH, "crash_config", FACT), "kind": "node"}
    node_as_pod = finding(node, "node_not_ready", "Kubelet stopped posting node status.")
    right_node = {**node_as_pod, "kind": "node", "namespace": None}

    wrong = score(run(as_node, node_as_pod), incident)
    right = score(run(finding(CRASH, "crash_config", FACT), right_node), incident)

    assert not wrong.solved and wrong.recall == 0 and wrong.precision == 0 and len(wrong.extra) == 2
    assert right.solved and right.recall == 1


WORKLOADS = Incident(
    id="workloads", folder=Path("."), question="q", summary="",
    unhealthy=(
        Resource("pod", "payments-api-7c9d8f6b5-q2w4x", "payments", Cause.CRASH_CONFIG, (), FACT),
        Resource("pod", "payments-api-7c9d8f6b5-zx9k2", "payments", Cause.CRASH_CONFIG, (), FACT),
        Resource("pod", "payments-db-0", "payments", Cause.UNBOUND_VOLUME, (), "unbound immediate PersistentVolumeClaims"),
    ),
)  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        (kind, name)
        for kind in ("other", "deployment", "job")
        for name in ("payments", "payments-api", "payments-api-7c9d", "payments-d")
        if (kind, name) != ("deployment", "payments-api")  # the api pods' deployment: matched, below
    ],
)
def test_a_workload_finding_named_by_a_prefix_matches_no_pod(kind: str, name: str) -> None:
    broad = {**finding(name, "crash_config", FACT), "kind": kind}

    scored = score(run(broad), WORKLOADS)

    assert scored.recall == 0 and scored.found == [] and scored.extra == [f"{kind}/{name} (payments)"]


def test_a_workload_finding_names_the_pods_its_controller_names() -> None:
    deployment = {**finding("payments-api", "crash_config", FACT), "kind": "deployment"}
    statefulset = {
        **finding("payments-db", "unbound_volume", "unbound immediate PersistentVolumeClaims"),
        "kind": "other",
    }

    scored = score(run(deployment, statefulset), WORKLOADS)

    assert scored.solved and scored.recall == scored.precision == scored.fact == 1


JOB = "nightly-etl-29948485"
BACKOFF = (
    "Warning  BackoffLimitExceeded  job/nightly-etl-29948485  Job has reached the specified backoff limit"
)
JOB_PODS = Incident(
    id="job-pods", folder=Path("."), question="q", summary="",
    unhealthy=tuple(
        Resource("pod", f"{JOB}-{suffix}", "data", Cause.JOB_BACKOFF_LIMIT, (Cause.CRASH_APPLICATION,),
                 "Job has reached the specified backoff limit")
        for suffix in ("jsgmc", "xhl66")
    ),
)  # fmt: skip
JOB_ITSELF = Incident(
    id="job", folder=Path("."), question="q", summary="",
    unhealthy=(Resource("job", JOB, "data", Cause.JOB_BACKOFF_LIMIT, (), "Job has reached the specified backoff limit"),),
)  # fmt: skip


def test_a_job_finding_naming_the_failed_job_matches_its_pods_and_the_job() -> None:
    job = {**finding(JOB, "job_backoff_limit", BACKOFF, ns="data"), "kind": "job"}
    pod = finding(f"{JOB}-jsgmc", "job_backoff_limit", BACKOFF, ns="data")

    for incident in (JOB_PODS, JOB_ITSELF):
        scored = score(run(job), incident)
        assert scored.solved and scored.recall == scored.precision == scored.fact == 1, incident.id
    assert score(run(pod), JOB_ITSELF).solved  # the Job's pod names the Job (and must hold the fact)
    for wrong in ({**job, "kind": "pod"}, {**job, "kind": "deployment"}, {**job, "name": "nightly-etl"}):
        assert score(run(wrong), JOB_ITSELF).recall == 0, wrong


def test_the_same_pod_four_times_with_contradictory_causes_is_a_wrong_cause() -> None:
    first = finding(CRASH, "crash_config", FACT)
    others = [finding(CRASH, cause, FACT) for cause in ("oom_killed", "image_not_found", "evicted")]

    scored = score(run(first, *others, RIGHT["report"]["findings"][1]), INCIDENT)

    assert not scored.solved and scored.cause == 0.5
    assert scored.contradictory == [
        f"pod/{CRASH} (payments): crash_config, oom_killed, image_not_found, evicted"
    ]
    same = score(run(first, first, RIGHT["report"]["findings"][1]), INCIDENT)
    assert same.solved and same.contradictory == []  # a repeat that agrees is no contradiction


@pytest.mark.parametrize(
    ("executed", "failed", "solved"), [(0, 0, False), (3, 3, False), (1, 0, True), (4, 3, True)]
)
def test_an_all_healthy_truth_is_solved_only_after_a_successful_tool_call(
    executed: int, failed: int, solved: bool
) -> None:
    scored = score({**run(), "tool_calls_executed": executed, "tool_calls_failed": failed}, HEALTHY)

    assert scored.solved is solved and scored.successful_tool_calls == executed - failed
    assert ("without looking at the cluster" in scored.why_not) is not solved
    assert not score(None, HEALTHY, "ModelError: 500").solved


# -- the report: means over every run, intervals over incidents, rescoring, baselines -----------------------


def record(
    incident: Incident, result: dict[str, Any] | None, *, model: str = "m", repeat: int = 1,
    error: str | None = None, impl: str = "handwritten", digest: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A results line as `eval` writes it."""
    return {
        "kind": "k8s-agent-eval-run",
        "version": 1,
        "key": f"{impl}|{model}|{incident.id}|{repeat}",
        "impl": impl,
        "model": model,
        "incident": incident.id,
        "incident_digest": incident.digest if digest is None else digest,
        "repeat": repeat,
        "error": error,
        "score": score(result, incident, error).as_dict(),
        "report": (result or {}).get("report"),
        "answer": (result or {}).get("answer"),
        "run": None if result is None else {k: v for k, v in result.items() if k not in ("report", "answer")},
    }


def test_the_means_are_over_every_run_not_only_those_that_found_something() -> None:
    prose = {**RIGHT, "report": None}
    records = [
        record(INCIDENT, RIGHT, repeat=1),
        record(INCIDENT, None, repeat=2, error="ModelError: 500"),
        record(INCIDENT, prose, repeat=3),
        record(INCIDENT, run(), repeat=4),
    ]

    (group,) = build(records, [INCIDENT]).groups

    for metric in ("recall", "cause", "fact"):
        assert group.metrics[metric]["mean"] == pytest.approx(0.25) and group.metrics[metric]["runs"] == 4
    assert group.solved == 1


def incidents(count: int) -> list[Incident]:
    return [replace(INCIDENT, id=f"incident-{n}", digest=f"d{n}") for n in range(count)]


@pytest.mark.parametrize("solved_every", [True, False])
def test_repeats_of_a_deterministic_run_do_not_narrow_the_solved_interval(solved_every: bool) -> None:
    corpus = incidents(12)

    def records(repeats: int) -> list[dict[str, Any]]:
        return [
            record(i, RIGHT if solved_every or n % 3 else run(), repeat=r)
            for n, i in enumerate(corpus)
            for r in range(1, repeats + 1)
        ]

    once, five = (build(records(k), corpus).groups[0] for k in (1, 5))

    assert five.runs == 5 * once.runs and five.solved == 5 * once.solved
    assert five.solved_ci == once.solved_ci
    assert once.solved_ci[0] < once.solved_ci[1]  # all 12 solved still leaves room below 100 %
    if solved_every:
        assert once.solved_ci[0] < 0.8


def test_the_report_rescores_against_the_truth_as_it_is_now_and_says_it_changed() -> None:
    then = replace(INCIDENT, digest="then")
    now = replace(
        INCIDENT,
        digest="now",
        unhealthy=(replace(INCIDENT.unhealthy[0], cause=Cause.OOM_KILLED), INCIDENT.unhealthy[1]),
    )
    stored = [record(then, RIGHT), record(replace(INCIDENT, id="retired"), RIGHT)]
    assert stored[0]["score"]["solved"]

    report = build(stored, [now])

    assert report.groups[0].solved == 0 and report.verdicts_changed == 1 and report.rescored == 1
    assert (
        "changed since 1 of its 1 run" in report.changed[INCIDENT.id]
        and "then" in report.changed[INCIDENT.id]
    )
    assert report.unknown == {"retired": 1}
    text = markdown(report)
    assert (
        "## Incidents changed since their runs" in text and f"| {INCIDENT.id} (changed since run) |" in text
    )
    assert "## Results for incidents not in the corpus (not scored)" in text and "- retired: 1 run" in text
    shown = as_json(report)
    assert shown["changed_since_run"] == report.changed and shown["unknown_incidents"] == {"retired": 1}
    assert "id='changed'" in html(report) and "id='unknown'" in html(report)
    assert build([record(now, RIGHT, digest="now")], [now]).changed == {}


def test_a_line_written_before_runs_were_stored_is_rescored_from_its_report_and_costs() -> None:
    old = record(INCIDENT, RIGHT)
    del old["run"], old["incident_digest"]
    now = replace(INCIDENT, unhealthy=INCIDENT.unhealthy[:1])

    report = build([old], [now])

    assert report.rescored == 1 and report.groups[0].solved == 0  # the pending pod is extra now
    assert any("without the incident's digest" in note for note in report.notes)


def test_baselines_are_floor_rows_and_every_model_shows_its_margin_over_the_best() -> None:
    corpus = incidents(4)
    records = [record(i, RIGHT, model="gpt") for i in corpus]
    records += [record(i, RIGHT if n == 0 else run(), model="baseline:status") for n, i in enumerate(corpus)]
    records += [record(i, run(), model="baseline:parrot") for i in corpus]

    report = build(records, corpus)

    assert [g.model for g in report.real] == ["gpt"]
    assert [g.model for g in report.baselines] == ["baseline:parrot", "baseline:status"]
    (gpt,) = report.real
    assert gpt.margin == pytest.approx(75) and gpt.margin_over == "handwritten · baseline:status"
    text = markdown(report)
    assert "+75 pts over handwritten · baseline:status" in text and "Floor: the baselines" in text
    assert (
        text.index("| handwritten | gpt |")
        < text.index("Floor")
        < text.index("| handwritten | baseline:parrot |")
    )
    shown = as_json(report)
    assert shown["baselines"] == ["handwritten · baseline:parrot", "handwritten · baseline:status"]
    assert shown["groups"][0]["margin_over_best_baseline"]["points"] == pytest.approx(75)
    assert shown["baselines_note"] is None
    page = html(report)
    assert "id='floor'" in page and "data-floor='handwritten · baseline:parrot'" in page
    assert "data-group='handwritten · baseline:parrot'" not in page
    assert report.pairs == []  # baselines are no subject of the paired comparison


def test_each_implementation_s_margin_is_over_its_best_baseline_the_events_reader_here() -> None:
    corpus = incidents(4)
    records = []
    for impl, reader_solves in (("handwritten", 3), ("sdk", 2)):
        records += [record(i, RIGHT, model="gpt", impl=impl) for i in corpus]
        records += [record(i, run(), model="baseline:parrot", impl=impl) for i in corpus]
        records += [
            record(i, RIGHT if n == 0 else run(), model="baseline:status", impl=impl)
            for n, i in enumerate(corpus)
        ]
        records += [
            record(i, RIGHT if n < reader_solves else run(), model="baseline:rules", impl=impl)
            for n, i in enumerate(corpus)
        ]

    report = build(records, corpus)

    margins = {g.impl: (g.margin, g.margin_over) for g in report.real}
    assert margins == {
        "handwritten": (pytest.approx(25), "handwritten · baseline:rules"),
        "sdk": (pytest.approx(50), "sdk · baseline:rules"),
    }
    assert "| handwritten | gpt | 4 | 100%" in markdown(report)
    assert "+25 pts over handwritten · baseline:rules" in markdown(report)
    assert "<td class='margin'>+50 pts over sdk · baseline:rules</td>" in html(report)
    shown = {
        g["impl"]: g["margin_over_best_baseline"] for g in as_json(report)["groups"] if not g["baseline"]
    }
    assert shown["sdk"] == {"baseline": "sdk · baseline:rules", "points": pytest.approx(50)}
    assert len(as_json(report)["baselines"]) == 6


def test_the_same_model_through_another_cluster_server_is_scored_apart_against_its_own_floor() -> None:
    corpus = incidents(4)
    kube = {"cluster_server": "kubernetes-mcp-server"}
    records = [record(i, RIGHT, model="gpt") for i in corpus]
    records += [{**record(i, RIGHT if n < 3 else run(), model="gpt"), **kube} for n, i in enumerate(corpus)]
    records += [record(i, RIGHT if n < 2 else run(), model="baseline:status") for n, i in enumerate(corpus)]
    records += [{**record(i, run(), model="baseline:status"), **kube} for i in corpus]

    report = build(records, corpus)

    mock, through = report.real
    assert (mock.model, through.model) == ("gpt", "gpt via kubernetes-mcp-server")
    assert (mock.runs, mock.rate, through.runs, through.rate) == (4, 1.0, 4, 0.75)
    assert mock.margin == pytest.approx(50) and mock.margin_over == "handwritten · baseline:status"
    assert through.margin == pytest.approx(75)
    assert through.margin_over == "handwritten · baseline:status via kubernetes-mcp-server"


def test_without_baselines_every_format_says_so_in_one_line() -> None:
    report = build([record(INCIDENT, RIGHT)], [INCIDENT])

    assert report.groups[0].margin is None
    assert markdown(report).count(NO_BASELINES) == 1
    assert as_json(report)["baselines_note"] == NO_BASELINES
    assert html(report).count(NO_BASELINES) == 1 and "id='floor'" not in html(report)


def test_a_quote_copied_from_yaml_with_its_apostrophes_doubled_holds_its_decoded_fact() -> None:
    fact = "the HPA controller didn't find the target's scale"
    copied = {
        "text": "message: the HPA controller didn''t find the target''s scale subresource",
        "verified": True,
    }
    assert quotes_fact(copied, (fact,))
    assert not quotes_fact({**copied, "verified": False}, (fact,))
    assert not quotes_fact({"text": "message: the HPA controller did find it", "verified": True}, (fact,))


@pytest.mark.parametrize(
    "copied",
    [
        "Message: '0/3 nodes are available: 3 node(s) didn''t match Pod''s node affinity/selector.'",
        "Message: '0/3 nodes are available: 3 node(s) didn''t match Pod''s node\n    affinity/selector.'",
        "  message: \"0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.\"",
        '{"message": "0/3 nodes are available: 3 node(s) didn\\u0027t match Pod\\u0027s node affinity/selector."}',
        "3 node(s) didn''t match Pod''s node affinity/selector",
        "Message: '0/3\n    nodes\n    are\n    available:\n    3 node(s)\n    didn''t match Pod''s\n    node affinity/selector.'",
    ],
    ids=[
        "yaml-single-quoted",
        "yaml-folded",
        "yaml-double-quoted",
        "json-escaped",
        "a-piece-of-a-scalar",
        "yaml-folded-over-seven-lines",
    ],
)
def test_a_quote_of_a_yaml_or_json_string_holds_the_fact_its_value_holds(copied: str) -> None:
    fact = "3 node(s) didn't match Pod's node affinity/selector"

    assert quotes_fact({"text": copied, "verified": True}, (fact,))
    assert not quotes_fact({"text": copied, "verified": False}, (fact,))
    assert not quotes_fact({"text": copied.replace("match", "fit"), "verified": True}, (fact,))


def test_escaped_quotes_of_a_json_or_yaml_string_hold_the_fact_with_its_quotes() -> None:
    fact = 'secret "smtp-credentials" not found'

    for copied in (
        '"message": "Error: secret \\"smtp-credentials\\" not found"',
        'Error: secret \\"smtp-credentials\\" not found',
        "Message: 'Error: secret \"smtp-credentials\" not found'",
    ):
        assert quotes_fact({"text": copied, "verified": True}, (fact,)), copied
    assert not quotes_fact({"text": 'secret \\"smtp\\" not found', "verified": True}, (fact,))


def test_the_same_finding_quoted_as_each_server_prints_it_scores_the_same() -> None:
    """The mock cluster prints the scheduler's message as is, kubernetes-mcp-server as a YAML scalar
    with its apostrophes doubled: a verified quote of either proves the same fact."""
    fact = "3 node(s) didn't match Pod's node affinity/selector"
    incident = replace(
        INCIDENT,
        unhealthy=(Resource("pod", PENDING, "payments", Cause.NODE_SELECTOR_MISMATCH, (), fact),),
        allowed=(),
    )
    mock = run(finding(PENDING, "node_selector_mismatch", f"0/3 nodes are available: {fact}."))
    kube = run(
        finding(
            PENDING,
            "node_selector_mismatch",
            "Message: '0/3 nodes are available: 3 node(s) didn''t match Pod''s node\n    affinity/selector.'",
        )
    )

    on_mock, through_kube = score(mock, incident).as_dict(), score(kube, incident).as_dict()

    assert on_mock["solved"] and on_mock == through_kube


# -- the matching rule by kind --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["service", "pvc", "other"])
def test_a_resource_past_the_pods_is_matched_by_its_kind_and_its_name_both(kind: str) -> None:
    truth = Resource(kind, "payments-api", "payments")

    assert matches({"kind": kind, "name": "payments-api", "namespace": "payments"}, truth)
    assert not matches({"kind": "pod", "name": "payments-api", "namespace": "payments"}, truth)
    assert not matches({"name": "payments-api", "namespace": "payments"}, truth)  # no kind: a pod
    assert not matches({"kind": kind, "name": "payments", "namespace": "payments"}, truth)
    assert not matches({"kind": kind, "name": "payments-api", "namespace": "shop"}, truth)


def test_a_deployment_is_matched_by_its_name_or_by_a_pod_it_runs() -> None:
    truth = Resource("deployment", "payment", "payments")

    assert matches({"kind": "deployment", "name": "payment", "namespace": "payments"}, truth)
    assert matches({"kind": "pod", "name": CRASH, "namespace": "payments"}, truth)
    assert matches({"name": CRASH, "namespace": "payments"}, truth)  # no kind: a pod
    assert not matches({"kind": "service", "name": "payment", "namespace": "payments"}, truth)
    assert not matches({"kind": "deployment", "name": "ledger", "namespace": "payments"}, truth)


def test_a_finding_without_a_name_names_nothing() -> None:
    nameless = {**finding(CRASH, "crash_config", FACT), "name": ""}

    assert not any(matches(nameless, r) for r in (*INCIDENT.unhealthy, Resource("node", "")))
    scored = score(run(nameless), INCIDENT)
    assert scored.recall == 0 and scored.extra == ["pod/ (payments)"]


def test_an_extra_finding_is_labelled_by_its_kind_name_and_namespace() -> None:
    node = {**finding("worker-1", "node_pressure"), "kind": "node", "namespace": None}
    kindless = {k: v for k, v in finding("ghost-7c9d8f6b5-zzzzz", "crash_config").items() if k != "kind"}

    assert score(run(node, kindless), INCIDENT).extra == [
        "node/worker-1",
        "pod/ghost-7c9d8f6b5-zzzzz (payments)",
    ]


def test_two_findings_giving_one_pod_two_causes_are_contradictory_and_a_wrong_cause() -> None:
    scored = score(
        run(
            finding(CRASH, "crash_config", FACT),
            finding(CRASH, "oom_killed", FACT),
            finding(PENDING, "insufficient_resources", SCHEDULER),
        ),
        INCIDENT,
    )

    assert scored.found == [f"pod/{CRASH} (payments)", f"pod/{PENDING} (payments)"]
    assert scored.contradictory == [f"pod/{CRASH} (payments): crash_config, oom_killed"]
    assert scored.wrong_cause == [f"pod/{CRASH} (payments): crash_config / oom_killed (want crash_config)"]
    assert scored.cause == 0.5 and not scored.solved


# -- the quote's fact through the encodings ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("copied", "fact"),
    [
        ('"first line\\nsecond line"', "first line second line"),
        ("connection\\trefused", "connection refused"),
        ("caf\\u00e9 closed", "café closed"),
        ("path \\/var\\/run not found", "path /var/run not found"),
        ("connection\\rreset", "connection reset"),
        ("line one\\nline two", "line one line two"),
        ("\\u4e2d\\u6587", "\u4e2d\u6587"),
        ("a\\bb\\fc", "a\bb\fc"),
        ('message: "caf\\xe9 closed"', "café closed"),  # YAML's \x escape; JSON has none
        ("'it''s\n      folded'", "it's folded"),
    ],
    ids=[
        "json-newline",
        "tab",
        "unicode",
        "slash",
        "carriage-return",
        "newline",
        "unicode-no-leading-zero",
        "backspace-formfeed",
        "yaml-hex",
        "flow-scalar",
    ],
)
def test_each_escape_of_a_copied_string_is_read_as_what_it_means(copied: str, fact: str) -> None:
    assert quotes_fact({"text": copied, "verified": True}, (fact,))


@pytest.mark.parametrize(
    ("copied", "fact"),
    [
        ("caf\\u00e9 closed", "cafu00e9 closed"),
        ("a\\zb", "a\nb"),  # not an escape: kept as written
        ('message: "bad \\q escape"', "bad q escape"),  # neither JSON nor YAML: kept as written
    ],
    ids=["unicode-not-letters", "unknown-escape", "not-a-string"],
)
def test_what_is_no_escape_is_not_decoded_into_one(copied: str, fact: str) -> None:
    assert not quotes_fact({"text": copied, "verified": True}, (fact,))


def test_a_fact_wrapped_over_lines_is_held_and_an_empty_quote_holds_nothing() -> None:
    wrapped = {"text": "0/3 nodes are available:\n3 Insufficient cpu.", "verified": True}

    assert quotes_fact(wrapped, (SCHEDULER,))
    assert not quotes_fact({"text": "", "verified": True}, ("XX",))
    assert not quotes_fact({"verified": True}, ("XXXX",))


# -- runs that cannot be scored, and lines scored again --------------------------------------------------


def test_a_run_that_reports_its_own_error_is_failed_with_its_reason_and_its_costs() -> None:
    failed = {**RIGHT, "report": None, "error": "the endpoint answered 500", "ungrounded_names": ["x"]}

    scored = score(failed, INCIDENT)

    assert not scored.scorable and scored.solved is False
    assert scored.why_not == "the run failed: the endpoint answered 500"
    assert (scored.recall, scored.cause, scored.fact, scored.precision, scored.evidence) == (
        0,
        0,
        0,
        None,
        None,
    )
    assert scored.missed == [r.label for r in INCIDENT.unhealthy]
    assert scored.successful_tool_calls == 6 and scored.ungrounded == 1
    assert scored.costs == costs(failed) and scored.costs["requests"] == 4
    assert score(None, INCIDENT).why_not == "the run failed: no result"
    assert score(None, INCIDENT).costs == {} and score(None, INCIDENT).successful_tool_calls == 0


def test_a_prose_run_is_unscorable_with_its_costs_and_says_how_to_score_it() -> None:
    prose = {**RIGHT, "report": None, "ungrounded_names": ["a", "b"]}

    scored = score(prose, INCIDENT)

    assert scored.why_not == (
        "a prose report is not scored: resources found, cause, evidence and fact need structured findings "
        "(--report-format json_schema or json_text)"
    )
    assert scored.scorable is False and scored.solved is False and scored.recall is None
    assert scored.costs == costs(prose) and scored.successful_tool_calls == 6 and scored.ungrounded == 2


def test_a_run_s_costs_are_read_from_its_counters() -> None:
    counters = {
        "model_requests": 5,
        "tool_calls_executed": 7,
        "tool_calls_failed": 2,
        "prompt_tokens": 1000,
        "completion_tokens": 300,
        "bytes_sent": 4096,
        "rejected": {"unknown": 2, "invalid_args": 1},
        "pushbacks": 2,
        "forced_summary": 1,
        "wall_seconds": 2.5,
    }

    assert costs(counters) == {
        "requests": 5,
        "tool_calls": 7,
        "tool_failures": 2,
        "prompt_tokens": 1000,
        "completion_tokens": 300,
        "bytes_sent": 4096,
        "guardrails": 5,
        "forced_summary": True,
        "wall_seconds": 2.5,
    }
    assert costs({**counters, "tool_calls_rejected": 1})["guardrails"] == 3
    assert costs({}) == {
        "requests": 0,
        "tool_calls": 0,
        "tool_failures": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "bytes_sent": 0,
        "guardrails": 0,
        "forced_summary": False,
        "wall_seconds": 0.0,
    }


def test_a_line_without_its_run_is_rebuilt_from_its_report_answer_and_stored_costs() -> None:
    line = record(INCIDENT, RIGHT)
    del line["run"]

    rebuilt, rescorable = run_of(line)

    assert rescorable and rebuilt is not None
    assert rebuilt["report"] == RIGHT["report"] and rebuilt["answer"] == RIGHT["answer"]
    assert costs(rebuilt) == line["score"]["costs"]
    assert rescore(line, INCIDENT) == {**score(RIGHT, INCIDENT).as_dict(), "ungrounded": 0}
    line["score"]["ungrounded"] = 3  # the names the run's own reading found: kept from the line
    assert rescore(line, INCIDENT)["ungrounded"] == 3  # type: ignore[index]


def test_a_line_with_its_run_is_scored_from_it_and_a_failed_line_as_failed() -> None:
    line = record(INCIDENT, RIGHT)
    line["score"]["ungrounded"] = 3

    assert run_of(line) == ({**line["run"], "report": RIGHT["report"], "answer": RIGHT["answer"]}, True)
    assert rescore(line, INCIDENT) == score(RIGHT, INCIDENT).as_dict()
    failed = record(INCIDENT, None, error="ModelError: 500")
    assert run_of(failed) == (None, True)
    assert rescore(failed, INCIDENT)["why_not"] == "the run failed: ModelError: 500"  # type: ignore[index]
    assert run_of({"kind": "k8s-agent-eval-run"}) == (None, False)
    assert rescore({"kind": "k8s-agent-eval-run"}, INCIDENT) is None


def test_a_line_without_its_run_rebuilds_every_counter_from_its_stored_costs() -> None:
    stored = {
        "requests": 3,
        "tool_calls": 5,
        "tool_failures": 2,
        "prompt_tokens": 700,
        "completion_tokens": 90,
        "bytes_sent": 8000,
        "guardrails": 4,
        "forced_summary": True,
        "wall_seconds": 3.25,
    }
    line = {"answer": "prose only", "score": {"costs": stored}}  # a prose run: no report key at all

    rebuilt, rescorable = run_of(line)

    assert rescorable and rebuilt == {
        "report": None,
        "answer": "prose only",
        "model_requests": 3,
        "tool_calls_executed": 5,
        "tool_calls_failed": 2,
        "prompt_tokens": 700,
        "completion_tokens": 90,
        "bytes_sent": 8000,
        "tool_calls_rejected": 4,
        "forced_summary": True,
        "wall_seconds": 3.25,
    }
    assert costs(rebuilt) == stored
    bare, _ = run_of({"report": RIGHT["report"]})  # nothing stored: every counter zero
    assert bare is not None and costs(bare) == costs({})
    assert rescore({"report": RIGHT["report"], "score": {}}, INCIDENT)["ungrounded"] == 0  # type: ignore[index]


def test_a_solved_run_has_no_reason_and_a_report_made_without_looking_says_why() -> None:
    assert score(RIGHT, INCIDENT).why_not == ""
    blind = {**run(), "tool_calls_executed": 0}
    assert score(blind, HEALTHY).why_not == (
        "no successful tool call: a report made without looking at the cluster is not solved"
    )
