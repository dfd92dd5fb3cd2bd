"""The report schema, how an answer is read, the verification rule and the renderings (evidence/report.py, verification.py, rendering.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from k8s_agent_harness.config import Config
from k8s_agent_harness.evidence.grounding import ToolText
from k8s_agent_harness.evidence.rendering import render_markdown, render_text
from k8s_agent_harness.evidence.report import (
    MAX_REPORT_BYTES,
    REPORT_ADAPTER,
    REPORT_JSON_SCHEMA,
    REPORT_SCHEMA_VERSION,
    Cause,
    HealthReport,
    instructions,
    parse_report,
    report_fields,
    response_format,
)
from k8s_agent_harness.evidence.verification import verify
from k8s_agent_harness.model import prompts
from k8s_agent_harness.vocabulary import ReportFormat
from k8s_agent_mock_cluster.cluster import table

LOGS = ToolText(
    "call_2",
    "get_pod_logs",
    "2026-11-30T04:12:02Z ERROR   config validation failed:\n   missing required field 'DB_PASSWORD'",
    '{"name": "api-7d9f8-x2x", "namespace": "shop"}',
    parameters=("name", "namespace", "tail"),
)
LISTING = ToolText(
    "call_1",
    "list_pods",
    "NAMESPACE   NAME            READY   STATUS             RESTARTS\n"
    "shop        api-7d9f8-x2x   0/1     CrashLoopBackOff   14\n"
    "shop        web-5c6b4-k8m   1/1     Running            0\n",
    '{"namespace": "shop"}',
    parameters=("namespace",),
)
JSON_RESULT = ToolText(
    "call_3",
    "pods_get",
    json.dumps(
        {
            "kind": "Pod",
            "metadata": {"name": "api-7d9f8-x2x", "namespace": "shop"},
            "status": {"message": 'back-off 5m0s "api"\nrestarting'},
        }
    ),
)


def report(*findings: dict[str, Any], **fields: Any) -> HealthReport:
    return HealthReport.model_validate(
        {"scope": "pods in namespace shop", "findings": list(findings), **fields}
    )


def finding(
    name: str,
    *quotes: str,
    call_id: str | None = None,
    kind: str = "pod",
    status: str = "CrashLoopBackOff",
    namespace: str | None = "shop",
) -> dict[str, Any]:
    return {
        "kind": kind,
        "name": name,
        "namespace": namespace,
        "status": status,
        "cause": "crash_config",
        "explanation": "It lacks a setting.",
        "evidence": [{"text": quote, "call_id": call_id} for quote in quotes],
        "fix": "Set it.",
    }


@pytest.mark.parametrize(
    "text",
    [
        '{"scope": "s"}',
        '```json\n{"scope": "s"}\n```',
        'Here is the report:\n```\n{"scope": "s"}\n```\nThanks.',
        'The report: {"scope": "s"} (end)',
        '{"scope": "s"}\nThat is all I found.',
        'Read {this} first:\n```json\n{"scope": "s"}\n```',
    ],
    ids=["bare", "fenced", "fence-in-prose", "braces-in-prose", "prose-after", "braces-before-a-fence"],
)
def test_a_report_is_read_bare_or_fenced(text: str) -> None:
    parsed, problem = parse_report(text)

    assert problem is None and parsed is not None and parsed.scope == "s" and parsed.findings == []


def test_what_does_not_parse_or_validate_is_named_exactly() -> None:
    assert (
        parse_report("all good")[1]
        == "the report is not valid JSON: Expecting value: line 1 column 1 (char 0)"
    )
    _, problem = parse_report(json.dumps({"scope": "s", "findings": [{"name": "x", "cause": "bad luck"}]}))
    assert problem is not None and problem.startswith("the report does not fit the schema: ")
    assert "findings.0.cause: Input should be 'crash_config'" in problem
    assert "findings.0.evidence: Field required" in problem and "findings.0.fix: Field required" in problem
    _, empty = parse_report(json.dumps({"scope": "s", "findings": [{**finding("x"), "evidence": []}]}))
    assert empty is not None and "findings.0.evidence: List should have at least 1 item" in empty


def test_a_quote_is_verified_when_a_result_about_its_resource_holds_it_whitespace_normalised() -> None:
    quote = "config validation failed: missing required field 'DB_PASSWORD'"
    checked = verify(
        report(finding("api-7d9f8-x2x", quote, "ERROR config validation", call_id="call_1")), [LISTING, LOGS]
    )

    assert checked.problems == []
    first, second = checked.report.findings[0].evidence
    # Cited the listing, but the text is in the logs: the harness points at where it really is.
    assert (first.verified, first.check, first.call_id, first.tool) == (
        True,
        "verified",
        "call_2",
        "get_pod_logs",
    )
    assert (second.verified, second.call_id) == (True, "call_2")
    assert checked.report.findings[0].name_verified and checked.report.findings[0].status_verified


def test_a_quote_of_a_json_value_is_read_without_its_escapes() -> None:
    checked = verify(
        report(finding("api-7d9f8-x2x", 'back-off 5m0s "api" restarting')), [LISTING, JSON_RESULT]
    )

    assert checked.problems == [] and checked.report.findings[0].evidence[0].call_id == "call_3"


def test_a_quote_in_no_result_and_a_name_no_tool_returned_are_each_named() -> None:
    made_up = "panic: connection refused to the database"
    checked = verify(
        report(finding("api-7d9f8-x2x", made_up), finding("api-7d9f8", "CrashLoopBackOff")), [LISTING]
    )

    assert checked.problems == [
        f"the quote {made_up!r} (finding api-7d9f8-x2x) appears in no tool result of this run",
        "finding 'api-7d9f8' names a pod that no tool returned as a resource (a listing row, a describe "
        "header or an event's object)",  # a prefix of a name is not the name
        "the quote 'CrashLoopBackOff' (finding api-7d9f8) is from a result about pod api-7d9f8-x2x in "
        "namespace shop, not about pod api-7d9f8: quote what the tools showed for it",
    ]
    assert checked.unverified_names == ["api-7d9f8"]
    assert [f.name_verified for f in checked.report.findings] == [True, False]
    assert checked.report.findings[0].evidence[0].check == "not_found"


def test_a_call_that_read_a_pod_makes_its_result_about_that_pod_but_does_not_show_its_name() -> None:
    # The logs do not name the pod; the call that read them does: evidence about it. But a name is
    # verified only where a result shows it as a resource: the logs alone verify no name.
    quote = "missing required field 'DB_PASSWORD'"
    alone = verify(report(finding("api-7d9f8-x2x", quote)), [LOGS])
    with_listing = verify(report(finding("api-7d9f8-x2x", quote)), [LISTING, LOGS])

    assert alone.report.findings[0].evidence[0].verified is True
    assert alone.report.findings[0].name_verified is False
    assert with_listing.problems == []


def test_the_model_cannot_mark_its_own_quotes_verified() -> None:
    claimed = finding("api-7d9f8-x2x", "invented and never returned")
    claimed["evidence"][0].update(verified=True, check="verified")
    checked = verify(report({**claimed, "name_verified": True, "status_verified": True}), [LISTING])

    assert checked.report.findings[0].evidence[0].verified is False and len(checked.problems) == 1


def test_the_terminal_and_markdown_renderings_mark_each_quote() -> None:
    checked = verify(
        report(
            finding("api-7d9f8-x2x", "CrashLoopBackOff", "made `up` and not there"),
            healthy={"count": 3, "examples": ["web-5c6b4-k8m"]},
        ),
        [LISTING],
    ).report

    text = render_text(checked)
    assert text.startswith("Health report: pods in namespace shop\n\n1 unhealthy, 3 healthy.")
    assert "   Evidence (list_pods) ✓: CrashLoopBackOff" in text
    assert "   Evidence (tool result) ✗ unverified (in no tool result): made `up` and not there" in text
    assert "Healthy: 3, for example web-5c6b4-k8m." in text
    markdown = render_markdown(checked)
    assert "### pod `api-7d9f8-x2x` in `shop`: CrashLoopBackOff" in markdown
    assert "- **Evidence** (list_pods, verified): `CrashLoopBackOff`" in markdown
    assert (
        "- **Evidence** (tool result, **unverified** (in no tool result)): ``made `up` and not there``"
        in markdown
    )


def test_the_schema_is_versioned_data_the_sdk_would_send_the_same() -> None:
    assert REPORT_JSON_SCHEMA["title"] == "HealthReport" and "findings" in REPORT_JSON_SCHEMA["properties"]
    causes = REPORT_JSON_SCHEMA["$defs"]["Cause"]["enum"]
    assert causes == [cause.value for cause in Cause] and "unknown" in causes
    assert response_format() == {
        "type": "json_schema",
        "json_schema": {"name": "final_output", "strict": False, "schema": REPORT_JSON_SCHEMA},
    }


def test_the_correction_names_at_most_a_dozen_problems() -> None:
    message = prompts.report_correction([f"problem {n}" for n in range(30)])

    assert "problem 11; and 18 more." in message and "problem 12" not in message


@pytest.mark.parametrize(
    ("settings", "mode"),
    [
        ({}, ReportFormat.JSON_SCHEMA),  # the offline model
        ({"model": "gpt-4.1"}, ReportFormat.JSON_SCHEMA),  # api.openai.com
        ({"model": "gpt-4.1", "base_url": "https://api.openai.com/v1"}, ReportFormat.JSON_SCHEMA),
        ({"model": "llama3.1", "base_url": "http://localhost:11434/v1"}, ReportFormat.JSON_TEXT),
        (
            {"model": "x", "base_url": "http://vllm:8000/v1", "report_format": "json_schema"},
            ReportFormat.JSON_SCHEMA,
        ),
        ({"model": "x", "report_format": "PROSE"}, ReportFormat.PROSE),
    ],
)
def test_auto_picks_json_schema_for_openai_and_the_offline_model_and_json_text_elsewhere(
    settings: dict[str, Any], mode: ReportFormat
) -> None:
    assert Config(**settings).report_mode is mode


def test_a_row_about_another_pod_is_not_about_the_pod_a_filter_asked_for() -> None:
    # A server that ignores the `pod` filter returns another pod's events: the call named web-5c6b4-k8m,
    # but the row is api-7d9f8-x2x's.
    rows = table(
        ("NAMESPACE", "TYPE", "REASON", "OBJECT", "MESSAGE"),
        [("shop", "Warning", "BackOff", "pod/api-7d9f8-x2x", "Back-off restarting failed container api")],
    )
    events = ToolText(
        "call_5",
        "get_events",
        rows,
        '{"namespace": "shop", "pod": "web-5c6b4-k8m"}',
        parameters=("namespace", "pod", "type"),
    )

    checked = verify(
        report(finding("web-5c6b4-k8m", "Back-off restarting failed container api", status="Running")),
        [LISTING, events],
    )

    (quote,) = checked.report.findings[0].evidence
    assert (quote.check, quote.about) == ("other_resource", "pod api-7d9f8-x2x in namespace shop")


def test_a_healthy_example_must_be_a_resource_a_tool_showed() -> None:
    checked = verify(report(healthy={"count": 2, "examples": ["web-5c6b4-k8m", "shop"]}), [LISTING])

    assert checked.report.healthy.unverified_examples == ["shop"]  # a namespace, not a resource
    assert checked.problems == ["the healthy example 'shop' names nothing a tool showed"]


def test_a_healthy_example_the_tools_showed_unhealthy_is_refused() -> None:
    crashing = verify(report(healthy={"count": 2, "examples": ["web-5c6b4-k8m", "api-7d9f8-x2x"]}), [LISTING])

    assert crashing.report.healthy.unverified_examples == ["api-7d9f8-x2x"]  # shown CrashLoopBackOff
    assert crashing.problems == [
        "the healthy example 'api-7d9f8-x2x' is not healthy: the tools showed it unhealthy"
    ]


def test_a_log_line_of_one_pod_naming_another_is_evidence_about_the_pod_it_was_read_from() -> None:
    chatty = ToolText(
        "call_4",
        "get_pod_logs",
        "WARN upstream api-7d9f8-x2x is OOMKilled with 99 restarts",
        '{"name": "web-5c6b4-k8m", "namespace": "shop"}',
        parameters=("name", "namespace"),
    )

    checked = verify(
        report(finding("api-7d9f8-x2x", "upstream api-7d9f8-x2x is OOMKilled")), [LISTING, chatty]
    )

    (quote,) = checked.report.findings[0].evidence
    assert (quote.check, quote.about) == ("other_resource", "pod web-5c6b4-k8m in namespace shop")


def test_a_short_quote_about_its_resource_is_answered_with_the_line_that_would_do() -> None:
    checked = verify(report(finding("api-7d9f8-x2x", "0/1")), [LISTING])

    assert checked.report.findings[0].evidence[0].check == "too_short"
    assert checked.problems == [
        "the quote '0/1' (finding api-7d9f8-x2x) is too short to be evidence: quote a whole line of the "
        "result, or at least 12 letters or digits of it beyond what the call itself was asked (here, the "
        "line 'shop api-7d9f8-x2x 0/1 CrashLoopBackOff 14')"
    ]
    suggested = verify(
        report(finding("api-7d9f8-x2x", "shop api-7d9f8-x2x 0/1 CrashLoopBackOff 14")), [LISTING]
    )
    assert suggested.problems == []


def test_a_status_of_column_labels_alone_states_nothing() -> None:
    checked = verify(
        report(finding("web-5c6b4-k8m", "web-5c6b4-k8m 1/1 Running 0", status="READY STATUS")), [LISTING]
    )

    assert checked.report.findings[0].status_verified is False
    assert checked.problems == [
        "the status 'READY STATUS' of finding 'web-5c6b4-k8m' states nothing the tools showed: write it as they "
        "show it (e.g. CrashLoopBackOff, READY 0/1, 14 restarts)"
    ]


WORKLOAD_LISTING = ToolText(
    "call_1",
    "list_pods",
    "NAMESPACE   NAME                          READY   STATUS             RESTARTS\n"
    "shop        checkout-7c9d8f6b5-q2w4x      0/1     CrashLoopBackOff   14\n"
    "shop        checkout-worker-5c6b4-k8m2x   1/1     Running            0\n",
    '{"namespace": "shop"}',
    parameters=("namespace",),
)
WORKLOAD_LOGS = ToolText(
    "call_2",
    "get_pod_logs",
    "FATAL: required environment variable CHECKOUT_DB_URL is not set",
    '{"name": "checkout-7c9d8f6b5-q2w4x", "namespace": "shop"}',
    parameters=("name", "namespace"),
)


@pytest.mark.parametrize(("kind", "verified"), [("deployment", True), ("job", False), ("other", False)])
def test_a_workload_is_verified_through_its_pods(kind: str, verified: bool) -> None:
    """A finding may name the Deployment (checkout) whose pods (checkout + a ReplicaSet hash and a
    suffix) the tools showed: its name, status and the pod's evidence all verify. A Job's or a
    StatefulSet's pods have other suffixes: named so, the same pod is not theirs."""
    quote = "FATAL: required environment variable CHECKOUT_DB_URL is not set"
    checked = verify(
        report(finding("checkout", quote, kind=kind, status="CrashLoopBackOff")),
        [WORKLOAD_LISTING, WORKLOAD_LOGS],
    ).report.findings[0]
    assert checked.name_verified is verified and [q.verified for q in checked.evidence] == [verified]
    if verified:
        assert checked.status_verified


