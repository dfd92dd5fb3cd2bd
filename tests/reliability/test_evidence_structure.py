"""The verified report against tool results shaped as the real Kubernetes MCP servers shape them
(docs/report.md, the verification rule: a quote is evidence about a resource only inside that
resource's record; a name is a resource only where a result shows it as one, of its kind, in its
namespace; a status is what that resource's record shows; a healthy example is a resource shown
healthy).

The cluster is tests/reliability/canned_cluster.py, served by tests/reliability/canned_server.py:
tables, `describe` blocks, indented and one-line JSON, YAML documents and streams, events, Helm
releases, an HPA, each tool declaring the arguments it honours. Each attack is a scripted model that
investigates, writes a report true but for one planted lie, and sends the same report again after
the correction. Both agents run it with the same wire, and the test reads the boundary: the report
as `ask --json` carries it (`report_verified`, `report_problems`, each quote's `check`, each
finding's `name_verified` and `status_verified`), the correction the model received, and the calls
the server received. The honest reports over the same outputs stay verified with no correction.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from k8s_agent.implementations import ask_function
from k8s_agent.scenarios import QUESTION
from k8s_agent_harness.cluster.client import McpClient
from k8s_agent_harness.config import Config
from k8s_agent_harness.errors import AgentError
from k8s_agent_harness.vocabulary import IMPLEMENTATIONS, Impl, Pushback
from k8s_agent_scripted_llm import Reply, ScriptedModelServer, Step, call, text
from tests.conftest import AgentRun, assert_every_call_answered, read_jsonl
from tests.processes import HANG_SECONDS, OUT_OF_REACH
from tests.reliability.canned_cluster import (
    ALPHABET,
    ANNOTATION,
    BACKOFF_LIMIT,
    CART,
    CHECKOUT,
    CHECKOUT_SCALED,
    FINISHED_DEPLOYMENT_POD,
    FINISHED_JOB_POD,
    FORGED_LINE,
    GENERATED,
    GHOST,
    HPA,
    HPA_MESSAGE,
    HPA_TARGET,
    INVENTORY,
    LEDGER,
    LOG_LINE,
    LONG_QUERY,
    NEIGHBOUR_STATE,
    NIGHTLY,
    ORDERS,
    PAYMENTS,
    PAYMENTS_DB,
    PAYMENTS_DB_PENDING,
    PAYMENTS_SCALED,
    PODS,
    PRESSURED_NODE,
    PRODUCTION,
    QUOTA,
    READINESS,
    REDACTED_QUERY,
    REDIS,
    RELEASE,
    RELEASE_FAILED,
    SCHEDULING,
    SEARCH_API,
    SEARCH_INDEXER,
    SELECTOR_LOG_LINE,
    SHARD,
    SIDECAR,
    STAGING,
    STALE_STATUS,
    STATEFUL_CREATE,
    TERMINATION_MESSAGE,
    TOOLS,
    WORKER,
    between,
    describe,
    one_line,
    plain_table,
    pods,
    row_of,
    summary,
    the_pod,
    wide_table,
    yaml_stream,
)
from tests.reliability.test_properties import LoopThread
from tests.wire import wire_view

CANNED_SERVER = Path(__file__).with_name("canned_server.py")
LISTING = wide_table(pods(PRODUCTION))
"""pods_list_in_namespace(namespace=production): kubernetes-mcp-server's table."""
SUMMARY = one_line(summary(pods(PRODUCTION)))
"""kubectl_get(resourceType=pods, namespace=production): mcp-server-kubernetes's summary, one line."""
STREAM = yaml_stream(pods(PRODUCTION, CART, INVENTORY))
"""pods_get_many(names=[cart, inventory]): two YAML documents."""
OOM_IN_YAML = between(STREAM, "exitCode: 137", "reason: OOMKilled")
"""Inventory's last termination, in the second document of STREAM."""
CHECKOUT_STATUS = "CrashLoopBackOff, READY 0/1, 9 restarts"


def oom_in_describe(namespace: str, name: str) -> str:
    return between(describe(the_pod(name, namespace)), "Last State:", "Exit Code:    137")


def quote(words: str, tool: str) -> dict[str, str]:
    return {"text": words, "tool": tool}


def finding(
    name: str,
    *quotes: dict[str, str],
    status: str,
    cause: str = "crash_config",
    kind: str = "pod",
    namespace: str | None = PRODUCTION,
) -> dict[str, Any]:
    return {
        "kind": kind,
        "name": name,
        "namespace": namespace,
        "status": status,
        "cause": cause,
        "explanation": "What the quoted evidence shows.",
        "evidence": list(quotes),
        "fix": "Act on what the evidence shows.",
    }


TRUE = finding(CHECKOUT, quote(LOG_LINE, "pods_log"), status=CHECKOUT_STATUS)
"""The true part of every attack: the crash-looping pod, its row's status and its own log line."""


def report(*findings: dict[str, Any], examples: tuple[str, ...] = (CART,)) -> str:
    return json.dumps(
        {
            "scope": "pods in namespace production",
            "findings": list(findings),
            "healthy": {"count": len(examples), "examples": list(examples)},
        }
    )


