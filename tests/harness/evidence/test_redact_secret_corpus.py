"""An outside corpus against the redactor: 100 results as Kubernetes tools print them, each with the
secrets planted in it and the values that are evidence, written from the redaction rules in
docs/real-clusters.md by someone who had not read the redactor (tests/harness/evidence/data/secret_corpus.json:
pods, workloads and Secrets of every type in YAML, JSON and Go's and kubectl's shapes, describe text,
tables, logs, structured content, results cut short). A second corpus of 60 log lines and short log
excerpts as containers print them (tests/harness/evidence/data/log_secret_corpus.json: logfmt, klog, JSON
loggers, Python, Java, Go, Node.js, access logs, database clients, shell traces, and cases that name
secrets but hold none) was likewise written from the docs alone. No secret, nor its base64 or
JSON-escaped form, survives; every kept value does."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.evidence.redact import Redactor

CORPUS = json.loads((Path(__file__).parent / "data" / "secret_corpus.json").read_text(encoding="utf-8"))
LOG_CORPUS = json.loads(
    (Path(__file__).parent / "data" / "log_secret_corpus.json").read_text(encoding="utf-8")
)


def forms(value: str) -> list[str]:
    return [value, base64.b64encode(value.encode()).decode(), json.dumps(value)[1:-1]]


@pytest.mark.parametrize("case", CORPUS, ids=[case["id"] for case in CORPUS])
def test_the_case_s_secrets_are_redacted_and_its_evidence_kept(case: dict[str, Any]) -> None:
    redactor = Redactor()
    written = redactor.text(case["text"])
    if case.get("structured") is not None:
        written += json.dumps(redactor.value(case["structured"]), ensure_ascii=False)

    assert [form for secret in case["secrets"] for form in forms(secret) if form in written] == []
    assert [value for value in case["keep"] if not any(form in written for form in forms(value))] == []


def test_the_corpus_plants_what_it_checks() -> None:
    """Each case holds its secrets and its kept values before redaction: the test above can fail."""
    assert len(CORPUS) >= 100
    for case in CORPUS:
        raw = case["text"] + json.dumps(case.get("structured"), ensure_ascii=False)
        assert case["secrets"] and all(any(form in raw for form in forms(s)) for s in case["secrets"]), case[
            "id"
        ]
        assert all(any(form in raw for form in forms(value)) for value in case["keep"]), case["id"]


@pytest.mark.parametrize("case", LOG_CORPUS, ids=[case["id"] for case in LOG_CORPUS])
def test_the_log_case_s_secrets_are_redacted_and_its_evidence_kept(case: dict[str, Any]) -> None:
    """The case plants what it lists (the corpus holds cases without a secret too), and the redactor hides
    every secret and keeps every kept value."""
    assert len(LOG_CORPUS) == 60 and len([other for other in LOG_CORPUS if not other["secrets"]]) >= 15
    assert all(len(secret) >= 6 and secret in case["text"] for secret in case["secrets"])
    assert case["keep"] and all(len(value) >= 4 and value in case["text"] for value in case["keep"])
    assert [value for value in case["keep"] for secret in case["secrets"] if secret in value] == []

    written = Redactor().text(case["text"])

    assert [form for secret in case["secrets"] for form in forms(secret) if form in written] == []
    assert [value for value in case["keep"] if not any(form in written for form in forms(value))] == []
