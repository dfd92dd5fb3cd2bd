"""Rendering a run's report for the terminal."""

from __future__ import annotations

from harness.session import RunResult

OFFLINE_NOTE = "offline (deterministic playbook, not an LLM)"
RULE = "─" * 78


def render(result: RunResult) -> str:
    """The report as printed by `k8s-agent ask`: a header, the model's answer, and a footer."""
    stats = result.stats
    model = OFFLINE_NOTE if result.model == "offline" else result.model
    tools = stats.tool_calls_executed
    rejected = sum(stats.rejected.values())
    header = (
        f"k8s-agent report · {result.impl} agent · model {model}\n"
        f"{stats.model_requests} model requests · {tools} tool calls"
        f"{f' · {rejected} rejected' if rejected else ''}"
        f"{f' · summary forced ({stats.forced_summary.replace(chr(95), chr(32))})' if stats.forced_summary else ''}"
        f" · {result.wall_seconds:.1f} s"
    )
    lines = [header, RULE, result.answer.strip(), RULE]
    if result.ungrounded:
        lines.append(f"Unverified names (in no tool result): {', '.join(result.ungrounded)}")
    lines.append(f"Trace: {result.trace}")
    return "\n".join(lines)
