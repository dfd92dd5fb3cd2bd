"""The contract judge, audited from outside: an agent written from docs/contract.md alone.

`OutsideAgent` (outside_agent.py) keeps every clause of every item; each of its breaks breaks one
clause of one item; each of its variations is a choice a correct agent may make. All of them run on
every judged scenario in one `run_contract` call (in this process, Chat Completions), and:

- the correct agent holds every item, C11 and C12 included;
- each break shows on the wire or in the server's call log (against the correct agent's run of the
  same scenario), so that its verdict means something;
- each break fails its item and no other;
- each variation holds every item, and changes what the model is sent or the answer.

A failure here is a disagreement between the judge and docs/contract.md: the judge is what to fix.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from k8s_agent.contract import run as contract_run
from k8s_agent.contract.judge import FAILS, HOLDS, ITEMS, Judgement, Observed
from k8s_agent.contract.run import API_KEY, run_contract, select_scenarios
from k8s_agent.scenarios import FABRICATED, INVENTED, REPORT, SECRETS
from tests.clusters import MOCK_TOOLS
from tests.contract.outside_agent import BREAKS, VARIATIONS, OutsideAgent

CORRECT = OutsideAgent()
SUBJECTS = {"": CORRECT} | {switch.name: OutsideAgent({switch.name}) for switch in (*BREAKS, *VARIATIONS)}


@dataclass(frozen=True)
class Audit:
    """Every subject's verdicts by item, and what each run left on the wire, by scenario."""

    verdicts: Mapping[str, Mapping[str, Judgement]]
    observed: Mapping[str, Mapping[str, Observed]]

    def of(self, switch: str) -> tuple[Mapping[str, Judgement], Mapping[str, Observed]]:
        name = SUBJECTS[switch].name
        return self.verdicts[name], self.observed[name]


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Audit:
    """One contract run of every subject on every scenario, keeping each run's observations."""
    seen: dict[str, dict[str, Observed]] = {}
    observe = contract_run.observe

    async def keeping(subject: Any, scenario: Any, *args: Any, **kwargs: Any) -> tuple[Observed, Any]:
        observed, record = await observe(subject, scenario, *args, **kwargs)
        seen.setdefault(subject.name, {})[scenario.name] = observed
        return observed, record

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(contract_run, "observe", keeping)
        report = asyncio.run(
            run_contract(
                list(SUBJECTS.values()), select_scenarios(None), tmp_path_factory.mktemp("outside"), jobs=4
            )
        )
    verdicts = {result.subject: {j.item: j for j in result.judgements} for result in report.results}
    return Audit(verdicts, seen)


# -- reading what a run left ----------------------------------------------------------------------


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def answer_for(observed: Observed, tool: str) -> str:
    """The first tool message answering the first call of `tool` the model made."""
    messages = [m for request in observed.requests for m in request.get("messages", [])]
    ids = [c["id"] for m in messages for c in m.get("tool_calls") or [] if c["function"]["name"] == tool]
    if not ids:
        return ""
    return next((_text(m.get("content")) for m in messages if m.get("tool_call_id") == ids[0]), "")


def last_user_message(request: Mapping[str, Any]) -> str:
    return next((_text(m.get("content")) for m in reversed(request["messages"]) if m["role"] == "user"), "")


def system_prompt(observed: Observed) -> str:
    return _text(observed.requests[0]["messages"][0]["content"])


def server_calls(observed: Observed, tool: str) -> list[Mapping[str, Any]]:
    return [call for call in observed.calls if call.get("tool") == tool]


def forces(choice: Any) -> bool:
    if choice == "required":
        return True
    if isinstance(choice, dict):
        return (
            choice.get("type") == "function" or (choice.get("allowed_tools") or {}).get("mode") == "required"
        )
    return False


def tool_answer_ids(request: Mapping[str, Any]) -> list[str]:
    return [m["tool_call_id"] for m in request["messages"] if m["role"] == "tool"]


def unmarked_lines(answer: str | None, quote: str) -> list[str]:
    return [line for line in (answer or "").splitlines() if quote in line and "UNVERIFIED" not in line]


def evidence_objects(answer: str | None) -> list[Mapping[str, Any]]:
    try:
        report = json.loads(answer or "")
    except json.JSONDecodeError:
        return []
    return [quote for finding in report.get("findings", []) for quote in finding.get("evidence", [])]


