"""The migration scorecard: per guardrail of the loop contract, does it move to the SDK?

Derived from one SDK version's observations ({probe name: observations}), with one explicit rule
per guardrail. Each row names the observations it rests on (`probe.key`), so a changed verdict can
be traced to the behaviour that changed. Pure: imports nothing from the SDK (the probe modules
import it only when they run).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from poc.probe import Observations
from poc.probes.forced_summary import SENTINEL
from poc.probes.invalid_json import INVALID as INVALID_JSON
from poc.probes.invalid_json import SCHEMA_INVALID
from poc.probes.reused_ids import VARIANTS as REUSED_ID_VARIANTS
from poc.probes.reused_ids import fate as reused_id_fate
from poc.probes.unknown_tool import WHITELIST
from poc.words import ABSENT

CLEAN = "moves cleanly"
REDESIGN = "moves with a redesign"
STUCK = "does not move"
UNKNOWN = "not judged"


@dataclass(frozen=True)
class Row:
    """One guardrail's verdict and the one-line reason behind it."""

    id: str
    guardrail: str
    verdict: str
    reason: str


class _ProbeFailed(Exception):
    """A rule needs a probe that failed or is missing: the row is "not judged"."""


class _Facts:
    """Read access to observations by `probe.key`; a missing probe makes the rule unjudgeable."""

    def __init__(self, observations: Mapping[str, Observations]) -> None:
        self._observations = observations

    def __call__(self, probe: str, key: str) -> Any:
        probe_observations = self._observations.get(probe)
        if probe_observations is None or "error" in probe_observations:
            reason = (probe_observations or {}).get("error", "not run")
            raise _ProbeFailed(f"probe {probe} failed: {reason}")
        return probe_observations.get(key, ABSENT)

    def probe(self, probe: str) -> Observations:
        """All of one probe's observations (for rules that read many keys)."""
        self(probe, "error")  # raises _ProbeFailed when the probe failed
        return dict(self._observations[probe])


def c1_forced_first_step(fact: _Facts) -> tuple[str, str]:
    first = fact("tool_choice", "default_request_1")
    second = fact("tool_choice", "default_request_2")
    if first != "required":
        return (
            STUCK,
            f"request #1 carries tool_choice {first!r}, not 'required' (tool_choice.default_request_1)",
        )
    if second == "auto":
        return (
            CLEAN,
            "request #1 'required', #2 'auto', as the hand-written loop (tool_choice.default_request_2)",
        )
    if second == ABSENT:
        return REDESIGN, (
            "request #2 drops tool_choice (absent) instead of sending 'auto': the contract states the "
            "equivalence (tool_choice.default_request_2); re-runs force again (rerun.rerun_request_1_tool_choice)"
        )
    return STUCK, f"request #2 still forces ({second!r}): the run would loop (tool_choice.default_request_2)"


def c2_zero_tool_pushback(fact: _Facts) -> tuple[str, str]:
    return _outer_loop(fact, "the zero-tool pushback")


def c3_schema_rejection(fact: _Facts) -> tuple[str, str]:
    received = fact("invalid_json", "raw_schema_invalid_handler_receives")
    if received == [SCHEMA_INVALID]:
        return CLEAN, (
            "a raw FunctionTool receives schema-invalid arguments untouched, so the shared gateway "
            "validates them (invalid_json.raw_schema_invalid_handler_receives)"
        )
    return REDESIGN, f"the SDK intercepts schema-invalid arguments: the handler got {received!r}"


def c4_duplicates_forced_summary(fact: _Facts) -> tuple[str, str]:
    summary = _forced_summary(fact)
    if summary is None:
        return STUCK, "no ToolsToFinalOutputResult sentinel: a run cannot be stopped for the summary"
    caveat = ""
    if fact("reused_ids", "same_args_calls_run") == 1:
        caveat = (
            "; a repeat that reuses its call id never reaches the gateway unless ids are made unique first "
            "(reused_ids.same_args_calls_run; the model client renames them at the wire, for both agents)"
        )
    return REDESIGN, f"the gateway answers repeats; {summary}{caveat}"


def c5_invented_pods(fact: _Facts) -> tuple[str, str]:
    return _outer_loop(fact, "the evidence pushback")


def c6_unknown_tool(fact: _Facts) -> tuple[str, str]:
    if fact("unknown_tool", "formatter_model_sees") == [WHITELIST]:
        return CLEAN, (
            "tool_not_found_behavior='return_error_to_model' + tool_error_formatter (kind tool_not_found) "
            "put the whitelist text on the wire (unknown_tool.formatter_model_sees)"
        )
    returned = fact("unknown_tool", "return_error_model_sees")
    if returned != ABSENT:
        return REDESIGN, f"the run continues but the model gets the SDK's text {returned!r} (unknown_tool)"
    outcome = fact("unknown_tool", "default_outcome")
    return (
        STUCK,
        f"no tool_not_found_behavior: the run dies with {outcome.split(':')[0]} (unknown_tool.default_outcome)",
    )


