"""Fault plans: make the mock cluster fail on purpose, for tests and demos.

A plan is a JSON file: {"faults": [{"tool": "list_pods", "action": "error", "times": 2, ...}]}.

    tool        tool name, or "*" for any (default "*")
    action      error | hang | freeze | exit | delay | lose_session
    after       let this many matching calls pass first (default 0)
    times       affect this many matching calls, then stop (default: every one)
    message     error text (action error)
    shape       is_error (a tool result with isError) or jsonrpc (a JSON-RPC error); default is_error
    code        JSON-RPC error code for shape jsonrpc (default -32603)
    retry_after seconds the server asks the client to wait (action error)
    seconds     how long to wait (action delay; hang waits "forever")
    exit_code   process exit status (action exit, default 1)

`hang` never answers that one call; `freeze` stops the whole server answering; `exit` kills the
process before it answers. `lose_session` (over HTTP) answers the call, then forgets every session
opened so far, as a server restarted behind a load balancer does: their next request gets 404.
Counters persist in a state file next to the plan, so a restarted
server continues the plan instead of starting it over.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

ACTIONS = ("error", "hang", "freeze", "exit", "delay", "lose_session")

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["faults"],
    "additionalProperties": False,
    "properties": {
        "faults": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "tool": {"type": "string", "minLength": 1, "description": 'tool name, or "*" for any'},
                    "action": {"enum": list(ACTIONS)},
                    "after": {"type": "integer", "minimum": 0},
                    "times": {"type": ["integer", "null"], "minimum": 1},
                    "message": {"type": "string"},
                    "shape": {"enum": ["is_error", "jsonrpc"]},
                    "code": {"type": "integer"},
                    "retry_after": {"type": ["number", "null"], "minimum": 0},
                    "seconds": {"type": "number", "minimum": 0},
                    "exit_code": {"type": "integer", "minimum": 0, "maximum": 255},
                },
            },
        }
    },
}
"""The JSON Schema a fault plan must satisfy (docs/mock-cluster.md shows it)."""


class FaultPlanError(Exception):
    """The fault plan file is unusable."""


@dataclass(frozen=True)
class Fault:
    """One planned misbehaviour."""

    tool: str = "*"
    action: str = "error"
    after: int = 0
    times: int | None = None
    message: str = "injected failure"
    shape: str = "is_error"
    code: int = -32603
    retry_after: float | None = None
    seconds: float = 3600.0
    exit_code: int = 1

    def matches(self, tool: str) -> bool:
        """Whether this fault applies to calls of `tool`."""
        return self.tool in ("*", tool)


class FaultPlan:
    """The faults of one plan and how many matching calls each has seen (persisted)."""

    def __init__(self, faults: list[Fault], state_path: Path | None = None) -> None:
        self.faults = faults
        self.state_path = state_path
        self.seen = self._load_state()

    @classmethod
    def load(cls, path: Path) -> FaultPlan:
        """Read a plan file; raises FaultPlanError with a one-line reason."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise FaultPlanError(f"cannot read fault plan {path}: {error}") from None
        errors = sorted(Draft202012Validator(SCHEMA).iter_errors(data), key=lambda e: list(map(str, e.path)))
        if errors:
            first = errors[0]
            where = (
                "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.absolute_path) or "<root>"
            )
            raise FaultPlanError(f"fault plan {path}: {where}: {first.message}")
        return cls([Fault(**entry) for entry in data["faults"]], path.with_name(path.name + ".state"))

    def next_fault(self, tool: str) -> Fault | None:
        """Count this call against every matching fault; return the first that fires."""
        fired: Fault | None = None
        for index, fault in enumerate(self.faults):
            if not fault.matches(tool):
                continue
            seen = self.seen[index]
            self.seen[index] = seen + 1
            in_window = seen >= fault.after and (fault.times is None or seen < fault.after + fault.times)
            if in_window and fired is None:
                fired = fault
        self._save_state()
        return fired

    def _load_state(self) -> list[int]:
        counts = [0] * len(self.faults)
        if self.state_path is None:
            return counts
        try:
            saved = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return counts
        if isinstance(saved, list) and len(saved) == len(counts) and all(isinstance(n, int) for n in saved):
            return saved
        return counts

    def _save_state(self) -> None:
        if self.state_path is not None:
            self.state_path.write_text(json.dumps(self.seen), encoding="utf-8")


def describe(fault: Fault) -> dict[str, Any]:
    """A compact record of a fault for the call log."""
    return {"action": fault.action, "shape": fault.shape if fault.action == "error" else None}
