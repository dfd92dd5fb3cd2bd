"""The Agents SDK's own tracing, bridged into the run's span tree: never uploaded to OpenAI.

The SDK traces every `Runner.run` (a trace with agent, turn, response or generation, and function
spans) and by default sends those traces to OpenAI. This port replaces the SDK's processors with
one of its own (`set_trace_processors`), always: with span export off, the SDK's tracing is
disabled as well; with it on (otel.py), `SpanBridge` reads each SDK trace of a run and adds it to
the run's span tree as one `openai_agents.run` event on the run's span: which agent ran, how many
turns, model calls and function calls the SDK saw. The model calls and tool calls themselves are
spans built from the trace events (spans.py), exactly as for the hand-written agent, so the two
trees differ only by these events: where the SDK port's behaviour differs (it runs `Runner` again
after a pushback and for the summary).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agents import TracingProcessor, set_trace_processors, set_tracing_disabled

from k8s_agent_harness.traces.spans import SpanBuilder


@dataclass
class _SdkTrace:
    """One SDK trace (one `Runner.run`) of a run, as its spans end."""

    builder: SpanBuilder
    started: float
    workflow: str
    agent: str | None = None
    spans: Counter[str] = field(default_factory=Counter)


class SpanBridge(TracingProcessor):
    """Receives the SDK's traces; those of a run being exported become events of its span tree."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, SpanBuilder] = {}
        self._traces: dict[str, _SdkTrace] = {}

    def attach(self, run_id: str, builder: SpanBuilder) -> None:
        """Send the SDK traces grouped under `run_id` to this run's span builder."""
        with self._lock:
            self._runs[run_id] = builder

    def detach(self, run_id: str) -> None:
        """The run ended: its SDK traces go nowhere from now on."""
        with self._lock:
            self._runs.pop(run_id, None)

    def on_trace_start(self, trace: Any) -> None:
        with self._lock:
            builder = self._runs.get(getattr(trace, "group_id", None) or "")
            if builder is not None:
                self._traces[trace.trace_id] = _SdkTrace(builder, time.time(), trace.name)

    def on_span_end(self, span: Any) -> None:
        with self._lock:
            traced = self._traces.get(span.trace_id)
            if traced is None:
                return
            kind = span.span_data.type
            traced.spans[kind] += 1
            if kind == "agent" and traced.agent is None:
                traced.agent = span.span_data.name

    def on_trace_end(self, trace: Any) -> None:
        with self._lock:
            traced = self._traces.pop(trace.trace_id, None)
        if traced is None:
            return
        spans = traced.spans
        traced.builder.sdk_run(
            traced.started,
            {
                "openai_agents.trace_id": trace.trace_id,
                "openai_agents.workflow": traced.workflow,
                "openai_agents.agent": traced.agent,
                "openai_agents.turns": spans["turn"],
                "openai_agents.model_calls": spans["response"] + spans["generation"],
                "openai_agents.function_calls": spans["function"],
            },
        )

    def on_span_start(self, span: Any) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


BRIDGE = SpanBridge()
"""The one processor the SDK is given, for every run of the process."""


def install(exporting: bool) -> None:
    """Give the SDK our processor in place of its own (which would upload to OpenAI); its tracing is
    on only while runs are exported."""
    set_trace_processors([BRIDGE])
    set_tracing_disabled(not exporting)
