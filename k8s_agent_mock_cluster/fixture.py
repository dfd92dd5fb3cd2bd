"""Cluster fixtures: JSON files describing nodes, pods (with logs) and events, validated on load."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

_STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
_LINES = {"type": "array", "items": {"type": "string"}}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["nodes", "pods"],
    "properties": {
        "cluster": {"type": "object"},
        "nodes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "status"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "status": {"type": "string"},
                    "roles": {"type": "array", "items": {"type": "string"}},
                    "capacity": _STRING_MAP,
                    "allocatable": _STRING_MAP,
                    "conditions": _STRING_MAP,
                    "labels": _STRING_MAP,
                },
            },
        },
        "pods": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "namespace", "status", "containers"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "namespace": {"type": "string", "minLength": 1},
                    "status": {"type": "string"},
                    "phase": {"type": "string"},
                    "node": {"type": ["string", "null"]},
                    "labels": _STRING_MAP,
                    "annotations": _STRING_MAP,
                    "conditions": _STRING_MAP,
                    "containers": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["name", "image"],
                            "properties": {
                                "name": {"type": "string"},
                                "image": {"type": "string"},
                                "ready": {"type": "boolean"},
                                "restarts": {"type": "integer", "minimum": 0},
                                "state": {"type": "object"},
                                "last_state": {"type": "object"},
                                "requests": _STRING_MAP,
                                "limits": _STRING_MAP,
                                "env": {
                                    "type": "object",
                                    "additionalProperties": {"type": ["string", "object"]},
                                },
                                "logs": _LINES,
                                "previous_logs": _LINES,
                            },
                        },
                    },
                },
            },
        },
        "events": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["namespace", "object", "type", "reason", "message"],
                "properties": {
                    "object": {"type": "string", "pattern": "^[A-Za-z]+/.+$"},
                    "count": {"type": "integer", "minimum": 1},
                },
            },
        },
    },
}


class FixtureError(Exception):
    """A fixture file is missing, not JSON, or not a cluster description."""


def default_fixture_path() -> Path:
    """The fixture shipped with the package."""
    return Path(str(resources.files("k8s_agent_mock_cluster") / "fixtures" / "default.json"))


def load_fixture(path: Path | None = None) -> dict[str, Any]:
    """Read and validate a fixture; raises FixtureError with a one-line reason."""
    path = path or default_fixture_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FixtureError(f"cluster fixture not found: {path}") from None
    except OSError as error:
        raise FixtureError(f"cannot read fixture {path}: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise FixtureError(f"fixture {path} is not valid JSON: {error}") from None
    errors = sorted(
        Draft202012Validator(SCHEMA).iter_errors(data), key=lambda e: list(map(str, e.absolute_path))
    )
    if errors:
        first = errors[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.absolute_path) or "<root>"
        more = (
            f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
            if len(errors) > 1
            else ""
        )
        raise FixtureError(f"fixture {path} is not a cluster description: {where}: {first.message}{more}")
    return dict(data)
