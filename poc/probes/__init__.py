"""Every probe, in the order the table shows them. Importing this imports no SDK code."""

from poc.probe import Probe
from poc.probes import (
    concurrency,
    empty_choices,
    features,
    forced_summary,
    invalid_json,
    output_type,
    port_hooks,
    rerun,
    retries,
    reused_ids,
    tool_choice,
    tool_exception,
    tool_output,
    unknown_tool,
)

PROBES: tuple[Probe, ...] = (
    tool_choice.PROBE,
    invalid_json.PROBE,
    unknown_tool.PROBE,
    forced_summary.PROBE,
    reused_ids.PROBE,
    features.PROBE,
    concurrency.PROBE,
    tool_output.PROBE,
    tool_exception.PROBE,
    retries.PROBE,
    empty_choices.PROBE,
    rerun.PROBE,
    port_hooks.PROBE,
    output_type.PROBE,
)

__all__ = ["PROBES"]
