"""Plain-text tables: the probe table, the version matrix and the scorecards."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import Any

SHORT_VERDICT = {
    "moves cleanly": "cleanly",
    "moves with a redesign": "redesign",
    "does not move": "NO",
    "not judged": "?",
}


def table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    widths: Sequence[int] | None = None,
    *,
    wrap_last: int | None = None,
) -> str:
    """Aligned columns; a cell longer than its column's width limit is cut with '…'. With
    `wrap_last`, the last column is not cut but wrapped at that width, its further lines under it."""
    limits = list(widths) if widths else [200] * len(header)
    if wrap_last is not None:
        limits[-1] = wrap_last
    cut = [
        [
            str(cell) if wrap_last is not None and i == len(row) - 1 else _cut(str(cell), limits[i])
            for i, cell in enumerate(row)
        ]
        for row in rows
    ]
    wrapped = [_wrapped(row[-1], wrap_last) if wrap_last is not None else [row[-1]] for row in cut]
    sizes = [
        max(
            [
                len(header[i]),
                *(
                    len(row[i]) if i < len(header) - 1 else max(map(len, wrapped[n]))
                    for n, row in enumerate(cut)
                ),
            ]
        )
        for i in range(len(header))
    ]
    lines = ["  ".join(h.ljust(sizes[i]) for i, h in enumerate(header)).rstrip()]
    lines.append("  ".join("-" * size for size in sizes))
    margin = " " * (sum(sizes[:-1]) + 2 * (len(sizes) - 1))
    for row, last in zip(cut, wrapped, strict=True):
        lines.append(
            "  ".join([*(cell.ljust(sizes[i]) for i, cell in enumerate(row[:-1])), last[0]]).rstrip()
        )
        lines += [(margin + more).rstrip() for more in last[1:]]
    return "\n".join(lines)


def _wrapped(text: str, width: int) -> list[str]:
    """A cell's text as lines of at most `width` characters (a longer word stays whole)."""
    text = text.replace("\n", "\\n")
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]


EXPLAINED_WIDTH = 100
"""Where the lines that explain a row not "ok" wrap."""


def not_ok_lines(sections: dict[str, Any]) -> str:
    """One explanation per probe whose verdict is not "ok" on a wire: what the port would rely on
    (the probe's "ok when ..."), and what this SDK does instead, in words; '' when every row is ok."""
    wires = list(sections)
    found: dict[tuple[str, str, str, str], list[str]] = {}  # (probe, verdict, expects, headline): wires
    for wire in wires:
        for name, result in sections[wire]["probes"].items():
            if result["verdict"] != "ok":
                key = (name, result["verdict"], result.get("expects") or "", result["headline"])
                found.setdefault(key, []).append(wire)
    if not found:
        return ""
    lines = textwrap.wrap(
        'why a row is not "ok": what the SDK port would rely on as it is, and what this SDK does instead '
        "(the scorecard below says how the port copes)",
        EXPLAINED_WIDTH,
    )
    for (name, verdict, expects, headline), on in found.items():
        where = "both wires" if len(on) == len(wires) > 1 else f"the {' and '.join(on)} wire"
        what = {"differs": "differs", "absent": "a feature is absent", "error": "the probe failed"}.get(
            verdict, verdict
        )
        wanted = f"ok when {expects}; " if expects else ""
        text = f"{name}: {what} on {where}: {wanted}here: {headline}"
        lines += textwrap.wrap(
            text, EXPLAINED_WIDTH, initial_indent="  ", subsequent_indent="      ", break_long_words=False
        )
    return "\n".join(lines)


NOT_BEHAVIOUR = frozenset({"sdk_said"})
"""Observation keys that are not behaviour (the SDK's log lines): never a difference between wires."""

FIELD_NAMES = frozenset({("output_type", "format_field_on_wire")})
"""Observations that name a wire's fields: they differ by design, shown apart from behaviour."""

WIRE_TITLES = {"chat": "Chat Completions model", "responses": "Responses model"}


def wire_sections(report: dict[str, Any]) -> dict[str, Any]:
    """{wire: {"probes", "scorecard"}} of a report; a single-wire report is its "chat" section."""
    if "wires" in report:
        sections: dict[str, Any] = report["wires"]
        return sections
    return {"chat": {"probes": report.get("probes", {}), "scorecard": report.get("scorecard", [])}}


