"""Argument validation against a tool's JSON Schema: all errors, sorted by path, compiled once.

The exact messages come from `jsonschema` (Draft 2020-12 unless the schema names another draft).
Most calls are valid, so a compiled `fastjsonschema` check answers those first (about 1 µs
instead of 10-15 µs); it is used only for schemas with no keyword newer than draft 7, where both
agree, and `jsonschema` stays the judge of every call it rejects. Compiling waits for a tool's
first call: a server listing many tools should not pay at start-up for those never called.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import fastjsonschema
from jsonschema import exceptions as schema_exceptions
from jsonschema import validators

# Keywords whose meaning changed or appeared after draft 7: their schemas skip the fast path.
_NEWER_KEYWORDS = frozenset(
    {
        "prefixItems",
        "$dynamicRef",
        "$dynamicAnchor",
        "$recursiveRef",
        "$recursiveAnchor",
        "unevaluatedProperties",
        "unevaluatedItems",
        "dependentRequired",
        "dependentSchemas",
        "minContains",
        "maxContains",
        "$vocabulary",
    }
)


# Compiled validators by schema text, shared by every run of the process (compare, bench, tests).
_COMPILED: dict[str, tuple[Any, Callable[[Any], Any] | None]] = {}


class ArgumentValidator:
    """Validates one tool's arguments; a broken schema disables validation with one warning."""

    def __init__(self, tool: str, schema: Mapping[str, Any], warn: Callable[[str], None]) -> None:
        self.tool = tool
        self._schema = dict(schema)
        self._warn = warn
        self._compiled = False
        self._full: Any = None
        self._fast: Callable[[Any], Any] | None = None

    def errors(self, arguments: Any) -> list[str]:
        """Every schema error of `arguments` as `path: message`, sorted by path; [] when valid."""
        if not isinstance(arguments, dict):
            return [f"<root>: arguments must be a JSON object, got {type(arguments).__name__}"]
        if not self._compiled:
            self._compile()
        if self._full is None:
            return []
        if self._fast is not None:
            try:
                self._fast(arguments)
                return []
            except fastjsonschema.JsonSchemaValueException:
                pass  # the full validator decides, and words the errors
        found = sorted((_path(error), error.message) for error in self._full.iter_errors(arguments))
        return [f"{path}: {message}" for path, message in found]

    def _compile(self) -> None:
        self._compiled = True
        key = json.dumps(self._schema, sort_keys=True, default=str)
        if key in _COMPILED:
            self._full, self._fast = _COMPILED[key]
            return
        self._compile_schema()
        if self._full is not None:
            _COMPILED[key] = (self._full, self._fast)

    def _compile_schema(self) -> None:
        cls = validators.validator_for(self._schema, default=validators.Draft202012Validator)
        try:
            cls.check_schema(self._schema)
        except schema_exceptions.SchemaError as error:
            self._warn(
                f"tool {self.tool} has an invalid input schema ({error.message}); its arguments are not validated"
            )
            return
        self._full = cls(self._schema)
        if not _uses_newer_keywords(self._schema):
            try:
                self._fast = fastjsonschema.compile(self._schema, use_default=False)
            except (fastjsonschema.JsonSchemaDefinitionException, ValueError, TypeError, RecursionError):
                self._fast = None  # the full validator alone


def _uses_newer_keywords(schema: Any) -> bool:
    if isinstance(schema, dict):
        if _NEWER_KEYWORDS & schema.keys() or isinstance(schema.get("items"), list):
            return True
        if str(schema.get("$schema", "")).rstrip("#/").endswith(("2019-09/schema", "2020-12/schema")):
            return True
        return any(_uses_newer_keywords(value) for value in schema.values())
    if isinstance(schema, list):
        return any(_uses_newer_keywords(item) for item in schema)
    return False


def _path(error: schema_exceptions.ValidationError) -> str:
    return ".".join(str(part) for part in error.absolute_path) or "<root>"
