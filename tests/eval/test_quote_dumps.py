"""A model that quotes whole results instead of the deciding line gets no fact for it.

The adversary is the events reader (`baseline:rules`) with one change: each finding's evidence is the
whole result it read (a log, a describe), cut into line-aligned quotes the report schema allows (up to
eight of up to 1,000 characters). The harness verifies such quotes (they are verbatim), and they hold
the deciding line wherever it is, so before the scorer read a fact as a line with its neighbours, this
dumping reader proved the deciding fact of all six incidents whose deciding line sits in the middle of a
log and solved five, none
of which the reader itself solves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import k8s_agent_scripted_llm.baseline_rules as reader
from k8s_agent.cli import main
from k8s_agent_harness.evidence.report import MAX_QUOTE_CHARACTERS, MAX_QUOTES

MIDLOG = "midlog-*"


def whole(text: str) -> list[str]:
    """The text's non-empty lines in quotes of at most MAX_QUOTE_CHARACTERS, the last MAX_QUOTES."""
    quotes: list[str] = []
    current = ""
    for line in (line.rstrip() for line in text.splitlines() if line.strip()):
        if current and len(current) + 1 + len(line) > MAX_QUOTE_CHARACTERS:
            quotes.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line[:MAX_QUOTE_CHARACTERS]
    return [*quotes, current][-MAX_QUOTES:] if current else quotes[-MAX_QUOTES:]


def eval_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dumping: bool) -> list[dict[str, Any]]:
    if dumping:
        plain = reader._finding

        def dump(*args: Any) -> dict[str, Any]:
            finding = plain(*args)
            read = args[-1].read
            finding["evidence"] = [
                {"text": quote, "call_id": read.call_id, "tool": read.call.tool} for quote in whole(read.text)
            ]
            return finding

        monkeypatch.setattr(reader, "_finding", dump)
    results = tmp_path / ("dumping.jsonl" if dumping else "reading.jsonl")
    monkeypatch.chdir(tmp_path)
    chosen = ("--impl", "handwritten", "--model", "baseline:rules", "--no-baselines", "--incident", MIDLOG)
    code = main(
        ["eval", *chosen, "--results", str(results), "--quiet", "--out", str(tmp_path / "report.json")]
    )
    assert code == 0
    return [json.loads(line) for line in results.read_text().splitlines() if line.strip()]


def test_a_reader_that_quotes_whole_results_proves_no_more_facts_than_the_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reading = eval_records(tmp_path, monkeypatch, dumping=False)
    dumping = eval_records(tmp_path, monkeypatch, dumping=True)

    quotes = [
        quote
        for record in dumping
        for finding in (record.get("report") or {}).get("findings") or []
        for quote in finding["evidence"]
    ]
    # The dumps reached the harness and passed its verification: what stops them is the scorer.
    assert any(quote["verified"] is True and len(quote["text"].splitlines()) > 5 for quote in quotes)
    assert len(dumping) == len(reading) == 6
    assert sum(r["score"]["fact"] for r in dumping) <= sum(r["score"]["fact"] for r in reading)
    assert not any(r["score"]["solved"] for r in dumping)