@pytest.mark.parametrize(
    "name",
    [
        "shop",  # the namespace: its pods are not its pods
        "check",  # a prefix of a name is not a workload
        "checkout-worker",  # another workload: the logs are about checkout's pod
    ],
)
def test_a_name_that_only_prefixes_pods_is_no_workload(name: str) -> None:
    quote = "FATAL: required environment variable CHECKOUT_DB_URL is not set"
    checked = verify(
        report(finding(name, quote, kind="other", status="CrashLoopBackOff")),
        [WORKLOAD_LISTING, WORKLOAD_LOGS],
    ).report.findings[0]
    assert [q.verified for q in checked.evidence] == [False]
    if name != "checkout-worker":
        assert checked.name_verified is False


def test_a_resource_link_s_words_are_about_nothing_and_an_embedded_resource_is_about_its_uri_s_object() -> (
    None
):
    import mcp_types

    from k8s_agent_harness.cluster.content import describe_block

    link = mcp_types.ResourceLink(
        type="resource_link",
        name="api-logs",
        uri="k8s://shop/pods/api-7d9f8-x2x/logs",
        description="api-7d9f8-x2x was OOMKilled with 14 restarts",
    )
    embedded = mcp_types.EmbeddedResource(
        type="resource",
        resource=mcp_types.TextResourceContents(
            uri="k8s://namespaces/shop/pods/api-7d9f8-x2x/log",
            mimeType="text/plain",
            text="2026-11-30T04:12:02Z FATAL heap exhausted, exiting",
        ),
    )
    bundle = ToolText(
        "call_5",
        "pod_bundle",
        "\n".join(["bundle of pod web-5c6b4-k8m", describe_block(link), describe_block(embedded)]),
        '{"name": "web-5c6b4-k8m", "namespace": "shop"}',
        parameters=("name", "namespace"),
    )
    described = "api-7d9f8-x2x was OOMKilled with 14 restarts"
    logged = "FATAL heap exhausted, exiting"

    checked = verify(
        report(
            finding("web-5c6b4-k8m", described, logged, status="Running"),
            finding("api-7d9f8-x2x", described, logged),
        ),
        [LISTING, bundle],
    )

    web, api = checked.report.findings
    assert [(q.verified, q.check) for q in web.evidence] == [(False, "other_resource")] * 2
    assert web.evidence[1].about == "pod api-7d9f8-x2x in namespace shop"
    assert [(q.verified, q.check) for q in api.evidence] == [(False, "other_resource"), (True, "verified")]


