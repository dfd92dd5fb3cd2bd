"""Rendering a run's report for the terminal."""

from __future__ import annotations

from k8s_agent_harness.config import OFFLINE_MODEL
from k8s_agent_harness.session import RunResult

OFFLINE_NOTE = "offline (deterministic playbook, not an LLM)"
RULE = "─" * 78


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 tool call`, `2 tool calls`."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def render(result: RunResult) -> str:
    """The report as printed by `k8s-agent ask`: a header, the model's answer, and a footer."""
    stats = result.stats
    model = OFFLINE_NOTE if result.model == OFFLINE_MODEL else result.model
    rejected = sum(stats.rejected.values())
    facts = [
        plural(stats.model_requests, "model request"),
        plural(stats.tool_calls_executed, "tool call"),
    ]
    if rejected:
        facts.append(f"{rejected} rejected")
    if stats.forced_summary:
        facts.append(f"summary forced ({stats.forced_summary.value.replace('_', ' ')})")
    facts.append(f"{result.wall_seconds:.1f} s")
    lines = [
        f"k8s-agent report · {result.impl} agent · model {model}",
        " · ".join(facts),
        RULE,
        result.answer.strip(),
        RULE,
    ]
    if result.ungrounded:
        lines.append(f"Unverified names (in no tool result): {', '.join(result.ungrounded)}")
    lines.append(f"Trace: {result.trace}")
    return "\n".join(lines)