def investigate(*more: Step) -> list[Step]:
    """What every attack's model does first: list the namespace's pods, read the crashing pod's log."""
    return [
        call("pods_list_in_namespace", namespace=PRODUCTION),
        call("pods_log", namespace=PRODUCTION, name=CHECKOUT),
        *more,
    ]


# -- the rig ---------------------------------------------------------------------------------------


class Rig:
    """The canned server (its MCP client on a loop thread) and one scripted model server, for the module."""

    def __init__(self, workdir: Path) -> None:
        spec = workdir / "spec.json"
        spec.write_text(json.dumps({"tools": TOOLS}), encoding="utf-8")
        self.log = workdir / "received.jsonl"
        command = (sys.executable, str(CANNED_SERVER), str(spec), "--log", str(self.log))
        self.loop = LoopThread()
        self.context = McpClient.running(command, call_timeout=HANG_SECONDS, start_timeout=HANG_SECONDS)
        self.mcp = self.loop.run(self.context.__aenter__())
        self.server = ScriptedModelServer().start()
        self.workdir = workdir

    def run(self, impl: str, script: list[Step]) -> AgentRun:
        self.server.reset(script)
        config = Config(
            **{
                "impl": impl,
                "model": "scripted",
                "base_url": self.server.url,
                "api_key": "sk-test-not-a-real-key-000",
                "trace_dir": self.workdir / impl,
                "max_retries": 0,
                **OUT_OF_REACH,
                "report_format": "json_schema",
                "trust_server_hints": True,  # the canned server's tools all read: the test wrote them
            }
        )
        try:
            result = self.loop.run(ask_function(Impl(impl))(config, QUESTION, mcp=self.mcp))
        except AgentError as error:  # the script ran out: the harness asked for a correction
            asked = self.server.requests[-1]["messages"][-1]["content"] if self.server.requests else ""
            raise AssertionError(f"{impl}: a correction turn the script does not expect: {asked}") from error
        try:
            self.server.assert_done()
        except AssertionError:
            raise AssertionError(
                f"{impl}: the report was accepted with no correction turn (report_verified "
                f"{result.verified}, problems {list(result.report_problems)})"
            ) from None
        requests = list(self.server.requests)
        assert_every_call_answered(requests)
        return AgentRun(result, None, requests, [], read_jsonl(result.trace), result.trace)

    def received(self) -> list[dict[str, Any]]:
        """Every tools/call the canned server received, in order."""
        return read_jsonl(self.log)

    def close(self) -> None:
        self.server.stop()
        self.loop.run(self.context.__aexit__(None, None, None))
        self.loop.close()


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    shared = Rig(tmp_path_factory.mktemp("structure"))
    yield shared
    shared.close()


def scripted_calls(script: list[Step]) -> list[dict[str, Any]]:
    return [
        {"tool": c.name, "arguments": json.loads(c.arguments)}
        for step in script
        if isinstance(step, Reply)
        for c in step.tool_calls
    ]


def both(rig: Rig, script: list[Step]) -> AgentRun:
    """Both agents on the script, with the same wire and the same report; the server received each
    scripted call once per agent, arguments as sent. The hand-written agent's run."""
    before = len(rig.received())
    runs = {impl: rig.run(impl, script) for impl in IMPLEMENTATIONS}
    assert rig.received()[before:] == scripted_calls(script) * len(IMPLEMENTATIONS)
    assert wire_view(runs[Impl.HANDWRITTEN].requests) == wire_view(runs[Impl.SDK].requests)
    first = runs[Impl.HANDWRITTEN].result
    for run in runs.values():
        assert run.result is not None and run.result.report == first.report  # type: ignore[union-attr]
    return runs[Impl.HANDWRITTEN]


def named(out: dict[str, Any], name: str, kind: str = "pod") -> dict[str, Any]:
    return next(f for f in out["report"]["findings"] if f["name"] == name and f["kind"] == kind)


def fully_verified(found: dict[str, Any]) -> bool:
    return bool(
        found["name_verified"]
        and found["status_verified"]
        and all(q["verified"] and q["check"] == "verified" for q in found["evidence"])
    )


def kept_false(rig: Rig, planted: str, *more: Step) -> tuple[dict[str, Any], str]:
    """Run a model that investigates, sends `planted` and, after the correction, the same report
    again: the report as `ask --json` carries it, and the correction the model received."""
    run = both(rig, investigate(*more, text(planted), text(planted)))
    assert run.result is not None
    out = run.result.as_json()
    correction = run.requests[-1]["messages"][-1]
    assert correction["role"] == "user" and run.result.stats.pushbacks[Pushback.REPORT] == 1
    assert out["report_verified"] is False and out["report_problems"]
    assert fully_verified(named(out, CHECKOUT))
    return out, correction["content"]


def blames(out: dict[str, Any], correction: str, planted: str, *any_of: str) -> None:
    """Every problem is the planted lie's, and the correction names it (and one of `any_of`)."""
    assert all(planted in problem for problem in out["report_problems"]), out["report_problems"]
    assert planted in correction, correction
    assert not any_of or any(fragment in correction for fragment in any_of), correction


