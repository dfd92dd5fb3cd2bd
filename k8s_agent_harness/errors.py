"""Run failures: errors that end a run with a clear one-line message and an exit code.

Guardrail feedback is never an exception: it is a message the model reads. These are the
cases where the run itself cannot go on.

    AgentError
    ├── ConfigError          bad flag, bad file, bad environment value       (exit 2)
    ├── ModelEndpointError   the model endpoint failed or answered nonsense  (exit 3)
    │   └── MalformedResponseError
    └── McpServerError       the MCP server could not be started             (exit 4)
"""

from __future__ import annotations

from pathlib import Path


class AgentError(Exception):
    """Base of every run failure; `str(error)` is the one-line message for the user."""

    exit_code = 1
    trace_path: Path | None = None
    """The run's trace, once one was opened; set by the run before the error leaves it."""


class ConfigError(AgentError):
    """A flag, environment value or input file is invalid."""

    exit_code = 2


class ModelEndpointError(AgentError):
    """The model endpoint is unreachable, refused the request, or kept failing after retries."""

    exit_code = 3


class MalformedResponseError(ModelEndpointError):
    """The model endpoint answered with something that is not a usable chat completion."""


class McpServerError(AgentError):
    """The MCP server could not be started or listed no usable tools."""

    exit_code = 4

    def __init__(self, message: str, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.stderr_tail = stderr_tail
