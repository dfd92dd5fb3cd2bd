"""Tables the docs show that are generated from the code, never written by hand.

    python -m k8s_agent.docs settings    docs/configuration.md: every run setting
    python -m k8s_agent.docs traces      docs/traces.md: every trace event kind and its fields
    python -m k8s_agent.docs vocabulary  docs/traces.md: the words outcomes, guardrails... are named in
    python -m k8s_agent.docs scorecard   docs/migration.md: the SDK migration scorecard
    python -m k8s_agent.docs fixture-schema, fault-schema
                                         docs/mock-cluster.md: the formats of fixtures and fault plans
    python -m k8s_agent.docs blocks      docs/testing.md: the generated blocks of the pages

`tests/test_docs.py` fails when a page no longer shows what these print.

    python -m k8s_agent.docs refresh [--check] [--block ID] [PAGE ...]

runs the commands whose output the pages show between markers and rewrites those blocks
(k8s_agent/doc_blocks/).
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Sequence

from k8s_agent_harness.config import SETTINGS, Config, flag_of

_HEADER_FIELDS = ("run_id", "impl", "step", "ts", "kind")


def settings_table() -> str:
    """One row per run setting: flag, environment variables, default, what it does."""
    defaults = {name: getattr(Config(), name) for name in SETTINGS}
    lines = ["| flag | environment | default | what it sets |", "|---|---|---|---|"]
    for name, setting in SETTINGS.items():
        env = ", ".join(f"`{variable}`" for variable in setting.env) or "-"
        default = defaults[name]
        shown = "-" if default in (None, (), {}) or not setting.show_default else f"`{_value(default)}`"
        repeat = " (repeatable)" if setting.repeatable else ""
        lines.append(f"| `{flag_of(name)}`{repeat} | {env} | {shown} | {setting.help} |")
    return "\n".join(lines)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def trace_table() -> str:
    """One row per event kind: its `kind`, what it records, and its fields with their types."""
    from k8s_agent_harness.traces import events

    lines = ["| kind | recorded when | fields |", "|---|---|---|"]
    for model in events.EVENT_TYPES:
        kind = model.model_fields["kind"].default
        doc = (model.__doc__ or "").strip().splitlines()[0]
        fields = [
            f"`{name}` {_type_name(info.annotation)}"
            for name, info in model.model_fields.items()
            if name not in _HEADER_FIELDS
        ]
        lines.append(f"| `{kind}` | {doc} | {', '.join(fields)} |")
    return "\n".join(lines)


def _type_name(annotation: object) -> str:
    text = str(annotation).replace("typing.", "").replace("k8s_agent_harness.traces.events.", "")
    text = text.replace("k8s_agent_harness.vocabulary.", "").replace("<class '", "").replace("'>", "")
    if typing.get_origin(annotation) is None and isinstance(annotation, type):
        text = annotation.__name__
    escaped = text.replace("|", "\\|")
    return f"({escaped})"


def vocabulary_table() -> str:
    """One row per word list of the trace and `ask --json`: the enum and its values."""
    from k8s_agent_harness import vocabulary

    lines = ["| words for | values |", "|---|---|"]
    for enum in (
        vocabulary.Impl,
        vocabulary.Outcome,
        vocabulary.Rejection,
        vocabulary.Guardrail,
        vocabulary.Pushback,
        vocabulary.StopReason,
        vocabulary.FailureKind,
        vocabulary.RunStatus,
    ):
        doc = (enum.__doc__ or "").strip().splitlines()[0]
        lines.append(f"| {enum.__name__}: {doc} | {', '.join(f'`{member.value}`' for member in enum)} |")
    return "\n".join(lines)


def scorecard_table() -> str:
    """The migration scorecard of the pinned SDK version (poc/expected/)."""
    import json
    from pathlib import Path

    import poc
    from poc.render import scorecard_markdown
    from poc.report import pinned_wires
    from poc.scorecard import scorecard

    pinned = Path(poc.__file__).resolve().parent / "expected" / "0.24.0.json"
    return scorecard_markdown(scorecard(pinned_wires(json.loads(pinned.read_text(encoding="utf-8")))["chat"]))


def fixture_schema() -> str:
    """The JSON Schema every mock cluster fixture is validated against."""
    import json

    from k8s_agent_mock_cluster.fixture import SCHEMA

    return "```json\n" + json.dumps(SCHEMA, indent=2) + "\n```"


def fault_plan_schema() -> str:
    """The JSON Schema every fault plan is validated against."""
    import json

    from k8s_agent_mock_cluster.faults import SCHEMA

    return "```json\n" + json.dumps(SCHEMA, indent=2) + "\n```"


def blocks_table() -> str:
    """One row per generated block of the pages: what it shows, and whether a test checks it."""
    from k8s_agent.doc_blocks import blocks_table as table

    return table()


TABLES = {
    "settings": settings_table,
    "traces": trace_table,
    "vocabulary": vocabulary_table,
    "scorecard": scorecard_table,
    "fixture-schema": fixture_schema,
    "fault-schema": fault_plan_schema,
    "blocks": blocks_table,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Print the named tables, or `refresh` the pages' generated blocks."""
    names = list(argv if argv is not None else sys.argv[1:]) or list(TABLES)
    if names[0] == "refresh":
        from k8s_agent.doc_blocks import BLOCKS
        from k8s_agent.doc_blocks.refresh import main as refresh

        return refresh(names[1:], BLOCKS)
    unknown = [name for name in names if name not in TABLES]
    if unknown:
        print(
            f"error: unknown table {', '.join(unknown)}: choose from {', '.join(TABLES)}, or refresh",
            file=sys.stderr,
        )
        return 2
    print("\n\n".join(TABLES[name]() for name in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
