"""Progress on stderr while a run goes: each model turn and each tool call as it happens."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from harness.trace import Event

MARKS = {
    "executed": "✓",
    "cached": "↺",
    "failed": "✗",
    "unknown": "✗",
    "refused": "✗",
    "invalid_json": "✗",
    "invalid_args": "✗",
}
OUTCOME_WORDS = {
    "cached": "duplicate, answered from cache",
    "unknown": "unknown tool, rejected",
    "refused": "not read-only, refused",
    "invalid_json": "arguments are not JSON, rejected",
    "invalid_args": "arguments break the schema, rejected",
}


class ProgressPrinter:
    """Prints one line per model turn, tool call and guardrail."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr

    def __call__(self, event: Event) -> None:
        line = self.line(event)
        if line:
            print(line, file=self.stream, flush=True)

    def line(self, event: Event) -> str | None:
        """The progress line for one trace event, or None for events not worth a line."""
        kind = event["kind"]
        step = event.get("step", 0)
        if kind == "run_start":
            return f"k8s-agent · {event['impl']} agent · model {event.get('model')} · question: {event.get('question')}"
        if kind == "tools_listed":
            refused = event.get("refused") or []
            note = f" (refused, not read-only: {', '.join(refused)})" if refused else ""
            return f"  tools: {', '.join(event.get('allowed') or [])}{note}"
        if kind == "model_request" and event.get("attempt", 1) == 1:
            if not event.get("tools_sent"):
                how = "summary, no tools"
            elif event.get("tool_choice") == "required":
                how = "tools required"
            else:
                how = "tools offered"
            return f"step {step}: asking the model ({event.get('message_count')} messages, {how})"
        if kind == "model_request":
            return f"step {step}: retrying the model request (attempt {event.get('attempt')})"
        if kind == "model_error":
            after = f", retry-after {event['retry_after']}s" if event.get("retry_after") else ""
            return f"  model endpoint answered HTTP {event.get('status')}{after}"
        if kind == "model_response":
            if event.get("malformed"):
                return "  model sent a malformed response"
            calls = event.get("tool_calls") or []
            latency = f" ({event.get('latency_ms', 0):.0f} ms)"
            if calls:
                return f"  model proposes {len(calls)} tool call{'s' if len(calls) != 1 else ''}{latency}"
            return f"  model answers ({len(event.get('text') or '')} characters){latency}"
        if kind == "tool_call":
            return self._tool_line(event)
        if kind == "tool_retry":
            return f"  … {event.get('tool')} failed ({event.get('reason')}); retrying in {event.get('delay_s'):g}s"
        if kind == "guardrail":
            return f"  ! {_guardrail_words(event)}"
        if kind == "mcp_restart":
            outcome = "restarted it" if event.get("ok") else f"could not restart it: {event.get('error')}"
            return f"  ! MCP server: {event.get('reason')}; {outcome}"
        if kind == "mcp_tools_changed":
            return f"  ! MCP server changed its tool list ({event.get('detail')}): further calls are refused"
        return None

    @staticmethod
    def _tool_line(event: Event) -> str:
        outcome = event.get("outcome", "")
        mark = MARKS.get(outcome, "?")
        arguments = _compact(event.get("arguments"))
        if outcome == "executed":
            lines = str(event.get("result") or "").count("\n") + 1
            detail = f"{lines} lines, {event.get('duration_ms', 0):.0f} ms"
        elif outcome == "failed":
            detail = str(event.get("result") or "")
        else:
            detail = OUTCOME_WORDS.get(outcome, str(outcome))
        return f"  {mark} {event.get('tool')}({arguments}): {_clip(detail, 140)}"


def _guardrail_words(event: Event) -> str:
    name = event.get("guardrail")
    if name == "zero_tool":
        return "pushback: the model answered without investigating"
    if name == "evidence":
        return f"pushback: the report names things no tool returned: {', '.join(event.get('names') or [])}"
    if name == "forced_summary":
        return f"stopping the investigation ({str(event.get('reason', '')).replace('_', ' ')}): asking for the summary"
    return str(name)


def _compact(arguments: Any) -> str:
    if isinstance(arguments, dict):
        return ", ".join(
            f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in arguments.items()
        )
    return _clip(str(arguments), 60)


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
