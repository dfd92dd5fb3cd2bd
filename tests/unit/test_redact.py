"""Redaction of secret values in text and JSON-like values."""

from __future__ import annotations

import pytest

from k8s_agent_harness.redact import REDACTED, Redactor


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("      DB_PASSWORD:  hunter22", f"      DB_PASSWORD:  {REDACTED}"),
        ("export API_TOKEN=abc123xyz", f"export API_TOKEN={REDACTED}"),
        ("Authorization: Bearer abcdefghijkl", f"Authorization: Bearer {REDACTED}"),
        ('{"token": "abcdefgh", "user": "bob"}', f'{{"token": "{REDACTED}", "user": "bob"}}'),
        ("client-key-data: LS0tLS1CRUdJTi", f"client-key-data: {REDACTED}"),
        ("key eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmn end", f"key {REDACTED} end"),
        ("use sk-proj-abcdefghijklmnopqrst", f"use {REDACTED}"),
    ],
)
def test_secret_values_are_redacted(text: str, redacted: str) -> None:
    assert Redactor().text(text) == redacted


@pytest.mark.parametrize(
    "text",
    [
        "config validation failed: missing required field 'DB_PASSWORD'",
        "DB_PASSWORD:  <set to the key 'password' in secret 'payment-db'>  Optional: false",
        "failed to authorize: 401 Unauthorized",
        "prompt_tokens: 1200",
    ],
)
def test_evidence_that_only_names_a_secret_is_kept(text: str) -> None:
    assert Redactor().text(text) == text


def test_known_values_are_redacted_anywhere_and_dict_keys_decide_too() -> None:
    redactor = Redactor(["s3cr3t-value"])
    redactor.add("tok-from-kubeconfig")

    assert redactor.text("a s3cr3t-value b tok-from-kubeconfig") == f"a {REDACTED} b {REDACTED}"
    assert redactor.value({"password": "x1", "items": ["Bearer zzzzzzzzzz"], "total_tokens": 3}) == {
        "password": REDACTED,
        "items": [f"Bearer {REDACTED}"],
        "total_tokens": 3,
    }