SERVICE_YAML = ToolText(
    "call_9",
    "resources_get",
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: payments-api\n  namespace: shop\n"
    "spec:\n  selector:\n    app: payments-api\n  ports:\n  - port: 80\n    targetPort: 8080\n",
    '{"kind": "Service", "name": "payments-api", "namespace": "shop"}',
    parameters=("kind", "name", "namespace"),
)


def test_a_line_relating_the_object_to_its_own_name_is_evidence_and_a_line_naming_it_is_not() -> None:
    """A selector's `app: payments-api` says what the Service selects, though its value is the call's
    argument; `name: payments-api` only gives the argument back."""
    related = verify(
        report(finding("payments-api", "app: payments-api", kind="service", status="ClusterIP")),
        [SERVICE_YAML],
    )
    named = verify(
        report(finding("payments-api", "name: payments-api", kind="service", status="ClusterIP")),
        [SERVICE_YAML],
    )

    assert related.report.findings[0].evidence[0].check == "verified"
    assert named.report.findings[0].evidence[0].check == "too_short"


LABELLED_SERVICE_YAML = ToolText(
    "call_9",
    "resources_get",
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: payments-api\n  namespace: shop\n  labels:\n"
    "    k8s.io/name: payments-api\n    x.io/part-of: payments-api\n"
    "    claim_name: payments-api\n    claim-name: payments-api\n    spec.service: payments-api\n"
    "spec:\n  selector:\n    app: payments-api\n",
    '{"kind": "Service", "name": "payments-api", "namespace": "shop"}',
    parameters=("kind", "name", "namespace"),
)