Witness = tuple[str, Callable[[Observed], bool]]

WITNESSES: dict[str, Witness] = {
    "c1-force-until-success": ("c2-zero-tool-pushback", lambda o: forces(o.requests[1].get("tool_choice"))),
    "c1-later-allowed-tools-required": (
        "c1-forced-first-step",
        lambda o: any(forces(r.get("tool_choice")) for r in o.requests[1:]),
    ),
    "c1-summary-pins-tool": (
        "c4-duplicates",
        lambda o: "tools" not in o.requests[-1] and forces(o.requests[-1].get("tool_choice")),
    ),
    "c1-first-allowed-tools-auto": (
        "c1-forced-first-step",
        lambda o: not forces(o.requests[0].get("tool_choice")),
    ),
    "c1-unforced-in-json-mode": ("c11-report-schema", lambda o: not forces(o.requests[0].get("tool_choice"))),
    "c2-pushback-as-system": (
        "c2-zero-tool-pushback",
        lambda o: o.requests[1]["messages"][-1]["role"] == "system",
    ),
    "c2-accepted-with-error": ("c2-zero-tool-pushback", lambda o: o.error is not None),
    "c2-first-answer-kept": ("c2-zero-tool-pushback", lambda o: o.answer == "Everything looks healthy."),
    "c3-repair-namespace": ("c3-schema-rejection", lambda o: bool(server_calls(o, "get_pod_logs"))),
    "c3-missing-required-forwarded": ("c10-mixed-round", lambda o: bool(server_calls(o, "describe_pod"))),
    "c3-messages-without-paths": (
        "c3-schema-rejection",
        lambda o: not re.search(r"\btail\b", answer_for(o, "get_pod_logs")),
    ),
    "c3-type-errors-summarised": (
        "c3-schema-rejection",
        lambda o: not re.search(r"\btail\b", answer_for(o, "get_pod_logs")),
    ),
    "c3-schema-recited": ("c3-schema-rejection", lambda o: "fifty" not in answer_for(o, "get_pod_logs")),
    "c4-gather-before-cache": ("c4-parallel-duplicates", lambda o: len(server_calls(o, "list_nodes")) > 1),
    "c4-cache-by-tool": (
        "c4-argument-sets",
        lambda o: not [c for c in server_calls(o, "list_pods") if not c.get("arguments")],
    ),
    "c4-summary-keeps-tools": ("c4-duplicates", lambda o: "tools" in o.requests[-1]),
    "c4-summary-dropped": ("c4-duplicates", lambda o: o.answer != "Summary: " + REPORT),
    "c5-names-workload-only": (
        "c5-invented-pods",
        lambda o: INVENTED not in last_user_message(o.requests[2]),
    ),
    "c5-second-strike-error": ("c5-invented-pods", lambda o: o.error is not None),
    "c5-first-answer-kept": ("c5-invented-pods", lambda o: INVENTED in (o.answer or "")),
    "c6-ask-server-first": ("c6-unknown-tool", lambda o: bool(server_calls(o, "delete_pod"))),
    "c6-list-capped": ("c6-unknown-tool", lambda o: "search_logs" not in answer_for(o, "delete_pod")),
    "c6-unnamed-tool": ("c6-unknown-tool", lambda o: "delete_pod" not in answer_for(o, "delete_pod")),
    "c6-list-with-unknown": (
        "c6-unknown-tool",
        lambda o: f"{MOCK_TOOLS[-1]}, delete_pod" in answer_for(o, "delete_pod"),
    ),
    "c6-semicolon-list-with-unknown": (
        "c6-unknown-tool",
        lambda o: f"{MOCK_TOOLS[-1]}; delete_pod" in answer_for(o, "delete_pod"),
    ),
    "c7-summary-one-step-early": ("c7-step-budget", lambda o: "tools" not in o.requests[2]),
    "c7-budget-error": ("c7-step-budget", lambda o: o.error is not None),
    "c8-run-argless": ("c10-mixed-round", lambda o: bool(server_calls(o, "list_pods"))),
    "c8-paraphrased-decoder": ("c8-invalid-json", lambda o: "Expecting" not in answer_for(o, "describe_pod")),
    "c8-no-raw-arguments": ("c8-invalid-json", lambda o: "{not-json" not in answer_for(o, "describe_pod")),
    "c9-retry-previous": ("c9-tool-failure", lambda o: len(server_calls(o, "get_pod_logs")) == 2),
    "c9-fallback-describe": ("c9-tool-failure", lambda o: bool(server_calls(o, "describe_pod"))),
    "c9-error-hidden": ("c9-tool-failure", lambda o: "Pending" not in answer_for(o, "get_pod_logs")),
    "c9-error-truncated": (
        "c9-tool-failure",
        lambda o: "no container has started" not in answer_for(o, "get_pod_logs"),
    ),
    "c9-failure-is-error": ("c9-tool-failure", lambda o: o.error is not None),
    "c10-repeat-reuses-id": (
        "c4-duplicates",
        lambda o: len(set(tool_answer_ids(o.requests[-1]))) < len(tool_answer_ids(o.requests[-1])),
    ),
    "c10-rejections-first": (
        "c10-mixed-round",
        lambda o: tool_answer_ids(o.requests[1]) != [f"call_{n}" for n in range(1, 7)],
    ),
    "c10-round-digest": ("c4-parallel-duplicates", lambda o: "NAMESPACE" in answer_for(o, "list_nodes")),
    "c10-silent-cut": (
        "c14-secrets",
        lambda o: "Back-off restarting failed container" not in answer_for(o, "describe_pod"),
    ),
    "c11-correction-without-format": (
        "c11-report-schema",
        lambda o: any("response_format" not in r for r in o.requests),
    ),
    "c11-format-after-first": ("c11-report-schema", lambda o: "response_format" not in o.requests[0]),
    "c11-correction-loose-format": (
        "c11-report-schema",
        lambda o: o.requests[-1]["response_format"] != o.requests[0]["response_format"],
    ),
    "c11-never-sends-format": (
        "c11-report-schema",
        lambda o: all("response_format" not in r for r in o.requests),
    ),
    "c11-prompt-silent-on-report": ("c11-report-json-text", lambda o: "findings" not in system_prompt(o)),
    "c11-errors-without-paths": (
        "c11-report-schema",
        lambda o: "cause" not in last_user_message(o.requests[-1]),
    ),
    "c11-best-match-only": (
        "c11-report-schema",
        lambda o: "explanation" not in last_user_message(o.requests[-1]),
    ),
    "c11-checklist-correction": (
        "c11-report-schema",
        lambda o: "crashing" not in last_user_message(o.requests[-1]),
    ),
    "c11-not-json-unsaid": (
        "c11-report-json-text",
        lambda o: "json" not in last_user_message(o.requests[-1]).lower(),
    ),
    "c12-quote-by-number": (
        "c12-fabricated-evidence",
        lambda o: FABRICATED not in last_user_message(o.requests[-1]),
    ),
    "c12-drop-unverified": ("c12-unverified-kept", lambda o: FABRICATED not in (o.answer or "")),
    "c12-mark-on-finding": ("c12-unverified-kept", lambda o: bool(unmarked_lines(o.answer, FABRICATED))),
    "c12-headline-unmarked": ("c12-unverified-kept", lambda o: bool(unmarked_lines(o.answer, FABRICATED))),
    "c12-json-flag-on-finding": (
        "c12-unverified-kept",
        lambda o: (
            bool(evidence_objects(o.answer)) and all("verified" not in q for q in evidence_objects(o.answer))
        ),
    ),
    "c13-offers-all": (
        "c13-write-tool",
        lambda o: "delete_pod" in [t["function"]["name"] for t in o.requests[0]["tools"]],
    ),
    "c13-believes-approval": ("c13-write-tool", lambda o: bool(server_calls(o, "delete_pod"))),
    "c13-bare-refusal": ("c13-write-tool", lambda o: "list_pods" not in answer_for(o, "delete_pod")),
    "c14-key-as-user": ("c14-secrets", lambda o: API_KEY in json.dumps(o.requests)),
    "c14-url-password-kept": (
        "c14-secrets",
        lambda o: SECRETS["a password in a connection URL"] in json.dumps(o.requests),
    ),
    "c14-bearer-case-sensitive": (
        "c14-secrets",
        lambda o: SECRETS["a bearer token in a log line"] in json.dumps(o.requests),
    ),
    "c14-colon-fields-missed": (
        "c14-secrets",
        lambda o: SECRETS["a token in an environment variable"] in json.dumps(o.requests),
    ),
}
"""Per break: the scenario where it shows, and what shows it on the wire, in the call log or the outcome."""