def c7_step_budget(fact: _Facts) -> tuple[str, str]:
    summary = _forced_summary(fact)
    if summary is not None:
        return REDESIGN, f"count steps in the tool_use_behavior callback; {summary}"
    if fact("forced_summary", "error_handler_keys") not in (ABSENT, []):
        return REDESIGN, (
            "error_handlers['max_turns'] ends the run without a model call "
            "(forced_summary.error_handler_requests_sent); then a tool-less re-run"
        )
    if fact("forced_summary", "max_turns_run_data") == "present":
        return (
            REDESIGN,
            "catch MaxTurnsExceeded and rebuild the history from run_data (forced_summary.max_turns_run_data)",
        )
    return STUCK, "MaxTurnsExceeded without run_data: the history is lost at the budget"


def c8_invalid_json(fact: _Facts) -> tuple[str, str]:
    received = fact("invalid_json", "raw_handler_receives")
    if received == [INVALID_JSON] and fact("invalid_json", "raw_model_sees") == [
        f"handler got: {INVALID_JSON}"
    ]:
        return CLEAN, (
            "a raw FunctionTool receives the raw string and its answer reaches the model, so the gateway "
            "writes the decoder message (invalid_json.raw_handler_receives); @function_tool would not"
        )
    seen = fact("invalid_json", "function_tool_model_sees")
    return STUCK, f"the SDK answers invalid JSON itself ({seen!r}); the raw handler got {received!r}"


def c9_tool_failure(fact: _Facts) -> tuple[str, str]:
    if fact("tool_output", "string_verbatim") is True:
        reason = (
            "the handler returns the gateway's 'Tool call failed (...)' text and it reaches the model "
            "verbatim (tool_output.string_verbatim)"
        )
        if not str(fact("tool_exception", "default_outcome")).startswith("final_output"):
            reason += "; a handler that raises kills the run, so it must not (tool_exception.default_outcome)"
        return CLEAN, reason
    return REDESIGN, f"the SDK rewrites tool output: {fact('tool_output', 'string_content')!r}"


def c10_protocol_invariant(fact: _Facts) -> tuple[str, str]:
    order = fact("concurrency", "default_wire_order")
    if order != ["call_a", "call_b", "call_c"]:
        return REDESIGN, f"tool messages leave in completion order {order!r}, not call order (concurrency)"
    fates = {label: reused_id_fate(fact.probe("reused_ids"), label) for label in REUSED_ID_VARIANTS}
    mixed = fact("unknown_tool", "mixed_round_answer_order")
    order_note = ""
    if mixed not in (ABSENT, ["call_a", "call_b", "call_c"]):
        order_note = (
            f"; answers to unknown tools come after the others ({mixed}, unknown_tool.mixed_round_answer_order): "
            "call_model_input_filter puts them back in call order"
        )
    if set(fates.values()) == {"answered"} and not order_note:
        return CLEAN, "every call is answered in call order, even with reused ids (concurrency, reused_ids)"
    return REDESIGN, (
        "function calls are answered in call order (concurrency.default_wire_order)"
        + order_note
        + "; a reused call id is "
        + ", ".join(f"{outcome} ({label})" for label, outcome in fates.items())
        + " (reused_ids): each call needs a unique id before the SDK sees it (the model client renames reused ids at the wire)"
    )


def r1_one_retry_layer(fact: _Facts) -> tuple[str, str]:
    sent = fact("retries", "max_retries_0_requests_sent")
    if sent == 1 and fact("retries", "max_retries_1_requests_sent") == 2:
        return CLEAN, (
            "the SDK adds no retries by default: a 500 with max_retries=0 is one request "
            "(retries.max_retries_0_requests_sent); the client's max_retries is the one layer"
        )
    return (
        REDESIGN,
        f"a 500 with max_retries=0 reached the server {sent} {'time' if sent == 1 else 'times'}: the SDK "
        "retries too (retries)",
    )


def r2_endpoint_failure(fact: _Facts) -> tuple[str, str]:
    outcome = str(fact("empty_choices", "outcome"))
    if not outcome.startswith("final_output"):
        return (
            CLEAN,
            f"an empty reply (no choices / no output) raises {outcome.split(':')[0]} (empty_choices.outcome)",
        )
    return (
        REDESIGN,
        f"an empty reply (no choices / no output) ends the run quietly ({outcome}): check it in the port",
    )