@pytest.mark.parametrize(
    ("line", "check"),
    [
        ("k8s.io/name: payments-api", "too_short"),  # the last word after `/` names it
        ("x.io/part-of: payments-api", "verified"),  # relates it to what it is part of
        ("claim_name: payments-api", "too_short"),  # `_` and `-` are no part of the word
        ("claim-name: payments-api", "too_short"),
        ("spec.service: payments-api", "too_short"),  # the last word after `.` names it
        ("app: payments-api", "verified"),
    ],
)
def test_a_key_is_read_by_its_last_word_to_tell_naming_the_object_from_relating_it(
    line: str, check: str
) -> None:
    checked = verify(
        report(finding("payments-api", line, kind="service", status="ClusterIP")), [LABELLED_SERVICE_YAML]
    )

    assert checked.report.findings[0].evidence[0].check == check


def test_a_kind_with_no_status_of_its_own_has_its_status_said_not_checked() -> None:
    """A Service, a NetworkPolicy: nothing in what the tools show is a status to hold the claim to."""
    checked = verify(
        report(finding("payments-api", "targetPort: 8080", kind="service", status="no endpoints")),
        [SERVICE_YAML],
    )

    assert checked.problems == [] and checked.report.findings[0].status_verified is None


REPLICA_SET_EVENTS = ToolText(
    "call_10",
    "get_events",
    "NAMESPACE   LAST SEEN   TYPE      REASON         OBJECT                         MESSAGE\n"
    "shop        2m          Warning   FailedCreate   replicaset/web-7c9d8f6b5       "
    'Error creating: pods "web-7c9d8f6b5-x" is forbidden: exceeded quota: compute, requested: cpu=2\n'
    "shop        2m          Warning   FailedCreate   replicaset/webhooks-7c9d8f6b5  "
    'Error creating: pods "webhooks-7c9d8f6b5-y" is forbidden: exceeded quota: compute, requested: cpu=1\n',
    '{"namespace": "shop"}',
    parameters=("namespace",),
)


def test_a_replica_set_s_events_are_evidence_about_its_deployment_and_no_other() -> None:
    """`replicaset/web-7c9d8f6b5` is Deployment web's (the name its Deployment generates): its
    FailedCreate is evidence for a finding about web, not about webhooks."""
    own = 'Error creating: pods "web-7c9d8f6b5-x" is forbidden: exceeded quota: compute, requested: cpu=2'
    other = (
        'Error creating: pods "webhooks-7c9d8f6b5-y" is forbidden: exceeded quota: compute, requested: cpu=1'
    )
    checked = verify(
        report(finding("web", own, other, kind="deployment", status="READY 2/3")), [REPLICA_SET_EVENTS]
    )

    assert [quote.check for quote in checked.report.findings[0].evidence] == ["verified", "other_resource"]


