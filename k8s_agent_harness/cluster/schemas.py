"""Argument validation against a tool's JSON Schema: all errors, sorted by path, compiled once.

The messages come from `jsonschema` (Draft 2020-12 unless the schema names another draft).
Compiling waits for a tool's first call: a server listing many tools should not pay at start-up
for those never called. A validation costs about 10 µs, next to a millisecond for the MCP round
trip and seconds for the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from jsonschema import exceptions as schema_exceptions
from jsonschema import validators

# Compiled validators by schema text, shared by every run of the process (compare, bench, tests).
_COMPILED: dict[str, Any] = {}


class ArgumentValidator:
    """Validates one tool's arguments; a broken schema disables validation with one warning."""

    def __init__(self, tool: str, schema: Mapping[str, Any], warn: Callable[[str], None]) -> None:
        self.tool = tool
        self._schema = dict(schema)
        self._warn = warn
        self._compiled = False
        self._validator: Any = None

    def errors(self, arguments: Any) -> list[str]:
        """Every schema error of `arguments` as `path: message`, sorted by path; [] when valid."""
        if not isinstance(arguments, dict):
            return [f"<root>: arguments must be a JSON object, got {type(arguments).__name__}"]
        if not self._compiled:
            self._compile()
        if self._validator is None:
            return []
        found = sorted((_path(error), error.message) for error in self._validator.iter_errors(arguments))
        return [f"{path}: {message}" for path, message in found]

    def _compile(self) -> None:
        self._compiled = True
        key = json.dumps(self._schema, sort_keys=True, default=str)
        if key in _COMPILED:
            self._validator = _COMPILED[key]
            return
        cls = validators.validator_for(self._schema, default=validators.Draft202012Validator)
        try:
            cls.check_schema(self._schema)
        except schema_exceptions.SchemaError as error:
            self._warn(
                f"tool {self.tool} has an invalid input schema ({error.message}); its arguments are not validated"
            )
            return
        self._validator = _COMPILED[key] = cls(self._schema)


def _path(error: schema_exceptions.ValidationError) -> str:
    return ".".join(str(part) for part in error.absolute_path) or "<root>"