def elsewhere(evidence: dict[str, Any], resource: str) -> None:
    """The quote lies in `resource`'s record only: marked other_resource, about that resource."""
    assert (evidence["verified"], evidence["check"]) == (False, "other_resource"), evidence
    assert resource in (evidence["about"] or ""), evidence


def not_evidence(evidence: dict[str, Any], about_not: str) -> None:
    """The quote is evidence about nothing, or about something other than `about_not`."""
    assert evidence["verified"] is False and evidence["check"] != "verified", evidence
    assert about_not not in (evidence["about"] or ""), evidence


def honest(rig: Rig, verified_report: str, *steps: Step) -> dict[str, Any]:
    """Run a model that takes `steps` and sends an honest report: verified, with no correction turn."""
    run = both(rig, [*steps, text(verified_report)])
    assert run.result is not None
    out = run.result.as_json()
    assert (out["report_verified"], out["report_problems"]) == (True, []), out["report_problems"]
    assert run.result.stats.pushbacks[Pushback.REPORT] == 0 and len(run.requests) == len(steps) + 1
    for found in out["report"]["findings"]:
        assert fully_verified(found), found
    assert out["report"]["healthy"]["unverified_examples"] == []
    return out


# -- the fixture's names ---------------------------------------------------------------------------


def test_the_fixture_s_generated_names_are_names_kubernetes_could_generate() -> None:
    generated = f"[{ALPHABET}]"
    shapes = {
        "Deployment": rf"{generated}{{6,10}}-{generated}{{5}}",  # pod-template hash, random suffix
        "Job": rf"(\d+-)?{generated}{{5}}",  # an Indexed Job's pods carry their index
        "StatefulSet": r"\d+",
    }
    for name, (kind, controller, added) in GENERATED.items():
        assert name == f"{controller}-{added}" and re.fullmatch(shapes[kind], added), name
    assert re.fullmatch(r"nightly-report-\d+", GENERATED[NIGHTLY][1])  # a CronJob's Job: <cronjob>-<minutes>
    assert {p.name for p in PODS} <= set(GENERATED)


# -- 1. a JSON list read as one record about every item ---------------------------------------------


def test_a_sibling_json_item_s_status_does_not_verify_another_pod(rig: Rig) -> None:
    own_line = '"image": "registry.example.com/shop/cart:2.4.1"'
    planted = report(TRUE, finding(CART, quote(own_line, "kubectl_get"), status=CHECKOUT_STATUS))

    out, correction = kept_false(
        rig, planted, call("kubectl_get", resourceType="pods", namespace=PRODUCTION, output="json")
    )

    cart = named(out, CART)
    assert (cart["name_verified"], cart["status_verified"]) == (True, False)
    assert cart["evidence"][0]["check"] == "verified"  # its own item's line: true about it
    blames(out, correction, CART, "CrashLoopBackOff", "0/1")


def test_a_sibling_json_item_s_line_is_not_evidence_about_another_pod(rig: Rig) -> None:
    siblings = f'"message": "{TERMINATION_MESSAGE}"'
    planted = report(
        TRUE, finding(INVENTORY, quote(siblings, "kubectl_get"), status="Running, READY 1/1, 4 restarts")
    )

    out, correction = kept_false(
        rig, planted, call("kubectl_get", resourceType="pods", namespace=PRODUCTION, output="json")
    )

    elsewhere(named(out, INVENTORY)["evidence"][0], CHECKOUT)
    blames(out, correction, INVENTORY, TERMINATION_MESSAGE)


def test_an_event_line_with_no_header_is_not_evidence_about_another_pod(rig: Rig) -> None:
    planted = report(
        TRUE,
        finding(INVENTORY, quote(READINESS, "kubectl_get_events"), status="Running, READY 1/1, 4 restarts"),
    )

    out, correction = kept_false(rig, planted, call("kubectl_get_events", namespace=PRODUCTION))

    elsewhere(named(out, INVENTORY)["evidence"][0], PAYMENTS)
    blames(out, correction, INVENTORY)


# -- 2. a quote about whatever record it touches ----------------------------------------------------


def test_a_compact_one_line_json_list_is_not_one_record(rig: Rig) -> None:
    siblings = '"status":"CrashLoopBackOff","createdAt":"2026-12-02T08:31:40Z"'
    assert siblings in SUMMARY and CART in SUMMARY  # one line, naming both pods
    planted = report(
        TRUE,
        finding(CART, quote(siblings, "kubectl_get"), status="Running, READY 1/1", cause="crash_application"),
    )

    out, correction = kept_false(rig, planted, call("kubectl_get", resourceType="pods", namespace=PRODUCTION))

    elsewhere(named(out, CART)["evidence"][0], CHECKOUT)
    blames(out, correction, CART, "2026-12-02T08:31:40Z")