def test_free_text_that_gives_the_name_back_under_any_key_is_still_no_evidence() -> None:
    """Only inside an API object does a key relate the object to its own name; a server's free text
    (`lookup: payments-api`, `svc: payments-api`) only repeats what it was asked."""
    for line in ("lookup: payments-api", "svc: payments-api"):
        echo = ToolText(
            "call_11",
            "get_service",
            f"{line}\nerror: not found\n",
            '{"name": "payments-api", "namespace": "shop"}',
            parameters=("name", "namespace"),
        )
        checked = verify(report(finding("payments-api", line, kind="service", status="ClusterIP")), [echo])
        assert checked.report.findings[0].evidence[0].check == "too_short", line


# -- how the report is asked for, and read back ------------------------------------------------------


def test_the_report_is_asked_for_by_its_schema_on_each_wire_and_only_in_json_schema_mode() -> None:
    assert report_fields(ReportFormat.JSON_SCHEMA, "chat") == {"response_format": response_format()}
    assert report_fields(ReportFormat.JSON_SCHEMA, "responses") == {
        "text": {
            "format": {
                "type": "json_schema",
                "name": "final_output",
                "schema": REPORT_JSON_SCHEMA,
                "strict": False,
            }
        }
    }
    for mode in (ReportFormat.JSON_TEXT, ReportFormat.PROSE):
        assert report_fields(mode, "chat") == {} == report_fields(mode, "responses")


def test_the_instructions_name_every_field_and_every_cause() -> None:
    text = instructions()

    for field_name in (
        "scope",
        "findings",
        "kind",
        "name",
        "namespace",
        "status",
        "cause",
        "explanation",
        "evidence",
        "call_id",
        "tool",
        "fix",
        "healthy",
        "unchecked",
    ):
        assert f'"{field_name}"' in text, field_name
    assert ", ".join(cause.value for cause in Cause) in text
    assert text.startswith("Write the final report as one JSON object, and nothing else")
    assert text.endswith("Quote only text that appears in a tool result of this conversation.")


def test_a_report_of_exactly_the_limit_is_read_and_one_byte_more_is_refused() -> None:
    body = json.dumps({"scope": "s", "findings": []})
    exact = body + " " * (MAX_REPORT_BYTES - len(body))

    assert parse_report(exact)[1] is None
    report_over, problem = parse_report(exact + " ")
    assert report_over is None and problem is not None
    assert problem.startswith(f"the report is {MAX_REPORT_BYTES + 1:,} bytes, more than the limit")
    assert problem.endswith("quotes of a line each")


def test_the_report_is_the_text_from_the_first_opening_to_the_last_closing_brace() -> None:
    text = 'Here: {"scope": "s", "unchecked": ["a {b} c"]} and {that is all}'

    parsed, problem = parse_report(text.removesuffix(" and {that is all}"))
    assert problem is None and parsed is not None and parsed.unchecked == ["a {b} c"]
    # Prose after the report that has braces of its own makes the span no JSON: said so.
    assert parse_report(text)[1] == "the report is not valid JSON: Extra data: line 1 column 42 (char 41)"
    assert (
        parse_report("a closing } only")[1]
        == "the report is not valid JSON: Expecting value: line 1 column 1 (char 0)"
    )


def test_schema_problems_are_listed_up_to_eight_and_the_rest_counted() -> None:
    bad = {"scope": "s", "findings": [{"name": n} for n in range(2)]}

    _, problem = parse_report(json.dumps(bad))

    assert problem is not None and problem.startswith("the report does not fit the schema: findings.0.name: ")
    listed = problem.removeprefix("the report does not fit the schema: ").split(" (and ")[0].split("; ")
    assert len(listed) == 8
    assert problem.endswith(" more)") and f"(and {count_problems(bad) - 8} more)" in problem
    _, root = parse_report("[]")
    assert root is not None and root.startswith("the report does not fit the schema: <root>: ")


@pytest.mark.parametrize("count", [7, 8, 9])
def test_eight_problems_are_listed_whole_and_a_ninth_is_counted(count: int) -> None:
    no_evidence = {"scope": "s", "findings": [{**finding(f"p{n}"), "evidence": []} for n in range(count)]}
    assert count_problems(no_evidence) == count

    _, problem = parse_report(json.dumps(no_evidence))

    message = "List should have at least 1 item after validation, not 0"
    listed = "; ".join(f"findings.{n}.evidence: {message}" for n in range(min(count, 8)))
    more = " (and 1 more)" if count == 9 else ""
    assert problem == f"the report does not fit the schema: {listed}{more}"


def test_what_the_results_showed_is_given_by_kind_with_its_namespaces_and_tools_in_the_json_form() -> None:
    checked = verify(report(), [LISTING, LOGS, JSON_RESULT])

    assert [group.as_dict() for group in checked.shown] == [
        {"kind": "pod", "count": 2, "namespaces": ["shop"], "tools": ["list_pods", "pods_get"]}
    ]
    assert json.loads(json.dumps(checked.shown[0].as_dict())) == checked.shown[0].as_dict()


DESCRIBE_RESTARTED = ToolText(
    "call_9",
    "describe_pod",
    "Name:         api-7d9f8-x2x\nNamespace:    shop\nStatus:       Running\nContainers:\n  api:\n"
    "    State:          Running\n    Last State:     Terminated\n      Reason:       OOMKilled\n"
    "      Exit Code:    137\n    Ready:          True\n    Restart Count:  3\n",
    '{"name": "api-7d9f8-x2x", "namespace": "shop"}',
    parameters=("name", "namespace"),
)


