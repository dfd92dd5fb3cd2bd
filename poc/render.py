"""Plain-text tables: the probe table, the version matrix and the scorecards."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

SHORT_VERDICT = {
    "moves cleanly": "cleanly",
    "moves with a redesign": "redesign",
    "does not move": "NO",
    "not judged": "?",
}


def table(header: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[int] | None = None) -> str:
    """Aligned columns; a cell longer than its column's width limit is cut with '…'."""
    limits = list(widths) if widths else [200] * len(header)
    cut = [[_cut(str(cell), limits[i]) for i, cell in enumerate(row)] for row in rows]
    sizes = [max([len(header[i]), *(len(row[i]) for row in cut)]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(sizes[i]) for i, h in enumerate(header)).rstrip()]
    lines.append("  ".join("-" * size for size in sizes))
    lines += ["  ".join(cell.ljust(sizes[i]) for i, cell in enumerate(row)).rstrip() for row in cut]
    return "\n".join(lines)


def probe_table(report: dict[str, Any]) -> str:
    """One report as `probe | observed | verdict`, then its scorecard."""
    versions = report["versions"]
    title = "  ".join(f"{name} {version}" for name, version in versions.items())
    rows = [(name, result["headline"], result["verdict"]) for name, result in report["probes"].items()]
    card = [(row["id"], row["guardrail"], row["verdict"], row["reason"]) for row in report["scorecard"]]
    return "\n\n".join(
        [
            title,
            table(("probe", "observed", "verdict"), rows, (16, 90, 8)),
            "migration scorecard",
            table(("", "guardrail", "verdict", "because"), card, (4, 30, 22, 400)),
        ]
    )


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