def test_a_quote_glued_across_two_json_items_is_about_neither(rig: Rig) -> None:
    glued = between(
        SUMMARY, '"status":"CrashLoopBackOff","createdAt":"2026-12-02T08:31:40Z"', f'"name":"{WORKER}"'
    )
    planted = report(
        TRUE,
        finding(WORKER, quote(glued, "kubectl_get"), status="Error, READY 0/1", cause="crash_application"),
    )

    out, correction = kept_false(rig, planted, call("kubectl_get", resourceType="pods", namespace=PRODUCTION))

    not_evidence(named(out, WORKER)["evidence"][0], WORKER)
    blames(out, correction, WORKER, "CrashLoopBackOff")


def test_a_quote_glued_across_two_table_rows_is_about_neither(rig: Rig) -> None:
    glued = between(LISTING, "CrashLoopBackOff   9 (2m ago)", WORKER)
    assert "\n" in glued  # the end of checkout's row, the start of the Job pod's
    planted = report(
        TRUE,
        finding(
            WORKER,
            quote(glued, "pods_list_in_namespace"),
            status="Error, READY 0/1",
            cause="crash_application",
        ),
    )

    out, correction = kept_false(rig, planted)

    not_evidence(named(out, WORKER)["evidence"][0], WORKER)
    blames(out, correction, WORKER, "CrashLoopBackOff")


# -- 3. arguments trusted by their key --------------------------------------------------------------


def test_an_argument_the_tool_does_not_declare_does_not_make_its_result_about_that_pod(rig: Rig) -> None:
    planted = report(
        TRUE, finding(CART, quote(SELECTOR_LOG_LINE, "logs_by_label"), status="Running, READY 1/1")
    )

    out, correction = kept_false(
        rig,
        planted,
        call("logs_by_label", namespace=PRODUCTION, labelSelector="app=checkout", name=CART),
    )

    assert {"tool": "logs_by_label", "arguments": {"namespace": PRODUCTION, "labelSelector": "app=checkout",
            "name": CART}} in rig.received()  # fmt: skip
    not_evidence(named(out, CART)["evidence"][0], CART)
    blames(out, correction, CART, SELECTOR_LOG_LINE[:40])


def test_an_undeclared_namespace_argument_places_no_row_of_a_table_without_a_namespace_column(
    rig: Rig,
) -> None:
    row = row_of(plain_table(pods(STAGING)), SEARCH_API)
    planted = report(
        TRUE,
        finding(
            SEARCH_API,
            quote(row, "pods_list_current_namespace"),
            status="CrashLoopBackOff, READY 0/1, 6 restarts",
            cause="crash_application",
        ),
    )

    out, correction = kept_false(rig, planted, call("pods_list_current_namespace", namespace=PRODUCTION))

    assert named(out, SEARCH_API)["name_verified"] is False  # the tool lists its context's namespace
    blames(out, correction, SEARCH_API)


def test_an_undeclared_kind_argument_does_not_turn_pod_rows_into_services(rig: Rig) -> None:
    row = row_of(plain_table(pods(PRODUCTION)), CART)
    planted = report(
        TRUE,
        finding(
            CART, quote(row, "kubectl_get_pods"), status="Running, READY 1/1", kind="service", cause="unknown"
        ),
    )

    out, correction = kept_false(rig, planted, call("kubectl_get_pods", namespace=PRODUCTION, kind="Service"))

    assert named(out, CART, kind="service")["name_verified"] is False
    blames(out, correction, CART)


# -- 4. records matched by name, never by namespace ------------------------------------------------


def test_a_pod_of_the_same_name_in_another_namespace_lends_no_describe_block(rig: Rig) -> None:
    planted = report(
        TRUE,
        finding(
            REDIS,
            quote(oom_in_describe(STAGING, REDIS), "kubectl_describe"),
            status="Running, READY 1/1",
            cause="oom_killed",
        ),
    )

    out, correction = kept_false(
        rig, planted, call("kubectl_describe", resourceType="pods", name=REDIS, namespace=STAGING)
    )

    redis = named(out, REDIS)
    assert redis["name_verified"] is True  # redis-0 is in production too, Running, 0 restarts
    elsewhere(redis["evidence"][0], STAGING)
    blames(out, correction, REDIS, "OOMKilled")


# -- 5. owner rules that swallow other workloads ----------------------------------------------------


def test_a_job_s_pod_is_not_a_pod_of_the_deployment_whose_name_its_name_extends(rig: Rig) -> None:
    planted = report(
        TRUE,
        finding(
            WORKER,
            quote(CHECKOUT_SCALED, "events_list"),
            status="Error, READY 0/1",
            cause="crash_application",
        ),
    )

    out, correction = kept_false(rig, planted, call("events_list", namespace=PRODUCTION))

    worker = named(out, WORKER)
    assert (worker["name_verified"], worker["status_verified"]) == (True, True)
    not_evidence(worker["evidence"][0], WORKER)
    blames(out, correction, WORKER, CHECKOUT_SCALED)


def test_a_stateful_set_s_pod_is_not_a_pod_of_the_deployment_named_by_its_first_word(rig: Rig) -> None:
    planted = report(
        TRUE,
        finding(
            PAYMENTS_DB, quote(PAYMENTS_SCALED, "events_list"), status="Running, READY 1/1", cause="unknown"
        ),
    )

    out, correction = kept_false(rig, planted, call("events_list", namespace=PRODUCTION))

    not_evidence(named(out, PAYMENTS_DB)["evidence"][0], PAYMENTS_DB)
    blames(out, correction, PAYMENTS_DB, PAYMENTS_SCALED)