def test_a_status_from_the_last_state_is_named_as_history_word_by_word_and_said_as_last_it_verifies() -> None:
    past = verify(
        report(finding("api-7d9f8-x2x", "Reason:       OOMKilled", status="Terminated OOMKilled")),
        [DESCRIBE_RESTARTED],
    )
    said = verify(
        report(finding("api-7d9f8-x2x", "Reason:       OOMKilled", status="Running, last OOMKilled")),
        [DESCRIBE_RESTARTED],
    )

    assert past.problems == [
        "the status 'Terminated OOMKilled' of finding 'api-7d9f8-x2x' gives its history as its status: "
        "'Terminated', 'OOMKilled' only in its last state or its events, which say what pod api-7d9f8-x2x "
        "was, not how it is now: write how it is now as the tools show it, and say 'last' of what it was"
    ]
    assert past.report.findings[0].status_verified is False
    assert said.problems == [] and said.report.findings[0].status_verified is True


@pytest.mark.parametrize(("quote", "verified"), [("validation fa", True), ("validation f", False)])
def test_a_part_of_a_line_is_evidence_from_twelve_letters_or_digits_of_its_own(
    quote: str, verified: bool
) -> None:
    checked = verify(report(finding("api-7d9f8-x2x", "config validation failed", quote)), [LISTING, LOGS])

    assert checked.report.findings[0].evidence[1].verified is verified
    assert len(checked.problems) == (0 if verified else 1)


@pytest.mark.parametrize(
    ("line", "quote", "suggested"),
    [
        ("disk full at 9", "disk full", True),
        ("instance: api-7d9f8-x2x", "instance:", False),  # the line only gives the call's argument back
        ("ok", "ok", False),
    ],
)
def test_a_short_quote_is_answered_with_its_line_only_when_quoting_that_line_would_do(
    line: str, quote: str, suggested: bool
) -> None:
    logs = ToolText(
        "call_4",
        "get_pod_logs",
        f"starting\n{line}\nbye\n",
        '{"name": "api-7d9f8-x2x", "namespace": "shop"}',
        parameters=("name", "namespace", "tail"),
    )

    problems = verify(report(finding("api-7d9f8-x2x", quote)), [LISTING, logs]).problems

    short = f"the quote {quote!r} (finding api-7d9f8-x2x) is too short to be evidence: quote a whole line"
    assert [p for p in problems if p.startswith(short)] == problems and len(problems) == 1
    assert problems[0].endswith(f"(here, the line {line!r})") is suggested
    followed = verify(report(finding("api-7d9f8-x2x", line)), [LISTING, logs])
    assert followed.report.findings[0].evidence[0].verified is suggested


NODES = ToolText(
    "call_5",
    "list_nodes",
    "NAME     STATUS     ROLES    AGE   VERSION\nnode-1   NotReady   <none>   3d    v1.29.2\n"
    "node-2   Ready      <none>   3d    v1.29.2\n",
    "{}",
    parameters=(),
)
DEPLOYMENTS = ToolText(
    "call_6",
    "resources_list",
    "NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nshop        api    0/1     1            0           3d\n",
    '{"kind": "Deployment", "namespace": "shop"}',
    parameters=("kind", "namespace"),
)


@pytest.mark.parametrize(
    ("item", "sources"),
    [
        (finding("api-7d9f8-x2x", "config validation failed", namespace=None), [LISTING, LOGS]),
        (finding("node-1", "node-1   NotReady", kind="node", status="NotReady", namespace=None), [NODES]),
        # a node has no namespace: one the report gives it is not held against it
        (finding("node-1", "node-1   NotReady", kind="node", status="NotReady", namespace="shop"), [NODES]),
        # a Deployment a listing shows by its own name, with no pod of it shown
        (
            finding(
                "api",
                "shop        api    0/1     1            0           3d",
                kind="deployment",
                status="READY 0/1",
            ),
            [DEPLOYMENTS],
        ),
    ],
    ids=["pod-without-namespace", "node", "node-with-namespace", "deployment-by-its-own-row"],
)
def test_a_finding_s_name_and_status_verify_whatever_namespace_it_gives(
    item: dict[str, Any], sources: list[ToolText]
) -> None:
    checked = verify(report(item), sources)

    assert checked.problems == []
    assert (checked.report.findings[0].name_verified, checked.report.findings[0].status_verified) == (
        True,
        True,
    )


