"""Redaction by what an object is: Kubernetes objects with planted values at every position that holds
a secret, printed every way the servers print them (tests/reliability/secret_objects.py). No planted
secret, nor its base64, survives; every planted value that is evidence does. The same holds where the
document cannot be read whole (a log line before it, cut short), and there only a secret's line
changes."""

from __future__ import annotations

import json
import re

import yaml
from hypothesis import given, settings

from k8s_agent_harness.evidence.redact import REDACTED, Redactor
from tests.reliability.secret_objects import Planted, encoded, objects, shapes, unreadable_shapes


def leaks(planted: Planted, written: str) -> list[str]:
    return [form for secret in planted.secrets for form in encoded(secret) if form in written]


@settings(max_examples=300)
@given(objects)
def test_no_planted_secret_survives_any_shape_and_every_kept_value_does(planted: Planted) -> None:
    for shape, text, structured in shapes(planted):
        redactor = Redactor()
        out = redactor.text(text)
        assert not leaks(planted, out), (shape, leaks(planted, out), out)
        if structured is not None:
            value = json.dumps(redactor.value(structured), ensure_ascii=False)
            assert not leaks(planted, value), (shape, leaks(planted, value), value)
            assert [k for k in planted.keep if k not in value] == [], (shape, value)
        elif shape not in ("table", "describe"):
            assert [k for k in planted.keep if k not in out] == [], (shape, out)


@settings(max_examples=100)
@given(objects)
def test_a_redacted_document_is_still_the_same_document_with_marks(planted: Planted) -> None:
    """Only values change: a YAML or JSON result still reads as the same objects, keys and all (a
    plain YAML value redacted reads as `[REDACTED]`, as the line patterns write it)."""
    for shape, text, _ in shapes(planted):
        if not shape.startswith(("yaml", "json", "list", "stream")):
            continue
        out = Redactor().text(text)
        before = list(yaml.safe_load_all(text))
        after = list(yaml.safe_load_all(out))
        assert _keys(before) == _keys(after), shape
        assert (REDACTED in out) == bool(planted.secrets), shape


def _parses(text: str) -> bool:
    try:
        list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return False
    return True


def _keys(value: object) -> object:
    if isinstance(value, dict):
        return {key: _keys(item) for key, item in value.items() if key != "annotations"}
    if isinstance(value, list):
        return None if value == ["REDACTED"] else [_keys(item) for item in value]  # `[REDACTED]`, plain
    return None


@settings(max_examples=150)
@given(objects)
def test_a_document_that_cannot_be_read_whole_loses_its_secrets_and_nothing_else(planted: Planted) -> None:
    """Where YAML cannot read the text, it is read by the shapes Kubernetes prints objects in: every
    line stays, a line without a secret stays as it was, and a line that changed is the line with
    values replaced by the mark, its text before, between and after them kept."""
    for shape, text in unreadable_shapes(planted):
        out = Redactor().text(text)
        assert not leaks(planted, out), (shape, leaks(planted, out), out)
        # an env value the cut leaves without its name may be a secret: it may be hidden
        nameless = (
            text.rsplit("\n", 1)[-1] if re.search(r'^\s*(?:- )?"?value"?:', text.rsplit("\n", 1)[-1]) else ""
        )
        assert [k for k in planted.keep if k in text and k not in out and k not in nameless] == [], (
            shape,
            out,
        )
        if _parses(text):  # cut where YAML still reads it whole: read as a document, as above
            continue
        before, after = text.split("\n"), out.split("\n")
        assert len(before) == len(after), (shape, out)
        for line, written in zip(before, after, strict=True):
            if line == written:
                continue
            pieces = written.split(REDACTED)
            assert len(pieces) > 1, (shape, line, written)
            assert line.startswith(pieces[0]) and line.endswith(pieces[-1]), (shape, line, written)
            at = len(pieces[0])
            for piece in pieces[1:-1]:
                found = line.find(piece, at)
                assert found >= 0, (shape, line, written)
                at = found + len(piece)
            assert at <= len(line) - len(pieces[-1]), (shape, line, written)