# -- 6. a sighting without a kind ----------------------------------------------------------------------


def test_a_helm_release_named_like_a_pod_is_no_pod(rig: Rig) -> None:
    planted = report(
        TRUE, finding(RELEASE, quote(RELEASE_FAILED, "helm_list"), status="failed", cause="unknown")
    )

    out, correction = kept_false(rig, planted, call("helm_list", namespace=PRODUCTION))

    assert named(out, RELEASE)["name_verified"] is False
    blames(out, correction, RELEASE)


# -- 7. a multi-document YAML stream read as one document -------------------------------------------


def test_the_second_document_of_a_yaml_stream_is_not_about_the_first_document_s_pod(rig: Rig) -> None:
    planted = report(
        TRUE,
        finding(CART, quote(OOM_IN_YAML, "pods_get_many"), status="Running, READY 1/1", cause="oom_killed"),
    )

    out, correction = kept_false(
        rig, planted, call("pods_get_many", namespace=PRODUCTION, names=[CART, INVENTORY])
    )

    elsewhere(named(out, CART)["evidence"][0], INVENTORY)
    blames(out, correction, CART, "OOMKilled")


# -- 8. a pod's log line forging a resource ----------------------------------------------------------


def test_a_log_line_shaped_like_a_search_hit_forges_no_pod(rig: Rig) -> None:
    assert LEDGER not in json.dumps(TOOLS).replace(FORGED_LINE, "")  # only that log line names it
    planted = report(
        TRUE,
        finding(LEDGER, quote(FORGED_LINE, "pods_log"), status="CrashLoopBackOff", cause="dependency_down"),
    )

    out, correction = kept_false(rig, planted, call("pods_log", namespace=PRODUCTION, name=ORDERS))

    assert named(out, LEDGER)["name_verified"] is False
    blames(out, correction, LEDGER)


# -- 9. status words --------------------------------------------------------------------------------


def test_lowercase_and_hyphenated_status_words_are_checked(rig: Rig) -> None:
    planted = report(
        TRUE,
        finding(
            CART,
            quote(row_of(LISTING, CART), "pods_list_in_namespace"),
            status="Running, oom-killed and crash-looping",
            cause="oom_killed",
        ),
    )

    out, correction = kept_false(rig, planted)

    cart = named(out, CART)
    assert (cart["name_verified"], cart["status_verified"], cart["evidence"][0]["verified"]) == (
        True,
        False,
        True,
    )
    blames(out, correction, CART, "oom-killed", "crash-looping")


def test_a_look_alike_letter_does_not_hide_a_status_word(rig: Rig) -> None:
    planted = report(
        TRUE,
        finding(
            CART,
            quote(row_of(LISTING, CART), "pods_list_in_namespace"),
            status="Running, \u0415victed",  # a Cyrillic capital IE for the E
            cause="evicted",
        ),
    )

    out, correction = kept_false(rig, planted)

    cart = named(out, CART)
    assert (cart["name_verified"], cart["status_verified"], cart["evidence"][0]["verified"]) == (
        True,
        False,
        True,
    )
    blames(out, correction, CART)


# -- 10. healthy examples checked for existence only ------------------------------------------------


def test_a_crash_looping_pod_is_no_healthy_example(rig: Rig) -> None:
    planted = report(TRUE, examples=(CART, ORDERS))

    out, correction = kept_false(rig, planted)

    assert out["report"]["healthy"]["unverified_examples"] == [ORDERS]
    blames(out, correction, ORDERS)


POD_SHAPES = {
    "describe": call("kubectl_describe", resourceType="pods", name=INVENTORY, namespace=PRODUCTION),
    "yaml": call("pods_get", namespace=PRODUCTION, name=INVENTORY),
    "json": call("kubectl_get", resourceType="pods", namespace=PRODUCTION, output="json"),
}
"""Inventory (Running, READY 1/1, its last termination an OOM kill) as describe, YAML and JSON show it."""


@pytest.mark.parametrize("shape", POD_SHAPES)
def test_a_running_ready_pod_whose_last_state_was_an_oom_kill_is_a_healthy_example(
    rig: Rig, shape: str
) -> None:
    # Its last state is history: in every shape it is a pod that runs and is ready now.
    honest(rig, report(TRUE, examples=(CART, INVENTORY)), *investigate(POD_SHAPES[shape]))


HPA_SHAPES = {
    "yaml": call(
        "resources_get",
        apiVersion="autoscaling/v2",
        kind="HorizontalPodAutoscaler",
        namespace=PRODUCTION,
        name=HPA,
    ),
    "json": call("kubectl_get", resourceType="hpa", name=HPA, namespace=PRODUCTION, output="json"),
}
"""The HPA as kubernetes-mcp-server shows it (YAML) and as mcp-server-kubernetes does (indented JSON)."""


