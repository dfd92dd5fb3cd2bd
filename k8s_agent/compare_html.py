"""The comparison as one self-contained HTML page: inline CSS and JS, no network, no external fonts.

Per row (scenario, or round of a repeated question) the two runs are drawn as side-by-side
timelines, one grid row per model turn, so turn N of one side sits next to turn N of the other.
A turn whose facts differ between the two (tool outcomes, results, guardrails, what the model said,
the conversation it was sent) is marked; on two wires a request is compared as the conversation it
amounts to, never by its shape on the wire. The page is rendered here, in full; the script only
adds a filter, a "differences only" switch and expand/collapse.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from html import escape

from k8s_agent import charts
from k8s_agent.compare_report import (
    BEHAVIOUR_COLUMNS,
    CHAT,
    COLUMNS,
    Comparison,
    Row,
    RunRecord,
    Side,
    behaviour_differences,
    cell_order,
    cells,
    conversation_facts,
    describe_sides,
    environment,
    noun,
    repeat_summary,
)
from k8s_agent.timeline import Timeline, Turn, clip, describe_response, timeline
from k8s_agent_harness.printout import plural
from k8s_agent_harness.traces import events
from k8s_agent_harness.vocabulary import Guardrail, Outcome

MARKS = {Outcome.EXECUTED: "✓", Outcome.CACHED: "↺", Outcome.FAILED: "✗"}

CSS = """
:root { color-scheme: light dark; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --guard: #8250df;
        --line: #d0d7de; --muted: #57606a; --bg: #ffffff; --fg: #1f2328; --panel: #f6f8fa; --diff: #fff8c5;
        --pre: #ffffff; --turn: #ddf4ff; --cached: #fff1e5; --failed: #ffebe9; --guarded: #fbefff; }
@media (prefers-color-scheme: dark) {
  :root { --ok: #3fb950; --bad: #f85149; --warn: #d29922; --guard: #bc8cff; --line: #30363d;
          --muted: #9198a1; --bg: #0d1117; --fg: #e6edf3; --panel: #161b22; --diff: #3b2e05;
          --pre: #0d1117; --turn: #0c2d48; --cached: #3d2410; --failed: #42171b; --guarded: #2e1a47; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 1.5rem; max-width: 1500px; background: var(--bg); color: var(--fg);
       font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.15rem; margin: 0; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
pre { white-space: pre-wrap; word-break: break-word; margin: .3rem 0 0; padding: .4rem; background: var(--pre);
      border: 1px solid var(--line); border-radius: 4px; max-height: 24rem; overflow: auto; }
.muted { color: var(--muted); }
.table-wrap { overflow-x: auto; }
table.summary { border-collapse: collapse; width: 100%; margin: 1rem 0; font-size: 12px; }
table.summary caption { caption-side: top; text-align: left; color: var(--muted); padding-bottom: .25rem; }
table.summary td { white-space: nowrap; }
table.summary th, table.summary td { border: 1px solid var(--line); padding: .2rem .3rem; text-align: center; }
table.summary th { background: var(--panel); } table.summary td:first-child { text-align: left; }
table.summary td.differs { background: var(--diff); font-weight: 600; }
table.summary td.expected { color: var(--muted); }
table.summary td.expected.varies { text-decoration: underline dotted; cursor: help; }
table.summary th.cost { color: var(--muted); font-weight: normal; }
.verdict-line { font-size: 1.05rem; padding: .5rem .75rem; border-radius: 6px; margin: .75rem 0;
                border: 1px solid var(--ok); color: var(--ok); }
.verdict-line.broken { border-color: var(--bad); color: var(--bad); }
dl.legend { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem; font-size: 12px;
            margin: .25rem 0 1rem; }
dl.legend dt { font-weight: 600; } dl.legend dd { margin: 0; color: var(--muted); }
.note { border-left: 3px solid var(--line); padding: .2rem .6rem; margin: .4rem 0; font-size: 13px; }
.note.why { border-left-color: var(--guard); }
.chart { min-width: 0; }
.chart svg { display: block; }
.chart-key { font-size: 12px; color: var(--muted); margin: .25rem 0; }
.swatch { display: inline-block; width: .8em; height: .8em; border-radius: 2px; margin: 0 .25em 0 .6em;
          vertical-align: -1px; }
.charts-missing { color: var(--muted); font-style: italic; }
.bad { color: var(--bad); font-weight: 600; } .good { color: var(--ok); }
.controls { position: sticky; top: 0; z-index: 2; background: var(--bg); padding: .5rem 0;
            border-bottom: 1px solid var(--line); display: flex; gap: 1rem; align-items: center; }
.controls input[type=search] { padding: .25rem .5rem; min-width: 18rem; }
section.scenario { border: 1px solid var(--line); border-radius: 8px; margin: 1.25rem 0; padding: 1rem; }
section.scenario.hidden { display: none; }
.verdicts { display: flex; gap: .5rem; flex-wrap: wrap; margin: .5rem 0; }
.badge { border-radius: 999px; padding: 0 .55rem; border: 1px solid var(--line); font-size: 12px; }
.badge.ok { border-color: var(--ok); color: var(--ok); } .badge.no { border-color: var(--bad); color: var(--bad); }
.pair { display: grid; grid-template-columns: 1fr 1fr; column-gap: 1rem; row-gap: .5rem; margin-top: .75rem; }
.timeline { display: contents; }
.run-head { font-weight: 600; padding: .35rem .5rem; background: var(--panel); border-radius: 6px; }
.step { border: 1px solid var(--line); border-left: 4px solid var(--line); border-radius: 6px; padding: .4rem .5rem;
        min-width: 0; }
.step.differs { border-left-color: var(--warn); background: var(--diff); }
.step.absent { border-style: dashed; color: var(--muted); }
.step-label { font-size: 12px; color: var(--muted); }
.entry { margin: .25rem 0; padding: .2rem .4rem; border-radius: 4px; background: var(--panel); min-width: 0; }
.entry.model-turn { background: var(--turn); }
.entry.tool-call.outcome-executed .mark { color: var(--ok); }
.entry.tool-call.outcome-cached { background: var(--cached); }
.entry.tool-call.rejected, .entry.tool-call.outcome-failed { background: var(--failed); }
.entry.guardrail { background: var(--guarded); color: var(--guard); }
.entry.model-error { background: var(--failed); }
.run-end { padding: .4rem .5rem; border-radius: 6px; background: var(--panel); min-width: 0; }
.only-diff .step:not(.differs) { display: none; }
details > summary { cursor: pointer; color: var(--muted); }
footer { margin-top: 2rem; color: var(--muted); font-size: 12px; }
"""

SCRIPT = """
(function () {
  var scenarios = Array.prototype.slice.call(document.querySelectorAll('section.scenario'));
  document.getElementById('filter').addEventListener('input', function (event) {
    var needle = event.target.value.trim().toLowerCase();
    scenarios.forEach(function (section) {
      section.classList.toggle('hidden', needle !== '' && section.dataset.name.indexOf(needle) < 0);
    });
  });
  document.getElementById('only-diff').addEventListener('change', function (event) {
    document.body.classList.toggle('only-diff', event.target.checked);
  });
  function openAll(open) {
    document.querySelectorAll('section.scenario details').forEach(function (d) { d.open = open; });
  }
  document.getElementById('expand').addEventListener('click', function () { openAll(true); });
  document.getElementById('collapse').addEventListener('click', function () { openAll(false); });
  document.documentElement.dataset.ready = 'true';
})();
"""


def html_report(comparison: Comparison) -> str:
    """The whole page."""
    pair = comparison.sides
    title = "k8s-agent compare: " + " vs ".join(side.title for side in pair)
    env = environment(comparison.jobs)
    versions = ", ".join(f"{k} {v}" for k, v in env.items() if v is not None)
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head>",
        "<body>",
        f"<header><h1>{escape(title)}</h1>",
        f'<p class="muted">{escape(describe_sides(pair))} · {plural(len(comparison.rows), "row")} x {len(pair)} '
        f"{noun(pair)}, the runs took {comparison.wall_seconds:.1f} s · generated {escape(time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime()))}"
        f" · {escape(versions)}</p></header>",
    ]
    drawing = charts.available()
    parts.append(_verdict_line(comparison))
    if not drawing:
        parts.append(f'<p class="charts-missing">{escape(charts.NOTE, quote=False)}</p>')
    if comparison.mode == "repeat":
        parts.append(_repeat_table(comparison))
    parts.append(_summary_table(comparison))
    parts.append(_legend(drawing, pair))
    parts.append(
        '<div class="controls"><input id="filter" type="search" placeholder="filter scenarios by name">'
        '<label><input id="only-diff" type="checkbox"> differing turns only</label>'
        '<button id="expand" type="button">expand all</button>'
        '<button id="collapse" type="button">collapse all</button></div>'
    )
    parts += [_scenario(row, drawing, pair) for row in comparison.rows]
    wires = (
        " On two wires a request's messages are counted as the conversation it amounts to (a Responses "
        "request's input items and instructions read as Chat messages)."
        if len({side.api for side in pair}) > 1
        else ""
    )
    parts.append(
        "<footer>Each turn is one model request and what followed it: the model's answer, every tool "
        "call with its outcome (✓ executed, ↺ duplicate answered from cache, ✗ rejected or failed) and "
        f"every guardrail. Tool calls are listed in the order they ran. Turns whose facts differ between the "
        f"{noun(pair)} are marked yellow; times, bytes and tokens are costs and never mark a turn.{wires}</footer>"
    )
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


BEHAVIOUR = frozenset(BEHAVIOUR_COLUMNS)
"""The columns a yellow cell may mark; the others (tokens, bytes, times) are shown quietly."""

EXPECTED = {
    "prompt tok": "against the scripted model an estimate from the bytes sent, so it differs as they do",
    "completion tok": "from the response's usage; the same answers give the same count",
    "bytes sent": 'the SDK sends about 1-2 % more bytes: it adds "strict": false to each tool and '
    '"content": null to tool-calling assistant messages, and omits "tool_choice": "auto"',
    "wall s": "timing noise: dominated by starting the mock MCP server, the same for both",
    "loop ms": "timing noise, plus the SDK Runner's own per-turn work (a few ms a turn)",
}
"""Why each cost differs between the two implementations on one wire."""
WIRE_BYTES = (
    "each wire shapes the same conversation its own way (Chat: messages, the system prompt first, one "
    "assistant message per round of calls; Responses: instructions, input items, one function_call "
    "item per call, flat tools), so the bytes differ"
)


def expected(pair: Sequence[Side]) -> dict[str, str]:
    """Why each cost may differ between these two sides."""
    if len({side.api for side in pair}) == 1:
        return EXPECTED
    notes = dict(EXPECTED)
    one_impl = len({side.impl for side in pair}) == 1
    notes["bytes sent"] = WIRE_BYTES + ("" if one_impl else "; the SDK's own additions come on top")
    if one_impl:
        notes["wall s"] = "timing noise: dominated by starting the mock MCP server, the same for both"
        notes["loop ms"] = "timing noise, and each wire's client code"
    return notes


LEGEND = {
    "hw / sdk": "each cell holds the hand-written loop's value, then the SDK port's",
    "chat, responses": "the wire a side speaks: Chat Completions or the Responses API",
    "report": "the run ended with a non-empty answer (✓ yes, ✗ no)",
    "grounded": "the answer names nothing no tool returned and every quote and name of a structured report "
    "verified; ✗ says the harness's grounding check caught the model inventing",
    "contract": "every contract invariant held: what the harness did was right, whatever the model said",
    "requests": "model requests (turns)",
    "executed": "tool calls that reached the MCP server",
    "rejected u·i·d": "calls the gateway answered itself: u unknown or refused tool · i invalid JSON or "
    "arguments failing the schema · d duplicate (answered from cache)",
    "pushbacks": "times a guardrail sent the model back to work",
    "forced summary": "why the last turn was forced to summarise (- none)",
    "prompt tok / completion tok": "tokens from each response's usage (the scripted model estimates them "
    "from bytes)",
    "bytes sent": "request bodies as they went on the wire",
    "wall s": "the whole run in seconds, MCP server start-up included",
    "loop ms": "milliseconds from the server's tool list to the answer",
    "same answer": "the two final answers are byte-identical",
    "yellow": "a behaviour that differs between the implementations: worth a look",
    "grey, dotted": "a cost that differs as expected (hover for why)",
}


def legend(pair: Sequence[Side]) -> dict[str, str]:
    """The legend for these two sides: on one wire as it always was; on two, each side with its wire."""
    if len({side.api for side in pair}) == 1:
        return {k: v for k, v in LEGEND.items() if k != "chat, responses"}
    order = "each cell holds the value of " + ", then of ".join(side.label for side in pair)
    return {
        cell_order(pair): order,
        **{
            k: v.replace("between the implementations", "between the sides")
            for k, v in LEGEND.items()
            if k != "hw / sdk"
        },
    }


def _verdict_line(comparison: Comparison) -> str:
    runs = [run for row in comparison.rows for run in row.runs.values()]
    kept = sum(1 for run in runs if run.metrics["invariants_held"] and run.metrics["status"] == "ok")
    same = sum(1 for row in comparison.rows if row.answers_identical)
    behaviour = sum(1 for row in comparison.rows if behaviour_differences(row, comparison.sides))
    rows = len(comparison.rows)
    text = (
        f"{kept}/{len(runs)} runs kept the contract · {same}/{rows} rows gave the same answer on both · "
        f"{behaviour or 'no'} {'row differs' if behaviour == 1 else 'rows differ'} in behaviour"
    )
    broken = kept < len(runs) or same < rows or behaviour
    return f'<p class="verdict-line{" broken" if broken else ""}" id="verdict">{escape(text)}</p>'


def _summary_table(comparison: Comparison) -> str:
    pair = comparison.sides
    why = expected(pair)
    head = "".join(
        f"<th>{escape(c)}</th>"
        if c in BEHAVIOUR
        else f'<th class="cost" title="{escape(why[c])}">{escape(c)}</th>'
        for c in COLUMNS
    )
    lines = [
        f'<div class="table-wrap"><table class="summary"><caption>each cell: {escape(cell_order(pair))}; '
        f"a yellow cell is a behaviour that differs between the {noun(pair)}; costs (grey) differ "
        "as expected, see the legend</caption><thead>",
        f"<tr><th>scenario</th>{head}<th>same answer</th></tr></thead><tbody>",
    ]
    for row in comparison.rows:
        values = [cells(row.runs[side.key].metrics) for side in pair]
        tds = []
        for name, column_values in zip(COLUMNS, zip(*values, strict=True), strict=True):
            varies = len(set(column_values)) > 1
            shown = " / ".join(_verdict(v) for v in column_values)
            if name in BEHAVIOUR:
                tds.append(f'<td class="differs">{shown}</td>' if varies else f"<td>{shown}</td>")
            elif varies:
                tds.append(f'<td class="expected varies" title="{escape(why[name])}">{shown}</td>')
            else:
                tds.append(f'<td class="expected">{shown}</td>')
        same = {True: '<span class="good">yes</span>', False: '<span class="bad">no</span>', None: "-"}[
            row.answers_identical
        ]
        differs = ' class="differs"' if row.answers_identical is False else ""
        lines.append(
            f'<tr><td><a href="#{_anchor(row.name)}">{escape(row.name)}</a></td>{"".join(tds)}'
            f"<td{differs}>{same}</td></tr>"
        )
    lines.append("</tbody></table></div>")
    return "\n".join(lines)


def _legend(drawing: bool, pair: Sequence[Side]) -> str:
    items = list(legend(pair).items())
    items += [
        (f"{k} differs", v) for k, v in expected(pair).items() if k in ("bytes sent", "wall s", "loop ms")
    ]
    items.append(
        ("✓ ↺ ✗ in a timeline", "tool call executed · duplicate answered from cache · rejected or failed")
    )
    if drawing:
        items.append(
            ("charts", "each run on one time axis: model turns and tool calls, tokens per turn below")
        )
    body = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items)
    return f'<details class="legend-box" open><summary>legend</summary><dl class="legend" id="legend">{body}</dl></details>'


def _verdict(value: str) -> str:
    if value == "✓":
        return '<span class="good">✓</span>'
    if value == "✗":
        return '<span class="bad">✗</span>'
    return escape(value)


def _repeat_table(comparison: Comparison) -> str:
    pair = comparison.sides
    summary = repeat_summary(comparison)
    header = "".join(f"<th>{escape(side.title)} median [min-max]</th>" for side in pair)
    per = "implementation" if noun(pair) == "implementations" else "side"
    lines = [
        f"<p>Question: <q>{escape(comparison.question or '')}</q>, {plural(comparison.repeat or 0, 'run')} per {per}.</p>",
        f'<table class="summary repeat"><thead><tr><th>metric</th>{header}</tr></thead><tbody>',
    ]
    for name, stats in ((n, [summary[side.key].get(n) for side in pair]) for n in summary[pair[0].key]):
        if name == "runs":
            continue
        shown = [
            f"{s['median']:g} [{s['min']:g}-{s['max']:g}]" if isinstance(s, dict) else escape(str(s))
            for s in stats
        ]
        lines.append(
            f"<tr><td>{escape(name.replace('_', ' '))}</td>"
            + "".join(f"<td>{v}</td>" for v in shown)
            + "</tr>"
        )
    lines.append("</tbody></table>")
    return "\n".join(lines)


def _scenario(row: Row, drawing: bool, pair: Sequence[Side]) -> str:
    runs = [row.runs[side.key] for side in pair]
    timelines = [timeline(run.trace) for run in runs]
    turns = max((len(t.turns) for t in timelines), default=0)
    # Compared as the conversation each request amounts to, whichever wire carried it.
    facts = [conversation_facts(run) for run in runs]
    differs = [len({json.dumps(f[n]) if n < len(f) else "" for f in facts}) > 1 for n in range(turns)]
    pictures = _pictures(runs, timelines, pair) if drawing else []
    first = 3 if pictures else 2
    columns = [
        _timeline(run, side, line, column, turns, differs, pictures[column - 1] if pictures else None)
        for column, (run, side, line) in enumerate(zip(runs, pair, timelines, strict=True), 1)
    ]
    same = row.answers_identical
    badges = [
        _badge(f"{side.title}: {label}", bool(run.metrics[key]))
        for side, run in zip(pair, runs, strict=True)
        for label, key in (("report", "report"), ("grounded", "grounded"), ("contract", "invariants_held"))
    ]
    badges.append(_badge("same answer" if same else "answers differ", bool(same)))
    overrides = ", ".join(f"{k.replace('_', '-')} {v}" for k, v in row.overrides.items())
    return "\n".join(
        [
            f'<section class="scenario" id="{_anchor(row.name)}" data-name="{escape(row.name.lower())}">',
            f"<h2>{escape(row.name)}</h2>",
            f'<p class="muted">{escape(row.summary)} · model {escape(row.model)}'
            + (f" · {escape(overrides)}" if overrides else "")
            + (f" · cluster {escape(str(row.cluster))}" if row.cluster else "")
            + f"</p><p>Question: <q>{escape(row.question)}</q></p>",
            f'<div class="verdicts">{"".join(badges)}</div>',
            *_notes(runs, timelines, pair),
            f'<div class="chart-key">{charts.timeline_legend()}</div>' if pictures else "",
            f'<div class="pair" style="grid-template-rows: repeat({turns + first}, auto)">',
            *columns,
            "</div></section>",
        ]
    )


def _notes(runs: list[RunRecord], timelines: list[Timeline], pair: Sequence[Side]) -> list[str]:
    """Why a scenario's marks look as they do, where the table alone would puzzle a reader."""
    notes = []
    caught = [
        (side, run)
        for side, run in zip(pair, runs, strict=True)
        if not run.metrics["grounded"] and run.metrics["invariants_held"]
    ]
    if caught:
        names = sorted({name for _, run in caught for name in run.metrics["ungrounded_names"]})
        shown = f" ({', '.join(names)})" if names else ""
        who = " and ".join(side.short for side, _ in caught)
        notes.append(
            f'<p class="note why" data-note="grounding">Grounded ✗ and contract ✓ ({escape(who)}) are both right: '
            f"the model named what no tool returned{escape(shown)}, the harness's grounding check caught it "
            "(the red marks), pushed back once and kept the second answer marked unverified. The contract "
            "judges what the harness did, not what the model said.</p>"
        )
    if _order_differs(timelines):
        notes.append(
            '<p class="note order" data-note="call-order">The tool calls of a round are listed in another order '
            "for the SDK: it runs a call to an unknown tool after the others (its tool_not_found handling comes "
            "after the function tools). Same calls, same outcomes, and the same requests: the port puts the "
            "answers back in the order the model proposed them, so no turn is marked.</p>"
        )
    return notes


def _order_differs(timelines: list[Timeline]) -> bool:
    orders = [[[call.request_id for call in turn.tool_calls] for turn in line.turns] for line in timelines]
    return len({json.dumps(order) for order in orders}) > 1


def _pictures(runs: list[RunRecord], timelines: list[Timeline], pair: Sequence[Side]) -> list[str]:
    """One timeline chart per run, on a shared time axis and token scale."""
    drawn = [_spans(run, line) for run, line in zip(runs, timelines, strict=True)]
    until = max((max((s.end for s in spans), default=0.0) for spans, _ in drawn), default=0.0)
    tokens = max(
        (s.prompt_tokens + s.completion_tokens for spans, _ in drawn for s in spans if s.kind == "model"),
        default=0,
    )
    return [
        charts.timeline_chart(
            run.impl, spans, marks, until=max(until, 1e-3), tokens_max=tokens, title=side.title
        )
        for run, side, (spans, marks) in zip(runs, pair, drawn, strict=True)
    ]


def _spans(run: RunRecord, line: Timeline) -> tuple[list[charts.Span], list[charts.Mark]]:
    origin = line.turns[0].request.ts if line.turns else line.start.ts
    spans: list[charts.Span] = []
    marks: list[charts.Mark] = []
    for turn in line.turns:
        end = turn.response.ts if turn.response else turn.request.ts
        usage = turn.response.usage if turn.response else events.Usage()
        spans.append(
            charts.Span(
                turn.request.ts - origin,
                end - origin,
                "model",
                prompt_tokens=usage.prompt_tokens or 0,
                completion_tokens=usage.completion_tokens or 0,
            )
        )
        for call in turn.tool_calls:
            outcome = call.outcome
            shown = (Outcome.EXECUTED, Outcome.CACHED, Outcome.FAILED, Outcome.SKIPPED)
            kind = outcome.value if outcome in shown else "rejected"
            spans.append(
                charts.Span(call.ts - call.duration_ms / 1000 - origin, call.ts - origin, kind, call.tool)
            )
        marks += [charts.Mark(event.ts - origin, event.guardrail.value) for event in turn.guardrails]
    return spans, marks


def _badge(text: str, ok: bool) -> str:
    return f'<span class="badge {"ok" if ok else "no"}">{escape(text)}</span>'


def _timeline(
    run: RunRecord,
    side: Side,
    line: Timeline,
    column: int,
    turns: int,
    differs: list[bool],
    picture: str | None,
) -> str:
    metrics = run.metrics
    wall = metrics["wall_seconds"]
    head = (
        f"{escape(side.title)} · {plural(metrics['model_requests'], 'request')} · "
        f"{plural(metrics['tool_calls_executed'], 'tool call')} executed"
        f" · {metrics['bytes_sent']} bytes · {'-' if wall is None else f'{float(wall):.2f} s'}"
    )
    parts = [
        f'<div class="timeline" data-impl="{escape(side.key)}" data-api="{escape(side.api)}">',
        f'<div class="run-head" style="grid-column:{column};grid-row:1">{head}</div>',
    ]
    first = 2
    if picture is not None:
        parts.append(
            f'<div class="chart" data-impl="{escape(side.key)}" style="grid-column:{column};grid-row:2">'
            f"{picture}</div>"
        )
        first = 3
    for number in range(turns):
        where = f'style="grid-column:{column};grid-row:{number + first}"'
        if number < len(line.turns):
            marked = " differs" if differs[number] else ""
            parts.append(
                f'<div class="step{marked}" data-step="{number + 1}" {where}>{_turn(line.turns[number])}</div>'
            )
        else:
            parts.append(f'<div class="step absent" {where}>no turn {number + 1}</div>')
    parts.append(
        f'<div class="run-end" style="grid-column:{column};grid-row:{turns + first}">{_end(run)}</div>'
    )
    parts.append("</div>")
    return "\n".join(parts)


def _turn(turn: Turn) -> str:
    request = turn.request
    offer = {"none": "no tools (summary)", "offered": "tools offered"}.get(turn.offer, f"tools {turn.offer}")
    pieces = plural(request.message_count, "message" if request.api == CHAT else "input item")
    parts = [
        f'<div class="step-label">turn {turn.step} · {pieces} · {escape(offer)} · {request.bytes} bytes</div>'
    ]
    for error in turn.http_errors:
        parts.append(
            f'<div class="entry model-error">HTTP {error.status} on attempt '
            f"{error.attempt}: {escape(clip(error.body, 160))}</div>"
        )
    parts.append(_model_turn(turn.response))
    parts += [_tool_call(call) for call in turn.tool_calls]
    parts += [_guardrail(event) for event in turn.guardrails]
    return "".join(parts)


def _model_turn(response: events.ModelResponse | None) -> str:
    if response is None:
        return '<div class="entry model-turn">model: no response</div>'
    usage = response.usage
    cost = f"{usage.prompt_tokens or 0}+{usage.completion_tokens or 0} tokens, {response.latency_ms:.0f} ms"
    said = escape(describe_response(response))
    text = response.text
    body = f"<details><summary>text</summary><pre>{escape(str(text))}</pre></details>" if text else ""
    return f'<div class="entry model-turn">model: {said} <span class="muted">({cost})</span>{body}</div>'


def _tool_call(call: events.ToolCall) -> str:
    outcome = call.outcome
    rejected = " rejected" if not outcome.reached_server and outcome != Outcome.CACHED else ""
    mark = MARKS.get(outcome, "✗")
    arguments = call.raw_arguments if call.raw_arguments is not None else call.arguments
    shown = json.dumps(arguments, ensure_ascii=False) if not isinstance(arguments, str) else arguments
    result = call.result
    lines = result.count("\n") + 1 if result else 0
    what = (
        "what the model was told"
        if rejected or outcome == Outcome.CACHED
        else f"result, {plural(lines, 'line')}"
    )
    return (
        f'<div class="entry tool-call outcome-{outcome.value}{rejected}" data-outcome="{outcome.value}">'
        f'<span class="mark">{mark}</span> <span class="mono">{escape(call.tool)}('
        f"{escape(clip(shown, 120))})</span> · {outcome.value.replace('_', ' ')}"
        f"<details><summary>{what}, {call.duration_ms:.0f} ms</summary>"
        f"<pre>{escape(result)}</pre></details></div>"
    )


def guardrail_words(guardrail: Guardrail) -> str:
    """A guardrail in a few words."""
    match guardrail:
        case Guardrail.ZERO_TOOL:
            return "pushback: the model answered before calling any tool"
        case Guardrail.EVIDENCE:
            return "pushback: the answer names what no tool returned"
        case Guardrail.REPORT:
            return "correction: the report does not parse, validate or verify"
        case Guardrail.FORCED_SUMMARY:
            return "forced summary"
        case Guardrail.UNPARSABLE_CALL:
            return "the endpoint could not parse the model's tool call: the model was told"


def _guardrail(event: events.GuardrailFired) -> str:
    detail = event.reason.value if event.reason else ", ".join(event.names)
    return (
        f'<div class="entry guardrail" data-guardrail="{event.guardrail.value}">! '
        f"{escape(guardrail_words(event.guardrail))}"
        + (f": {escape(detail.replace('_', ' '))}" if detail else "")
        + "</div>"
    )


def _end(run: RunRecord) -> str:
    metrics = run.metrics
    if metrics["status"] != "ok":
        return f'<span class="bad">run failed:</span> {escape(str(metrics["error"]))}'
    violations = "".join(f'<div class="bad">{escape(v)}</div>' for v in metrics["violations"])
    ungrounded = metrics["ungrounded_names"]
    note = f' <span class="bad">ungrounded: {escape(", ".join(ungrounded))}</span>' if ungrounded else ""
    answer = str(metrics["answer"] or "")
    return (
        f"answer ({plural(len(answer), 'character')}){note}{violations}"
        f"<details><summary>{escape(clip(answer, 90))}</summary><pre>{escape(answer)}</pre></details>"
    )


def _anchor(name: str) -> str:
    return "s-" + "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)