def _first_evidence(judgement: Judgement) -> str:
    if judgement.violations:
        violation = judgement.violations[0]
        return f"{violation.scenario}: {violation.summary} — {str(violation.evidence)[:300]}"
    return judgement.summary


def _verdicts(verdicts: Mapping[str, Judgement]) -> dict[str, str]:
    return {item: judgement.verdict for item, judgement in verdicts.items()}


# -- the tests ------------------------------------------------------------------------------------


def test_the_outside_agent_holds_every_item(audit: Audit) -> None:
    verdicts, _ = audit.of("")
    failing = {item: _first_evidence(j) for item, j in verdicts.items() if j.verdict != HOLDS}
    assert _verdicts(verdicts) == dict.fromkeys(ITEMS, HOLDS), failing


def test_every_break_has_a_witness() -> None:
    assert sorted(WITNESSES) == sorted(switch.name for switch in BREAKS)


@pytest.mark.parametrize("switch", [switch.name for switch in BREAKS])
def test_each_break_shows_on_the_wire(audit: Audit, switch: str) -> None:
    scenario, shows = WITNESSES[switch]
    _, broken = audit.of(switch)
    _, correct = audit.of("")
    assert shows(broken[scenario]), f"{switch} does not show in {scenario}: it proves nothing"
    assert not shows(correct[scenario]), f"the correct agent shows what {switch} should alone, in {scenario}"