def _outer_loop(fact: _Facts, what: str) -> tuple[str, str]:
    """C2/C5: the SDK has no hook for a final answer it should refuse; the port re-runs Runner."""
    if fact("rerun", "rerun_keeps_answer") is not True:
        return STUCK, "to_input_list() does not carry the refused answer into a re-run (rerun.rerun_roles)"
    reason = f"no SDK hook: the outer loop re-runs Runner on to_input_list() + {what} (rerun.rerun_roles)"
    if fact("rerun", "rerun_request_1_tool_choice") == "required":
        reason += "; the re-run forces tools again unless the agent is cloned without tool_choice"
    return REDESIGN, reason


def _forced_summary(fact: _Facts) -> str | None:
    """How the port ends a run for the summary, or None when the sentinel does not work."""
    if fact("forced_summary", "sentinel_final_output") != SENTINEL:
        return None
    if fact("forced_summary", "sentinel_history_keeps_call_and_output") is not True:
        return None
    tools = fact("forced_summary", "summary_request_tools")
    tool_less = "with no tools field" if tools == ABSENT else f"but it still offers tools {tools!r}"
    caveats = ""
    if fact("forced_summary", "object_sentinel_arrives_as") == "str":
        caveats += "; the sentinel must be a string: an object arrives str()-ed (forced_summary.object_sentinel_arrives_as)"
    if fact("forced_summary", "behavior_consulted_after_unknown_only_round") is False:
        caveats += (
            "; the callback is not consulted after a round of unknown tools only, so the budget is also "
            "checked before each model call in call_model_input_filter "
            "(forced_summary.behavior_consulted_after_unknown_only_round)"
        )
    return (
        "a ToolsToFinalOutputResult sentinel ends the run after the round "
        f"(forced_summary.sentinel_requests_sent={fact('forced_summary', 'sentinel_requests_sent')}) and a "
        f"re-run of a tool-less clone asks for the summary {tool_less} (forced_summary.summary_request_tools)"
        + caveats
    )


def c11_c12_structured_report(fact: _Facts) -> tuple[str, str]:
    """C11, C12: the report as an output type, its correction as a re-run."""
    if fact("output_type", "response_format_type") != "json_schema":
        return (
            STUCK,
            "an output type does not send its schema as response_format (output_type.response_format_type)",
        )
    if fact("output_type", "response_format_strict") is not False:
        return REDESIGN, "the output schema is sent strict: optional fields need a strict-compatible schema"
    unhandled = fact("output_type", "invalid_answer_outcome")
    if unhandled != ABSENT:
        return (
            STUCK,
            "no error_handlers['invalid_final_output']: an answer that breaks the output type ends the run "
            f"({str(unhandled).split(':')[0]}, output_type.invalid_answer_outcome) and its history with it, "
            "so there is nothing to re-run the correction on",
        )
    if (
        fact("output_type", "handler_saw_text") == ABSENT
        or fact("output_type", "history_keeps_answer") is not True
    ):
        return STUCK, "an answer that breaks the output type is lost (output_type.handler_saw_text)"
    caveat = (
        "" if fact("output_type", "sentinel_passes") is True else "; the forced-summary sentinel is validated"
    )
    return (
        REDESIGN,
        "AgentOutputSchema(strict_json_schema=False) sends the schema on every request "
        "(output_type.same_on_tool_and_answer_turns); an answer that breaks it goes to "
        "error_handlers['invalid_final_output'] with its text, kept in to_input_list() for the "
        "correction re-run; the harness verifies the quotes, the SDK has no hook for that" + caveat,
    )


RULES: tuple[tuple[str, str, Callable[[_Facts], tuple[str, str]]], ...] = (
    ("C1", "forced first step", c1_forced_first_step),
    ("C2", "zero-tool pushback", c2_zero_tool_pushback),
    ("C3", "schema rejection", c3_schema_rejection),
    ("C4", "duplicates, forced summary", c4_duplicates_forced_summary),
    ("C5", "invented pods pushback", c5_invented_pods),
    ("C6", "unknown tool", c6_unknown_tool),
    ("C7", "step budget", c7_step_budget),
    ("C8", "invalid JSON arguments", c8_invalid_json),
    ("C9", "tool failure", c9_tool_failure),
    ("C10", "protocol invariant", c10_protocol_invariant),
    ("C11/C12", "structured report, verified quotes", c11_c12_structured_report),
    ("R1", "one retry layer (client's)", r1_one_retry_layer),
    ("R2", "endpoint failure is an error", r2_endpoint_failure),
)


def scorecard(observations: Mapping[str, Observations]) -> list[Row]:
    """Every guardrail's verdict for one SDK version's observations ({probe: observations})."""
    fact = _Facts(observations)
    rows = []
    for row_id, guardrail, rule in RULES:
        try:
            verdict, reason = rule(fact)
        except _ProbeFailed as failure:
            verdict, reason = UNKNOWN, str(failure)
        rows.append(Row(row_id, guardrail, verdict, reason))
    return rows


def as_json(rows: list[Row]) -> list[dict[str, str]]:
    """Rows as plain dicts."""
    return [asdict(row) for row in rows]
