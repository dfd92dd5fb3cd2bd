"""Runs exported as OpenTelemetry spans, kept in memory: the span tree as a comparable value."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from k8s_agent_harness.traces import otel

SETTINGS = otel.OtelSettings(endpoint="http://127.0.0.1:9/v1/traces")
"""Export on; the endpoint is never reached (the spans go to memory)."""


@dataclass
class Exported:
    """The spans the process exports, into memory instead of over OTLP."""

    memory: InMemorySpanExporter

    @classmethod
    def start(cls) -> Exported:
        memory = InMemorySpanExporter()
        otel.start(SETTINGS, span_exporter=memory)
        return cls(memory)

    def spans(self) -> list[ReadableSpan]:
        """The spans exported since the last call (export stays on for the next runs)."""
        otel.finish()
        spans = list(self.memory.get_finished_spans())
        self.memory = Exported.start().memory
        return spans


@pytest.fixture
def exported(monkeypatch: pytest.MonkeyPatch) -> Iterator[Exported]:
    """Span export on for the runs of this test, into memory (the OTLP exporter's place)."""
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    try:
        yield Exported.start()
    finally:
        otel.finish()


def tree(spans: Sequence[Any], root: Any) -> dict[str, Any]:
    """A span and its children (by start time, then name) as plain data: name, kind, status,
    attributes, events (name and attributes), children."""
    children = sorted(
        (span for span in spans if span.parent is not None and span.parent.span_id == root.context.span_id),
        key=lambda span: (span.start_time, span.name),
    )
    return {
        "name": root.name,
        "kind": root.kind.name,
        "status": root.status.status_code.name,
        "attributes": dict(root.attributes or {}),
        "events": [(event.name, dict(event.attributes or {})) for event in root.events],
        "children": [tree(spans, child) for child in children],
    }


def roots(spans: Sequence[Any]) -> list[Any]:
    """The spans without a parent: one per run."""
    return [span for span in spans if span.parent is None]


def walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A tree's nodes, depth first."""
    yield node
    for child in node["children"]:
        yield from walk(child)


@pytest.fixture(autouse=True)
def _warm(warm: None) -> None:
    """Every test here starts servers or agents: the warm processes are started for the first."""
