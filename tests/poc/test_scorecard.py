"""The scorecard's rules, on the pinned 0.24.0 observations and on variations of them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import poc
from poc.report import pinned_wires
from poc.scorecard import CLEAN, REDESIGN, STUCK, UNKNOWN, scorecard
from poc.words import ABSENT

PINNED: dict[str, Any] = pinned_wires(
    json.loads((Path(poc.__file__).resolve().parent / "expected" / "0.24.0.json").read_text(encoding="utf-8"))
)["chat"]


def verdicts(observations: dict[str, Any]) -> dict[str, str]:
    return {row.id: row.verdict for row in scorecard(observations)}


def changed(probe: str, **observations: Any) -> dict[str, Any]:
    variant = copy.deepcopy(PINNED)
    variant[probe].update(observations)
    return variant


def test_the_pinned_version_scores_every_guardrail() -> None:
    assert verdicts(PINNED) == {
        "C1": REDESIGN,
        "C2": REDESIGN,
        "C3": CLEAN,
        "C4": REDESIGN,
        "C5": REDESIGN,
        "C6": CLEAN,
        "C7": REDESIGN,
        "C8": CLEAN,
        "C9": CLEAN,
        "C10": REDESIGN,
        "C11/C12": REDESIGN,
        "R1": CLEAN,
        "R2": CLEAN,
    }


def test_every_reason_names_the_observation_it_rests_on() -> None:
    for row in scorecard(PINNED):
        assert "(" in row.reason and "." in row.reason, row


def test_c1_moves_cleanly_when_request_two_says_auto() -> None:
    assert verdicts(changed("tool_choice", default_request_2="auto"))["C1"] == CLEAN


def test_c1_does_not_move_when_request_two_still_forces() -> None:
    assert verdicts(changed("tool_choice", default_request_2="required"))["C1"] == STUCK


def test_c6_does_not_move_without_tool_not_found_behavior() -> None:
    variant = changed("unknown_tool", return_error_model_sees=ABSENT, formatter_model_sees=ABSENT)

    assert verdicts(variant)["C6"] == STUCK


def test_c6_needs_a_redesign_when_only_the_sdk_text_reaches_the_model() -> None:
    variant = changed("unknown_tool", formatter_model_sees=ABSENT)

    assert verdicts(variant)["C6"] == REDESIGN


def test_c8_does_not_move_when_the_sdk_answers_invalid_json_itself() -> None:
    variant = changed("invalid_json", raw_handler_receives=[], raw_model_sees=["An error occurred."])

    assert verdicts(variant)["C8"] == STUCK


def test_c4_and_c7_fall_back_without_the_sentinel() -> None:
    variant = changed("forced_summary", sentinel_final_output=ABSENT, error_handler_keys=ABSENT)
    result = verdicts(variant)

    assert result["C4"] == STUCK
    assert result["C7"] == REDESIGN  # MaxTurnsExceeded still carries run_data


def test_c10_moves_cleanly_when_reused_ids_are_answered() -> None:
    answered = {
        f"{label}_{key}": value
        for label in ("same_args", "different_args", "same_turn")
        for key, value in {
            "outcome": "final_output: done",
            "calls_run": 2,
            "assistant_calls": ["call_1 get_pod a", "call_1 get_pod b"],
            "tool_messages": ["call_1: a", "call_1: b"],
        }.items()
    }

    observations = changed("reused_ids", **answered)
    observations["unknown_tool"] = {
        **observations["unknown_tool"],
        "mixed_round_answer_order": ["call_a", "call_b", "call_c"],
    }

    assert verdicts(observations)["C10"] == CLEAN


def test_c10_needs_a_redesign_when_unknown_tools_are_answered_last() -> None:
    rows = {row.id: row for row in scorecard(PINNED)}

    assert rows["C10"].verdict == REDESIGN
    assert "unknown_tool.mixed_round_answer_order" in rows["C10"].reason


def test_a_failed_probe_leaves_its_guardrails_not_judged() -> None:
    variant = copy.deepcopy(PINNED)
    variant["unknown_tool"] = {"error": "TypeError: boom"}
    rows = {row.id: row for row in scorecard(variant)}

    assert rows["C6"].verdict == UNKNOWN
    assert "TypeError: boom" in rows["C6"].reason
    assert rows["C8"].verdict == CLEAN


def test_c11_does_not_move_without_a_handler_for_an_answer_that_breaks_the_output_type() -> None:
    variant = changed(
        "output_type",
        handler_error=ABSENT,
        handler_saw_text=ABSENT,
        final_output=ABSENT,
        history_keeps_answer=ABSENT,
        invalid_answer_outcome="ModelBehaviorError: Invalid JSON when parsing all fine, no JSON",
    )
    row = next(row for row in scorecard(variant) if row.id == "C11/C12")
    assert row.verdict == STUCK and "output_type.invalid_answer_outcome" in row.reason