@pytest.mark.parametrize("shape", HPA_SHAPES)
def test_a_deployment_only_an_hpa_refers_to_is_no_healthy_example(rig: Rig, shape: str) -> None:
    planted = report(TRUE, examples=(CART, HPA_TARGET))

    out, correction = kept_false(rig, planted, HPA_SHAPES[shape])

    assert out["report"]["healthy"]["unverified_examples"] == [HPA_TARGET]
    blames(out, correction, HPA_TARGET)


@pytest.mark.parametrize("shape", HPA_SHAPES)
def test_a_deployment_only_an_hpa_refers_to_is_no_finding(rig: Rig, shape: str) -> None:
    said = 'current scale: deployments/scale.apps "search-api" not found'
    get_hpa = HPA_SHAPES[shape]
    assert isinstance(get_hpa, Reply)
    planted = report(
        TRUE,
        finding(
            HPA_TARGET,
            quote(said, get_hpa.tool_calls[0].name),
            status="FailedGetScale",
            kind="deployment",
            cause="unknown",
        ),
    )

    out, correction = kept_false(rig, planted, get_hpa)

    assert named(out, HPA_TARGET, kind="deployment")["name_verified"] is False
    blames(out, correction, HPA_TARGET)


# -- honest reports over the same outputs -----------------------------------------------------------


def test_rows_a_describe_block_and_events_read_honestly_stay_verified(rig: Rig) -> None:
    back_off = f"Back-off restarting failed container checkout in pod {CHECKOUT}"
    honest(
        rig,
        report(
            finding(
                CHECKOUT, quote(LOG_LINE, "pods_log"), quote(back_off, "events_list"), status=CHECKOUT_STATUS
            ),
            finding(
                INVENTORY,
                quote(oom_in_describe(PRODUCTION, INVENTORY), "kubectl_describe"),
                status="Running, READY 1/1, 4 restarts",
                cause="oom_killed",
            ),
            finding(
                PAYMENTS,
                quote(READINESS, "events_list"),
                status="Running, READY 0/1",
                cause="readiness_probe_failure",
            ),
            examples=(CART, PAYMENTS_DB),
        ),
        *investigate(
            call("kubectl_describe", resourceType="pods", name=INVENTORY, namespace=PRODUCTION),
            call("events_list", namespace=PRODUCTION),
        ),
    )


def test_json_items_read_honestly_stay_verified(rig: Rig) -> None:
    orders_item = f'{{"name":"{ORDERS}","namespace":"production","kind":"Pod","status":"CrashLoopBackOff"'
    assert orders_item in SUMMARY
    honest(
        rig,
        report(
            finding(
                CHECKOUT,
                quote(f'"message": "{TERMINATION_MESSAGE}"', "kubectl_get"),
                status="CrashLoopBackOff",
            ),
            finding(
                INVENTORY,
                quote('"reason": "OOMKilled"', "kubectl_get"),
                status="Running, 4 restarts, last terminated OOMKilled",
                cause="oom_killed",
            ),
            finding(
                ORDERS,
                quote(orders_item, "kubectl_get"),
                status="CrashLoopBackOff",
                cause="crash_application",
            ),
            finding(
                PAYMENTS, quote(READINESS, "kubectl_get"), status="Running", cause="readiness_probe_failure"
            ),
        ),
        call("kubectl_get", resourceType="pods", namespace=PRODUCTION, output="json"),
        call("kubectl_get", resourceType="pods", namespace=PRODUCTION),
        call("kubectl_get", resourceType="events", namespace=PRODUCTION),
    )


def test_yaml_documents_read_honestly_stay_verified(rig: Rig) -> None:
    assert "target''s" in json.dumps(TOOLS)  # the YAML doubles the apostrophe of HPA_MESSAGE
    honest(
        rig,
        report(
            finding(
                INVENTORY,
                quote(OOM_IN_YAML, "pods_get_many"),
                status="Running, 4 restarts, last terminated OOMKilled",
                cause="oom_killed",
            ),
            finding(
                HPA,
                quote(HPA_MESSAGE, "resources_get"),
                status="FailedGetScale",
                kind="other",
                cause="unknown",
            ),
        ),
        call("pods_get_many", namespace=PRODUCTION, names=[CART, INVENTORY]),
        HPA_SHAPES["yaml"],
    )


def test_pods_read_through_their_deployment_replica_set_and_job_stay_verified(rig: Rig) -> None:
    quota = "exceeded quota: compute, requested: limits.memory=512Mi"
    assert quota in QUOTA
    honest(
        rig,
        report(
            finding(
                CHECKOUT,
                quote(CHECKOUT_SCALED, "events_list"),
                quote(quota, "events_list"),
                status=CHECKOUT_STATUS,
            ),
            finding(
                PAYMENTS,
                quote(READINESS, "events_list"),
                quote(PAYMENTS_SCALED, "events_list"),
                status="Running, READY 0/1",
                cause="readiness_probe_failure",
            ),
            finding(
                WORKER,
                quote(BACKOFF_LIMIT, "events_list"),
                status="Error, READY 0/1",
                cause="job_backoff_limit",
            ),
            finding(
                NIGHTLY,
                quote(BACKOFF_LIMIT, "events_list"),
                status="Error, READY 0/1",
                cause="job_backoff_limit",
            ),
        ),
        call("pods_list_in_namespace", namespace=PRODUCTION),
        call("events_list", namespace=PRODUCTION),
    )


