"""The black-box judge: each contract item decided from what crossed the wire and what reached the server.

A subject is any agent pointed at the scripted model server and the mock cluster. The judge reads
four things only: the request bodies the model server received, the replies it sent (so it knows
which call id carried which planted mistake), the mock cluster's call log (written before any
validation) and its result log (what it answered each call). It never reads a subject's own
trace, and it does not assume our wording: a subject may phrase its errors its own way or wrap
tool results (HolmesGPT prefixes each with the parameters used). It judges behaviour: was a bad
call kept from the server, did the model get a message that names every problem, was every call
id answered with its own call's result in call order, was the summary request tool-less, did an
answer that should be refused get exactly one further turn, and did the run then end cleanly.

Every item is judged on every scenario where it applies, not only the one written for it (a
schema-breaking call in the mixed round is C3's as much as the C3 scenario's), and every
violation is reported, grouped by scenario, each with its evidence.

Each verdict is `holds`, `fails` (with every violation) or `not observable` (and why). Pure: no
I/O, no SDK.

The package: `wire` reads what crossed the wire, `checks` what several items check alike, and
one module per group of items (`turns`, `calls`, `results`, `reports`, `safety`).
"""

from __future__ import annotations

from collections.abc import Mapping

from k8s_agent import scenarios
from k8s_agent.contract.judge.calls import c3, c4, c6, c8, c9
from k8s_agent.contract.judge.reports import c11, c12
from k8s_agent.contract.judge.results import c10
from k8s_agent.contract.judge.safety import c13, c14
from k8s_agent.contract.judge.turns import c1, c2, c5, c7
from k8s_agent.contract.judge.wire import (
    FAILS,
    HOLDS,
    UNOBSERVABLE,
    Judgement,
    Observed,
    Verdict,
    Violation,
    refuses,
)

ITEMS: dict[str, str] = {
    "C1": "forced first step",
    "C2": "zero-tool pushback",
    "C3": "schema rejection",
    "C4": "duplicates, forced summary",
    "C5": "invented pods pushback",
    "C6": "unknown tool",
    "C7": "step budget",
    "C8": "invalid JSON arguments",
    "C9": "tool failure",
    "C10": "protocol invariant",
    "C11": "report schema",
    "C12": "fabricated evidence",
    "C13": "write tools",
    "C14": "secrets",
}


def judge_all(
    observed: Mapping[str, Observed], max_steps: Mapping[str, int] | None = None
) -> list[Judgement]:
    """Every item, from the runs of one subject by scenario name, each judged on every run it applies to."""
    runs = list(observed.values())
    budget = (max_steps or {}).get(scenarios.C7.name)
    return [
        c1(runs),
        c2(runs),
        c3(runs),
        c4(runs),
        c5(runs),
        c6(runs),
        c7(runs, budget),
        c8(runs),
        c9(runs),
        c10(runs),
        c11(runs),
        c12(runs),
        c13(runs),
        c14(runs),
    ]


__all__ = [
    "FAILS",
    "HOLDS",
    "ITEMS",
    "UNOBSERVABLE",
    "Judgement",
    "Observed",
    "Verdict",
    "Violation",
    "c1",
    "c2",
    "c3",
    "c4",
    "c5",
    "c6",
    "c7",
    "c8",
    "c9",
    "c10",
    "c11",
    "c12",
    "c13",
    "c14",
    "judge_all",
    "refuses",
]
