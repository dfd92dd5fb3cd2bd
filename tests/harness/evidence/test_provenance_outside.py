"""An outside corpus against attribution: 40 tool results, each with a quote a report could cite and
the finding it cites it for, written from the rules in docs/report.md by someone who had not read
provenance.py (tests/harness/evidence/data/attribution_corpus.json): 33 try to credit another pod's
state to the pod the call named (map keys naming it in JSON and YAML, nested, flow style, quoted,
escaped, in block scalars, in lists; annotations; tables, CSV, prose; owners; logs), 7 are honest
citations that must still count. Each case's verdict is the corpus's, except the limits listed
below, which are what the attribution does instead, and why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.evidence.grounding import ToolText
from k8s_agent_harness.evidence.provenance import Owners, Subject, normalised, sources_of, span_about

CORPUS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "attribution_corpus.json").read_text(encoding="utf-8")
)
LIMITS = {
    "json-key-same-name-other-namespace": "a key naming the called pod's name in another namespace is read as the called pod",
    "json-key-debug-copy-extends-name": "another pod is recognised by a name the results show or a controller generated; a hand-made name is neither",
    "json-key-statefulset-substring": "a StatefulSet pod's name (`payments-db-0`) is not taken for a generated one unless a result shows it",
    "yaml-list-item-pod-key": "a list item's `pod:` field is a value, not a key, and the item is no record of the pod",
    "ctrl-prose-line-names-B-for-B": "a line of a result about one pod that names another is evidence for neither (the other is only named in passing)",
}


def cited(case: dict[str, Any]) -> bool:
    """Whether some occurrence of the case's quote is about the case's finding."""
    (result,) = sources_of(
        [
            ToolText(
                "c1",
                case["tool"],
                case["text"],
                json.dumps(case["arguments"]),
                structured=case.get("structured"),
                parameters=tuple(case["arguments"]),
            )
        ]
    )
    finding = case["finding"]
    subject = Subject(finding["kind"], finding["name"], finding.get("namespace"))
    known = Owners([result])
    found = [
        (reading, start, end)
        for reading in result.readings
        for start, end in reading.occurrences(normalised(case["quote"]))
    ]
    assert found, f"{case['id']}: the quote is nowhere in the result"
    return any(span_about(result, reading, start, end, subject, known) for reading, start, end in found)


@pytest.mark.parametrize("case", CORPUS, ids=[case["id"] for case in CORPUS])
def test_each_citation_counts_for_the_finding_exactly_when_the_corpus_says(case: dict[str, Any]) -> None:
    expected = case["expected"] if case["id"] not in LIMITS else not case["expected"]

    assert cited(case) is expected, (
        f"{case['id']}: {case['why']} ({LIMITS.get(case['id'], 'as the corpus says')})"
    )


def test_the_corpus_tries_both_ways_and_its_limits_are_its_own_cases() -> None:
    assert set(LIMITS) <= {case["id"] for case in CORPUS}
    assert sum(case["expected"] for case in CORPUS) == 7
    assert len(CORPUS) - len(LIMITS) == 35