def test_events_printed_one_a_line_with_no_header_stay_verified(rig: Rig) -> None:
    # `kubectl get events --no-headers`: each line is about the object it names, as a row under OBJECT is.
    back_off = f"Back-off restarting failed container checkout in pod {CHECKOUT}"
    honest(
        rig,
        report(
            finding(
                CHECKOUT,
                quote(LOG_LINE, "pods_log"),
                quote(back_off, "kubectl_get_events"),
                status=CHECKOUT_STATUS,
            ),
            finding(
                WORKER,
                quote(BACKOFF_LIMIT, "kubectl_get_events"),
                status="Error, READY 0/1",
                cause="job_backoff_limit",
            ),
            finding(
                PAYMENTS,
                quote(READINESS, "kubectl_get_events"),
                status="Running, READY 0/1",
                cause="readiness_probe_failure",
            ),
        ),
        *investigate(call("kubectl_get_events", namespace=PRODUCTION)),
    )


def test_a_stateful_set_s_pod_and_a_pod_owned_by_its_owner_references_stay_verified(rig: Rig) -> None:
    honest(
        rig,
        report(
            finding(
                PAYMENTS_DB_PENDING,
                quote(SCHEDULING, "events_list"),
                quote(STATEFUL_CREATE, "events_list"),
                status="Pending, READY 0/1",
                cause="insufficient_resources",
            ),
            finding(
                SHARD,
                quote(BACKOFF_LIMIT, "events_list"),
                status="Error, READY 0/1",
                cause="job_backoff_limit",
            ),
            examples=(CART, PAYMENTS_DB),
        ),
        call("pods_list_in_namespace", namespace=PRODUCTION),
        call("events_list", namespace=PRODUCTION),
        call("pods_get", namespace=PRODUCTION, name=SHARD),  # ownerReferences: Job shard-import
    )


def test_namespaces_from_the_record_or_a_declared_argument_stay_verified(rig: Rig) -> None:
    honest(
        rig,
        report(
            finding(
                REDIS,
                quote(oom_in_describe(STAGING, REDIS), "kubectl_describe"),
                status="Running, READY 1/1, 4 restarts",
                namespace=STAGING,
                cause="oom_killed",
            ),
            finding(
                SEARCH_API,
                quote(row_of(plain_table(pods(STAGING)), SEARCH_API), "kubectl_get_pods"),
                status="CrashLoopBackOff, READY 0/1, 6 restarts",
                namespace=STAGING,
                cause="crash_application",
            ),
            examples=(SEARCH_INDEXER,),
        ),
        call("kubectl_describe", resourceType="pods", name=REDIS, namespace=STAGING),
        call("kubectl_get_pods", namespace=STAGING),  # a table without a NAMESPACE column
    )


# -- claims checked field by field (docs/report.md, "Status: field by field") ------------------------


def test_a_healthy_pod_s_last_state_is_not_its_status_in_describe_or_yaml(rig: Rig) -> None:
    for tool_call, evidence in (
        (call("kubectl_describe", resourceType="pods", name=INVENTORY, namespace=PRODUCTION),
         quote(oom_in_describe(PRODUCTION, INVENTORY), "kubectl_describe")),
        (call("pods_get", namespace=PRODUCTION, name=INVENTORY),
         quote("reason: OOMKilled", "pods_get")),
    ):  # fmt: skip
        planted = report(
            TRUE, finding(INVENTORY, evidence, status="OOMKilled, Terminated", cause="oom_killed")
        )

        out, correction = kept_false(rig, planted, tool_call)

        inventory = named(out, INVENTORY)
        assert (inventory["name_verified"], inventory["status_verified"]) == (True, False)
        blames(out, correction, INVENTORY, "history")


def test_a_number_is_checked_in_the_field_it_counts(rig: Rig) -> None:
    describe_call = call("kubectl_describe", resourceType="pods", name=WORKER, namespace=PRODUCTION)
    evidence = quote("Exit Code:    2", "kubectl_describe")
    planted = report(TRUE, finding(WORKER, evidence, status="Error, 2 restarts", cause="crash_application"))

    out, correction = kept_false(rig, planted, describe_call)

    assert named(out, WORKER)["status_verified"] is False
    blames(out, correction, WORKER, "'2'")
    honest(
        rig,
        report(
            TRUE,
            finding(WORKER, evidence, status="Error, Exit Code 2, 0 restarts", cause="crash_application"),
        ),
        *investigate(describe_call),
    )


def test_a_condition_s_status_is_its_own_not_another_condition_s(rig: Rig) -> None:
    for tool, evidence in (
        ("nodes_describe", "DiskPressure     True"),
        ("nodes_get", '"type": "DiskPressure"'),
    ):
        tool_call = call(tool, name=PRESSURED_NODE)
        node = finding(PRESSURED_NODE, quote(evidence, tool), status="MemoryPressure True",
                       kind="node", namespace=None, cause="node_pressure")  # fmt: skip

        out, correction = kept_false(rig, report(TRUE, node), tool_call)

        assert named(out, PRESSURED_NODE, "node")["status_verified"] is False
        blames(out, correction, PRESSURED_NODE, "'True'")
        node["status"] = "DiskPressure True, Ready True"
        honest(rig, report(TRUE, node), *investigate(tool_call))