def test_a_status_only_the_structured_content_shows_is_named_as_the_two_views_disagreeing() -> None:
    row = "shop        api-7d9f8-x2x   1/1     Running   0"
    container = {"name": "api", "ready": False, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
    oom = {"name": "web", "ready": False, "state": {"waiting": {"reason": "OOMKilled"}}}
    structured = {
        "items": [
            {
                "kind": "Pod",
                "metadata": {"name": "api-7d9f8-x2x", "namespace": "shop"},
                "status": {"phase": "Running", "containerStatuses": [container]},
            },
            {  # another pod, whose two views disagree too
                "kind": "Pod",
                "metadata": {"name": "web-5c6b4-k8m", "namespace": "shop"},
                "status": {"phase": "Running", "containerStatuses": [oom]},
            },
        ]
    }
    both = ToolText(
        "call_7",
        "pods_status",
        f"NAMESPACE   NAME            READY   STATUS    RESTARTS\n{row}\nshop        web-5c6b4-k8m   1/1     Running   0\n",
        '{"namespace": "shop"}',
        structured=structured,
        parameters=("namespace",),
    )

    stale = verify(report(finding("api-7d9f8-x2x", row, status="CrashLoopBackOff")), [both])
    shown = verify(report(finding("api-7d9f8-x2x", row, status="Running")), [both])
    unknown = verify(report(finding("api-7d9f8-x2x", row, status="OOMKilled")), [both])

    assert stale.problems[1:] == [
        "the status 'CrashLoopBackOff' of finding 'api-7d9f8-x2x' is what a result's structured content says, "
        "but not its text, which is what the model was shown: the two views of that result disagree; write "
        "what the text shows"
    ]
    assert stale.problems[0].startswith(
        "the status 'CrashLoopBackOff' of finding 'api-7d9f8-x2x' is not what"
    )
    # Nothing shows api-7d9f8-x2x OOMKilled (another pod's structured content does): no disagreement.
    assert shown.problems == [] and len(unknown.problems) == 1


def test_a_namespace_the_tools_never_showed_for_the_resource_is_named_with_where_they_did() -> None:
    described = ToolText(
        "call_8",
        "describe_pod",
        "Name:         api-7d9f8-x2x\nStatus:       Running\nRestart Count:  3\n",
        '{"name": "api-7d9f8-x2x"}',
        parameters=("name",),
    )

    nowhere = verify(report(finding("api-7d9f8-x2x", "Restart Count:  3", status="Running")), [described])
    elsewhere = verify(
        report(finding("api-7d9f8-x2x", "config validation failed", namespace="prod")), [LISTING, LOGS]
    )

    assert nowhere.problems == [
        "finding 'api-7d9f8-x2x' says namespace 'shop', but the tools showed api-7d9f8-x2x with no namespace"
    ]
    assert elsewhere.problems[0] == (
        "finding 'api-7d9f8-x2x' says namespace 'prod', but the tools showed api-7d9f8-x2x only in namespace shop"
    )
    in_two = ToolText(
        "call_9",
        "list_pods",
        "NAMESPACE   NAME            READY   STATUS    RESTARTS\nprod        api-7d9f8-x2x   1/1     Running   0\n",
        '{"namespace": "prod"}',
        parameters=("namespace",),
    )
    neither = verify(
        report(finding("api-7d9f8-x2x", "config validation failed", namespace="dev")), [LISTING, LOGS, in_two]
    )
    assert neither.problems[0].endswith("but the tools showed api-7d9f8-x2x only in namespace prod, shop")


def pod_logs(call_id: str, pod: str, text: str) -> ToolText:
    return ToolText(
        call_id,
        "get_pod_logs",
        text,
        json.dumps({"name": pod, "namespace": "shop"}),
        parameters=("name", "namespace", "tail"),
    )


def test_a_quote_cited_to_another_pod_s_result_is_found_in_its_own_pod_s_and_points_there() -> None:
    line = "dial tcp 10.0.4.7:5432: connect: connection refused"
    web, api = (
        pod_logs("call_4", "web-5c6b4-k8m", f"{line}\n"),
        pod_logs("call_5", "api-7d9f8-x2x", f"{line}\n"),
    )

    checked = verify(report(finding("api-7d9f8-x2x", line, call_id="call_4")), [LISTING, web, api])
    only_elsewhere = verify(report(finding("api-7d9f8-x2x", line, call_id="call_4")), [LISTING, web, LOGS])

    quote = checked.report.findings[0].evidence[0]
    assert (quote.verified, quote.call_id, quote.about) == (True, "call_5", None)
    elsewhere = only_elsewhere.report.findings[0].evidence[0]
    assert (elsewhere.verified, elsewhere.call_id, elsewhere.about) == (
        False,
        "call_4",
        "pod web-5c6b4-k8m in namespace shop",
    )


def test_of_two_places_that_say_the_same_the_cited_call_is_kept() -> None:
    line = "dial tcp 10.0.4.7:5432: connect: connection refused"
    first, second = (
        pod_logs("call_4", "web-5c6b4-k8m", f"{line}\n"),
        pod_logs("call_6", "web-5c6b4-k8m", f"{line}\n"),
    )

    for cited in ("call_4", "call_6"):
        checked = verify(report(finding("api-7d9f8-x2x", line, call_id=cited)), [LISTING, first, second])
        assert checked.report.findings[0].evidence[0].call_id == cited


def test_a_short_quote_s_line_is_suggested_from_where_it_is_about_the_resource_and_not_too_long() -> None:
    long_line = "disk full " + "x" * 290  # 300 characters: the longest line suggested
    logs = pod_logs("call_4", "api-7d9f8-x2x", f"disk full {'y' * 300}\n{long_line}\n")
    other = pod_logs("call_5", "web-5c6b4-k8m", "disk full at 90\n")

    suggested = verify(report(finding("api-7d9f8-x2x", "disk full")), [LISTING, logs])
    here = suggested.problems
    longer = verify(
        report(finding("api-7d9f8-x2x", "disk full")),
        [LISTING, pod_logs("call_4", "api-7d9f8-x2x", f"{long_line}y\n")],
    )
    elsewhere = verify(report(finding("api-7d9f8-x2x", "disk full")), [LISTING, other])

    assert here[0].endswith(f"(here, the line {long_line!r})")
    assert suggested.report.findings[0].evidence[0].about is None  # `about` names another resource only
    twice = pod_logs("call_4", "api-7d9f8-x2x", "disk full at 90\ndisk full at 95\n")
    first = verify(report(finding("api-7d9f8-x2x", "disk full")), [LISTING, twice]).problems
    assert first[0].endswith("(here, the line 'disk full at 90')")  # the first line that would do
    assert longer.problems[0].endswith("beyond what the call itself was asked")
    assert longer.report.findings[0].evidence[0].about is None
    assert elsewhere.problems[0].endswith("beyond what the call itself was asked")


def test_a_long_name_is_cut_in_a_correction_and_free_text_is_said_to_be_about_no_one_resource() -> None:
    name = "api-" + "a" * 90
    found = verify(report(finding(name, "config validation failed")), [LISTING, LOGS]).problems
    free = ToolText("call_7", "cluster_events", "dial tcp 10.0.4.7:5432: connect: connection refused\n", "{}")
    loose = verify(
        report(finding("api-7d9f8-x2x", "dial tcp 10.0.4.7:5432: connect")), [LISTING, free]
    ).problems

    cut = name[:79] + "…"
    assert any(
        p.startswith(f"the quote 'config validation failed' (finding {cut}) is from a result about pod ")
        for p in found
    )
    assert any(p.endswith(f"not about pod {cut}: quote what the tools showed for it") for p in found)
    assert loose == [
        "the quote 'dial tcp 10.0.4.7:5432: connect' (finding api-7d9f8-x2x) is from no one resource's record (it is "
        "free text of a call that named no resource, or it runs across the records of several), not about pod "
        "api-7d9f8-x2x: quote what the tools showed for it"
    ]


def test_what_the_results_showed_counts_each_resource_once_by_kind_the_most_shown_first() -> None:
    columns = "NAME               READY   STATUS             RESTARTS\n"
    unplaced = ToolText(  # the listing's pod again, with no namespace
        "call_11",
        "list_pods",
        f"{columns}api-7d9f8-x2x      0/1     CrashLoopBackOff   14\n",
        "{}",
        parameters=("namespace",),
    )
    unkinded = ToolText(  # the listing's pod again with no kind, and one no other result shows
        "call_12",
        "kubectl",
        f"{columns}api-7d9f8-x2x      0/1     CrashLoopBackOff   14\norphan-6f7d8-q2w   1/1     Running            0\n"
        "orphan-6f7d8-z9x   1/1     Running            0\n",
        '{"namespace": "shop"}',
        parameters=("namespace",),
    )
    namespace = ToolText(
        "call_14",
        "resources_get",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\nstatus:\n  phase: Active\n",
        '{"kind": "Namespace", "name": "shop"}',
        parameters=("kind", "name"),
    )

    shown = verify(report(), [LISTING, unplaced, unkinded, namespace, NODES, DEPLOYMENTS]).shown

    assert [group.as_dict() for group in shown] == [
        {"kind": "node", "count": 2, "namespaces": [], "tools": ["list_nodes"]},
        {"kind": "pod", "count": 2, "namespaces": ["shop"], "tools": ["list_pods"]},
        {"kind": None, "count": 2, "namespaces": ["shop"], "tools": ["kubectl"]},
        {"kind": "deployment", "count": 1, "namespaces": ["shop"], "tools": ["resources_list"]},
    ]


def test_a_healthy_example_is_a_resource_shown_healthy_and_a_finished_pod_only_of_a_run_to_completion() -> (
    None
):
    listing = ToolText(
        "call_1",
        "list_pods",
        "NAMESPACE   NAME                  READY   STATUS      RESTARTS\n"
        "shop        api-7d9f8b6c5-x2x4k   0/1     Completed   0\n"  # a Deployment's pod, finished
        "shop        migrate-x7k2p         0/1     Completed   0\n"  # a Job's, done
        "shop        web-5c6b4-k8m         1/1     Running     0\n",
        '{"namespace": "shop"}',
        parameters=("namespace",),
    )
    namespaces = ToolText("call_8", "list_namespaces", "NAME     STATUS   AGE\nshop     Active   3d\n", "{}")
    described = ToolText(  # a pod shown with no status
        "call_9",
        "describe_pod",
        "Name:         cart-6d5f-q8x2z\nNamespace:    shop\nNode:         node-1\n",
        '{"name": "cart-6d5f-q8x2z", "namespace": "shop"}',
        parameters=("name", "namespace"),
    )
    examples = ["api-7d9f8b6c5-x2x4k", "migrate-x7k2p", "shop", "web-5c6b4-k8m", "cart-6d5f-q8x2z"]

    checked = verify(report(healthy={"count": 5, "examples": examples}), [listing, namespaces, described])
    service = verify(report(healthy={"count": 1, "examples": ["payments-api"]}), [SERVICE_YAML])

    assert checked.report.healthy.unverified_examples == ["api-7d9f8b6c5-x2x4k", "shop", "cart-6d5f-q8x2z"]
    assert checked.problems == [
        "the healthy example 'api-7d9f8b6c5-x2x4k' is not healthy: the tools showed it unhealthy",
        "the healthy example 'shop' names nothing a tool showed",  # a namespace is no resource here
        "the healthy example 'cart-6d5f-q8x2z' is not shown healthy by any tool (no status)",
    ]
    assert service.problems == [
        "the healthy example 'payments-api' is not shown healthy by any tool (no status)"
    ]


def test_the_checked_report_is_a_copy_in_the_current_schema_and_the_model_s_report_is_left_as_it_was() -> (
    None
):
    given = report(finding("api-7d9f8-x2x", "config validation failed"), schema_version=1)

    checked = verify(given, [LISTING, LOGS])

    assert checked.report.schema_version == REPORT_SCHEMA_VERSION != 1
    assert checked.report.findings[0].evidence[0].verified is True
    assert given.schema_version == 1 and given.findings[0].evidence[0].verified is not True
    assert given.findings[0].name_verified is not True


@pytest.mark.parametrize(("length", "cut"), [(80, False), (81, True)])
def test_a_name_in_a_correction_is_cut_past_80_characters_and_a_quote_past_160(
    length: int, cut: bool
) -> None:
    name = "api-" + "a" * (length - 4)
    quote = "q" * (length + 80)

    problem = verify(report(finding(name, "no such line")), [LISTING]).problems[-1]
    quoted = verify(report(finding("api-7d9f8-x2x", quote)), [LISTING]).problems[-1]

    shown = name[:79] + "…" if cut else name
    assert problem == f"the quote 'no such line' (finding {shown}) appears in no tool result of this run"
    assert quoted.startswith(f"the quote {quote[:159] + '…' if cut else quote!r} (finding api-7d9f8-x2x)")


def count_problems(data: dict[str, Any]) -> int:
    try:
        REPORT_ADAPTER.validate_python(data)
    except ValidationError as error:
        return error.error_count()
    return 0