def wire_differences(report: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(probe, key, chat value, responses value) for every observation whose value differs
    between the two wires (behaviour only: log lines and field names left out)."""
    sections = wire_sections(report)
    if not {"chat", "responses"} <= set(sections):
        return []
    chat, responses = sections["chat"]["probes"], sections["responses"]["probes"]
    found = []
    for name in [*chat, *(n for n in responses if n not in chat)]:
        left = (chat.get(name) or {}).get("observations", {})
        right = (responses.get(name) or {}).get("observations", {})
        for key in [*left, *(k for k in right if k not in left)]:
            if key in NOT_BEHAVIOUR or (name, key) in FIELD_NAMES:
                continue
            if left.get(key, "-") != right.get(key, "-"):
                found.append((name, key, _text(left.get(key, "-")), _text(right.get(key, "-"))))
    return found


def probe_table(report: dict[str, Any]) -> str:
    """One report as `probe | observed | verdict` per wire, the behaviour that differs between the
    wires, then the scorecard per wire."""
    versions = report["versions"]
    title = "  ".join(f"{name} {version}" for name, version in versions.items())
    sections = wire_sections(report)
    if len(sections) == 1:
        wire, section = next(iter(sections.items()))
        rows = [(name, result["headline"], result["verdict"]) for name, result in section["probes"].items()]
        card = [(row["id"], row["guardrail"], row["verdict"], row["reason"]) for row in section["scorecard"]]
        return "\n\n".join(
            part
            for part in [
                f"{title}  wire {wire}",
                table(("probe", "observed", "verdict"), rows, (16, 90, 8)),
                not_ok_lines(sections),
                "migration scorecard",
                table(("", "guardrail", "verdict", "because"), card, (4, 30, 22, 0), wrap_last=REASON_WIDTH),
            ]
            if part
        )
    differences = wire_differences(report)
    return "\n\n".join(
        part
        for part in [
            title,
            _two_wire_probes(sections, {name for name, *_ in differences}),
            not_ok_lines(sections),
            "behaviour that differs between the wires (chat = OpenAIChatCompletionsModel,"
            " responses = OpenAIResponsesModel)",
            _difference_lines(differences, sections),
            "migration scorecard (chat | responses; << where the wires differ)",
            _two_wire_scorecard(sections),
        ]
        if part
    )


def _two_wire_probes(sections: dict[str, Any], differing: set[str]) -> str:
    chat, responses = sections["chat"]["probes"], sections["responses"]["probes"]
    rows = []
    for name in [*chat, *(n for n in responses if n not in chat)]:
        left, right = chat.get(name), responses.get(name)
        rows.append(
            (
                name,
                left["headline"] if left else "-",
                left["verdict"] if left else "-",
                right["headline"] if right else "-",
                right["verdict"] if right else "-",
                "DIFFERS" if name in differing else "same",
            )
        )
    header = ("probe", "chat: observed", "chat", "responses: observed", "responses", "wires")
    return table(header, rows, (16, 60, 8, 60, 9, 7))


def _difference_lines(differences: list[tuple[str, str, str, str]], sections: dict[str, Any]) -> str:
    lines = []
    for name, key, left, right in differences:
        lines += [f"{name}.{key}", f"    chat       {_cut(left, 150)}", f"    responses  {_cut(right, 150)}"]
    for name, key in sorted(FIELD_NAMES):
        left = (sections["chat"]["probes"].get(name) or {}).get("observations", {}).get(key)
        right = (sections["responses"]["probes"].get(name) or {}).get("observations", {}).get(key)
        if left is not None and right is not None and left != right:
            lines.append(f"(by design: {name}.{key} chat {_text(left)}, responses {_text(right)})")
    return "\n".join(lines) or "(every probed behaviour is the same on both wires)"


def _two_wire_scorecard(sections: dict[str, Any]) -> str:
    chat, responses = sections["chat"]["scorecard"], sections["responses"]["scorecard"]
    rows = []
    for left, right in zip(chat, responses, strict=False):
        differs = left["verdict"] != right["verdict"]
        reason = left["reason"] if not differs else f"chat: {left['reason']} / responses: {right['reason']}"
        rows.append(
            (
                left["id"],
                left["guardrail"],
                SHORT_VERDICT.get(left["verdict"], "?"),
                SHORT_VERDICT.get(right["verdict"], "?"),
                "<<" if differs else "",
                reason,
            )
        )
    return table(
        ("", "guardrail", "chat", "responses", "", "because"),
        rows,
        (4, 30, 9, 9, 2, 0),
        wrap_last=REASON_WIDTH,
    )


REASON_WIDTH = 72
"""Where a scorecard's "because" wraps (a reason runs to several hundred characters)."""


def wire_view(columns: Sequence[dict[str, Any]], wire: str) -> list[dict[str, Any]]:
    """Version-matrix columns narrowed to one wire (a column whose report lacks it did not run)."""
    narrowed = []
    for column in columns:
        report = column.get("report")
        section = wire_sections(report).get(wire) if report else None
        narrowed.append({**column, "report": section})
    return narrowed


def wire_matrix(columns: Sequence[dict[str, Any]]) -> str:
    """Per version, the behaviour that differs between the wires (probe.key: chat | responses)."""
    lines = []
    for column in columns:
        report = column.get("report")
        if not report:
            continue
        differences = wire_differences(report)
        if "responses" not in wire_sections(report):
            lines.append(f"{column['label']}: responses wire not probed")
            continue
        if not differences:
            lines.append(f"{column['label']}: the same on both wires")
            continue
        lines.append(f"{column['label']}:")
        for name, key, left, right in differences:
            lines.append(f"    {name}.{key}: chat {_cut(left, 70)} | responses {_cut(right, 70)}")
    return "\n".join(lines) or "(no version ran)"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def version_matrix(columns: Sequence[dict[str, Any]]) -> str:
    """Rows: probes; columns: SDK versions; cells: verdicts. Then the observations that differ."""
    header = ["probe", *(column["label"] for column in columns)]
    names = _probe_names(columns)
    rows = [["openai (chosen)", *(column.get("openai") or "-" for column in columns)]]
    rows += [["status", *(column["status"] for column in columns)]]
    for name in names:
        rows.append([name, *(_verdict(column, name) for column in columns)])
    return table(header, rows, [24] + [14] * len(columns))


def differing_observations(columns: Sequence[dict[str, Any]], width: int = 150) -> str:
    """Every observation (probe.key) whose value is not the same in all versions that ran,
    with the versions that share each value."""
    ran = [column for column in columns if column.get("report")]
    keys: list[tuple[str, str]] = []
    for column in ran:
        for name, result in column["report"]["probes"].items():
            keys += [(name, key) for key in result["observations"] if (name, key) not in keys]
    lines = []
    for name, key in keys:
        if key == "sdk_said":
            continue
        by_value: dict[str, list[int]] = {}
        for index, column in enumerate(ran):
            by_value.setdefault(_observation(column, name, key), []).append(index)
        if len(by_value) > 1:
            lines.append(f"{name}.{key}")
            for value, indexes in by_value.items():
                lines.append(
                    f"    {_span([ran[i]['label'] for i in indexes], indexes):<22} {_cut(value, width)}"
                )
    return "\n".join(lines) or "(every observation is the same in every version)"


def _span(labels: list[str], indexes: list[int]) -> str:
    """ "0.20.0..0.24.0" for three or more adjacent columns, else the versions one by one."""
    adjacent = indexes == list(range(indexes[0], indexes[0] + len(indexes)))
    return f"{labels[0]}..{labels[-1]}" if adjacent and len(labels) > 2 else " ".join(labels)


def scorecard_matrix(columns: Sequence[dict[str, Any]]) -> str:
    """Rows: guardrails; columns: versions; then each reason, once per change across versions."""
    ran = [column for column in columns if column.get("report")]
    if not ran:
        return "(no version ran)"
    first = ran[-1]["report"]["scorecard"]
    rows = []
    for index, row in enumerate(first):
        cells = [SHORT_VERDICT.get(column["report"]["scorecard"][index]["verdict"], "?") for column in ran]
        rows.append([f"{row['id']} {row['guardrail']}", *cells])
    lines = [table(["guardrail", *(column["label"] for column in ran)], rows, [34] + [9] * len(ran)), ""]
    lines.append("why (each distinct reason once, with the versions it holds for):")
    for index, row in enumerate(first):
        by_reason: dict[tuple[str, str], list[int]] = {}
        for position, column in enumerate(ran):
            other = column["report"]["scorecard"][index]
            by_reason.setdefault((other["verdict"], other["reason"]), []).append(position)
        for (verdict, reason), positions in reversed(by_reason.items()):
            versions = _span([ran[i]["label"] for i in positions], positions)
            lines.append(f"  {row['id']} [{versions}] {verdict}: {reason}")
    return "\n".join(lines)


def _probe_names(columns: Sequence[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for column in columns:
        for name in (column.get("report") or {}).get("probes", {}):
            if name not in names:
                names.append(name)
    return names


def _verdict(column: dict[str, Any], name: str) -> str:
    report = column.get("report")
    if not report:
        return "-"
    result = report["probes"].get(name)
    return result["verdict"] if result else "-"


def _observation(column: dict[str, Any], name: str, key: str) -> str:
    result = column["report"]["probes"].get(name)
    if result is None or key not in result["observations"]:
        return "-"
    value = result["observations"][key]
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _cut(text: str, limit: int) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def scorecard_markdown(rows: Sequence[Any]) -> str:
    """The migration scorecard as docs/migration.md's markdown table (rows of poc.scorecard.Row)."""
    lines = [
        "| # | guardrail | verdict | how the port does it, and the probe observations it rests on | tested by |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        tests = (
            "`tests/contract` " + " ".join(f"`test_{part.lower()}_*`" for part in row.id.split("/"))
            if row.id.startswith("C")
            else "`tests/reliability/test_faults.py`"
        )
        reason = row.reason.replace("|", "\\|")
        lines.append(f"| {row.id} | {row.guardrail} | {row.verdict} | {reason} | {tests} |")
    return "\n".join(lines)