def test_an_answer_about_a_pod_is_not_the_pod(rig: Rig) -> None:
    # An API Status body passed on as a result; a lookup's `{kind: Pod, name: ..., found: false}`.
    for tool in ("pods_lookup", "pods_exists"):
        tool_call = call(tool, namespace=PRODUCTION, name=GHOST)
        ghost = finding(GHOST, quote(f'"name": "{GHOST}"', tool), status="NotFound", cause="unknown")

        out, correction = kept_false(rig, report(TRUE, ghost), tool_call)

        assert named(out, GHOST)["name_verified"] is False
        blames(out, correction, GHOST)


def test_a_container_s_row_names_no_pod(rig: Rig) -> None:
    sidecar = finding(SIDECAR, quote(f"{SIDECAR}   2m           40Mi", "pods_top"), status="Running")

    out, correction = kept_false(rig, report(TRUE, sidecar), call("pods_top", namespace=PRODUCTION))

    assert named(out, SIDECAR)["name_verified"] is False
    blames(out, correction, SIDECAR)


def test_structured_content_the_text_contradicts_vouches_for_nothing(rig: Rig) -> None:
    listing = plain_table(pods(PRODUCTION, REDIS))
    stale = finding(REDIS, quote(row_of(listing, REDIS), "pods_status"), status=STALE_STATUS, cause="unknown")

    out, correction = kept_false(rig, report(TRUE, stale), call("pods_status", namespace=PRODUCTION))

    assert named(out, REDIS)["status_verified"] is False
    blames(out, correction, REDIS, "structured content")


def test_a_line_naming_another_pod_is_not_evidence_about_the_pod_the_call_or_record_names(rig: Rig) -> None:
    orders_row = f"{ORDERS},0/1,CrashLoopBackOff,6"
    # A CSV row of another pod; an annotation in cart's own object about another pod; the state
    # under another pod's key in a JSON map (as printed, and decoded apart from its key).
    for tool, line in (
        ("pod_neighbours", orders_row),
        ("pods_get_annotated", ANNOTATION),
        ("pod_states", NEIGHBOUR_STATE),
    ):
        tool_call = call(tool, namespace=PRODUCTION, name=CART)
        cart = finding(CART, quote(line, tool), status="Running, READY 1/1", cause="crash_application")

        out, correction = kept_false(rig, report(TRUE, cart), tool_call)

        elsewhere(named(out, CART)["evidence"][0], f"pod {ORDERS}")
        blames(out, correction, CART)
    own_row = f"{CART},1/1,Running,0"
    honest(
        rig,
        report(
            TRUE,
            finding(CART, quote(own_row, "pod_neighbours"), status="Running, READY 1/1", cause="unknown"),
        ),
        *investigate(call("pod_neighbours", namespace=PRODUCTION, name=CART)),
    )


def test_a_replica_set_a_rollout_owns_is_no_deployment_s(rig: Rig) -> None:
    deployment = finding("checkout", quote(LOG_LINE, "pods_log"), status=CHECKOUT_STATUS, kind="deployment")

    out, correction = kept_false(
        rig,
        report(TRUE, deployment),
        call("replicasets_get", namespace=PRODUCTION, name="checkout-5b7d9f6c8"),
    )

    checkout = named(out, "checkout", "deployment")
    assert checkout["name_verified"] is False
    not_evidence(checkout["evidence"][0], "deployment checkout")
    assert all("checkout" in problem for problem in out["report_problems"]), out["report_problems"]
    assert "deployment" in correction


def test_the_model_s_own_words_given_back_cut_or_redacted_are_no_evidence(rig: Rig) -> None:
    for query, echoed in (
        (LONG_QUERY, "OOMKilled: container exceeded its 512Mi"),
        (REDACTED_QUERY, "payments database rejected the login: password=[REDACTED]"),
    ):
        tool_call = call("pod_events_search", namespace=PRODUCTION, name=ORDERS, query=query)
        orders = finding(
            ORDERS, quote(echoed, "pod_events_search"), status="CrashLoopBackOff", cause="oom_killed"
        )

        out, correction = kept_false(rig, report(TRUE, orders), tool_call)

        assert named(out, ORDERS)["evidence"][0]["check"] == "too_short"
        blames(out, correction, ORDERS)


def test_a_deployment_s_finished_pod_is_no_healthy_example_a_job_s_is(rig: Rig) -> None:
    batch = call("pods_list_batch")
    planted = report(TRUE, examples=(FINISHED_DEPLOYMENT_POD,))

    out, correction = kept_false(rig, planted, batch)

    assert out["report"]["healthy"]["unverified_examples"] == [FINISHED_DEPLOYMENT_POD]
    blames(out, correction, FINISHED_DEPLOYMENT_POD, "unhealthy")
    honest(rig, report(TRUE, examples=(FINISHED_JOB_POD,)), *investigate(batch))