NOT_JUDGED = {
    "c3-schema-recited": "an answer naming each problem's field holds C3, whatever else it recites",
    "c11-checklist-correction": "a correction naming each error's field holds C11, whatever else it recites",
    "c10-round-digest": "an answer holding its own whole result holds C10, whatever else it carries",
}
"""Breaks the judge, by a decision docs/contract.md states, does not see: it checks that a message names
what it must, never that it names nothing more (results overlap, and a helpful message may recite a
schema). Each is held to that decision here, so that a change of it is a decision too."""


@pytest.mark.parametrize("switch", [s for s in BREAKS if s.name in NOT_JUDGED], ids=sorted(NOT_JUDGED))
def test_what_the_judge_decides_not_to_see_holds(audit: Audit, switch: Any) -> None:
    verdicts, _ = audit.of(switch.name)

    assert {item: j.verdict for item, j in verdicts.items()} == dict.fromkeys(verdicts, HOLDS), NOT_JUDGED[
        switch.name
    ]


JUDGED = [switch for switch in BREAKS if switch.name not in NOT_JUDGED]


@pytest.mark.parametrize("switch", JUDGED, ids=[switch.name for switch in JUDGED])
def test_each_break_fails_its_item_and_no_other(audit: Audit, switch: Any) -> None:
    verdicts, _ = audit.of(switch.name)
    others = {
        item: _first_evidence(j) for item, j in verdicts.items() if item != switch.item and j.verdict != HOLDS
    }
    own = verdicts[switch.item]
    assert own.verdict == FAILS, (
        f"{switch.name} breaks {switch.item} ({switch.clause}: {switch.does}), yet the judge says "
        f"{own.verdict}: {own.summary}; other items failed: {others or 'none'}"
    )
    assert not others, f"{switch.name} breaks {switch.item} alone, yet the judge fails {others}"


@pytest.mark.parametrize("switch", [switch.name for switch in VARIATIONS])
def test_each_variation_holds_every_item(audit: Audit, switch: str) -> None:
    verdicts, _ = audit.of(switch)
    failing = {item: _first_evidence(j) for item, j in verdicts.items() if j.verdict != HOLDS}
    assert not failing, f"{switch} is a correct agent's choice, yet the judge fails {failing}"


@pytest.mark.parametrize("switch", [switch.name for switch in VARIATIONS])
def test_each_variation_changes_what_the_model_is_sent_or_the_answer(audit: Audit, switch: str) -> None:
    _, varied = audit.of(switch)
    _, correct = audit.of("")
    changed = [
        name
        for name, observed in varied.items()
        if json.dumps(observed.requests, sort_keys=True) != json.dumps(correct[name].requests, sort_keys=True)
        or observed.answer != correct[name].answer
    ]
    assert changed, f"{switch} changes nothing the judge could see"
