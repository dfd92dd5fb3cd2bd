"""The blocks that show `k8s-agent ask` and what its trace holds: the README's run, the report's
output and JSON, the correction and exit 6, the SDK port on the Responses wire, bytes per wire,
and a large result's excerpt."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from k8s_agent.doc_blocks.block import Block, Check
from k8s_agent.doc_blocks.shell import BlockError, Shell
from k8s_agent.doc_blocks.tables import table
from k8s_agent.doc_blocks.views import (
    fenced,
    findings_from,
    json_excerpt,
    progress_excerpt,
    report_excerpt,
    report_parts,
)

QUESTION = "Which pods in the production namespace are unhealthy, and why?"
ABOUT = "payment-service-6f7b8d9c8-ghj56"
"""The pod whose finding the pages show (the default fixture's crash loop)."""
ASK = ("ask", QUESTION)
SHOWN_ASK = f'k8s-agent ask "{QUESTION}"'


def ask_json(shell: Shell, impl: str = "handwritten", api: str = "chat") -> dict[str, Any]:
    """`ask --json` of the default question (flags only where they differ from the defaults, so that
    every block showing the same run shares it)."""
    flags = [*(("--impl", impl) if impl != "handwritten" else ()), *(("--api", api) if api != "chat" else ())]
    document: dict[str, Any] = json.loads(shell.k8s_agent("ask", "--json", *flags, QUESTION).stdout)
    return document


SAMPLE_COMPARE = (
    "compare",
    "--scenario",
    "c12-fabricated-evidence",
    "--scenario",
    "offline-default",
    "--scenario",
    "offline-prose",
    "--format",
    "md",
    "--trace-dir",
    "compare-traces",
)
"""One comparison serves the checks of compare.md's rows and report.md's caught fabrication."""


def readme_ask(shell: Shell) -> str:
    """Progress, then the report: a long round of calls and the other findings left out."""
    ran = shell.k8s_agent(*ASK)
    return fenced(progress_excerpt(ran.stderr) + "\n" + report_excerpt(shell.shown(ran.stdout), ABOUT))


def report_output(shell: Shell) -> str:
    """The report's body and footer, one finding shown."""
    ran = shell.k8s_agent(*ASK)
    return fenced(report_excerpt(shell.shown(ran.stdout), ABOUT, head=False))


def report_json(shell: Shell) -> str:
    """`ask --json`: the report's fields, one finding of them."""
    document = ask_json(shell)
    findings = document.get("report", {}).get("findings", [])

    def one_finding(shown: dict[str, Any]) -> None:
        shown["report"] = {**shown["report"], "findings": [f for f in findings if f.get("name") == ABOUT]}
        if not shown["report"]["findings"]:
            raise BlockError(f"the report has no finding about {ABOUT}")

    keys = ["report_format", "report_verified", "report_problems", "report"]
    return (
        fenced(json_excerpt(document, keys, one_finding), "json")
        + f"\n\n(The finding about {ABOUT}; the report's other {len(findings) - 1} are left out.)"
    )


def correction(shell: Shell) -> str:
    """The correction turn's message, as the trace of the caught fabrication records it."""
    from k8s_agent_harness.traces.events import GuardrailFired, read_trace
    from k8s_agent_harness.vocabulary import Guardrail

    trace = read_trace(caught_fabrication_trace(shell))
    messages = [g.message for g in trace.of(GuardrailFired) if g.guardrail is Guardrail.REPORT and g.message]
    if not messages:
        raise BlockError("the run of c12-fabricated-evidence has no correction")
    return fenced(textwrap.fill(messages[0], 104, break_long_words=False, break_on_hyphens=False))


def caught_fabrication_trace(shell: Shell) -> Path:
    """The hand-written run's trace of c12-fabricated-evidence in the sample comparison."""
    shell.k8s_agent(*SAMPLE_COMPARE)
    found = sorted(
        shell.path("compare-traces").glob("compare-*/c12-fabricated-evidence/handwritten/2*.jsonl")
    )
    if not found:
        raise BlockError("the comparison left no trace of c12-fabricated-evidence")
    return found[-1]


def caught_fabrication(shell: Shell) -> str:
    """`trace show` of that run, from the turn of the first report to the end of the run."""
    shown = shell.k8s_agent("trace", "show", str(caught_fabrication_trace(shell))).stdout
    lines = shown.split("\n")
    first_report = next((i for i, line in enumerate(lines) if " report: " in line), None)
    step = next((i for i in range(first_report or 0, -1, -1) if " step " in lines[i]), None)
    if first_report is None or step is None:
        raise BlockError("trace show printed no report")
    end = next((i for i in range(step, len(lines)) if lines[i] == "answer:"), len(lines))
    return fenced("\n".join(lines[step:end]))


def unverified(shell: Shell) -> str:
    """A model that keeps a fabricated quote after its correction, through `ask --quiet`: the report
    from its finding on, the exit status, and stderr."""
    from k8s_agent.scenarios import FABRICATED, LOG_LINE, finding
    from k8s_agent.scenarios import report_json as scripted_report
    from k8s_agent_scripted_llm import ScriptedModelServer, call, text

    script = [
        call("list_pods", namespace="production"),
        call("get_pod_logs", name=ABOUT, namespace="production"),
        text(scripted_report(finding(ABOUT, FABRICATED))),
        text(scripted_report(finding(ABOUT, LOG_LINE, FABRICATED))),
    ]
    with ScriptedModelServer(script) as server:
        args = ("ask", "--base-url", server.url, "--api-key", "scripted", "--model", "scripted")
        ran = shell.k8s_agent(*args, "--report-format", "json_schema", "--quiet", QUESTION, codes=(6,))
    shown = findings_from(shell.shown(ran.stdout), ABOUT) + f"\n$ echo $?\n{ran.code}"
    return fenced(shown) + f"\n\n(stderr: `{ran.stderr.strip()}`.)"


def responses_run(shell: Shell) -> str:
    """The SDK port on the Responses wire: progress, then the two lines above the report."""
    ran = shell.k8s_agent("ask", "--impl", "sdk", "--api", "responses", QUESTION)
    above, _, _ = report_parts(ran.stdout)
    return fenced(progress_excerpt(ran.stderr, longest=100) + "\n" + "\n".join(above[:-1]))


def bytes_per_wire(shell: Shell) -> str:
    """Requests, calls and bytes of the default question, per implementation and wire."""
    rows = []
    for impl in ("handwritten", "sdk"):
        chat, responses = (ask_json(shell, impl, api) for api in ("chat", "responses"))
        change = 100 * (responses["bytes_sent"] / chat["bytes_sent"] - 1)
        rows.append(
            [
                impl,
                f"{chat['model_requests']} / {responses['model_requests']}",
                f"{chat['tool_calls_executed']} / {responses['tool_calls_executed']}",
                f"{chat['bytes_sent']:,} / {responses['bytes_sent']:,}",
                f"{change:+.1f} %",
            ]
        )
    return table(["implementation", "requests", "tool calls", "bytes sent", "Responses vs Chat"], rows)


def large_result(shell: Shell) -> tuple[str, str]:
    """The excerpt the model got of the 5,000-pod listing, and its first search's answer."""
    from k8s_agent_harness.traces.events import ToolCall, read_trace
    from k8s_agent_mock_cluster.synthetic import cluster

    fixture = shell.path("pods-5000.json")
    if not fixture.exists():
        fixture.write_text(json.dumps(cluster(5000)), encoding="utf-8")
    ran = shell.k8s_agent("ask", "--cluster", fixture.name, "--quiet", QUESTION)
    trace = ran.stdout.rstrip().rsplit("\n", 1)[-1].removeprefix("Trace: ")
    calls = read_trace(Path(trace)).of(ToolCall)
    listing = next((c.result for c in calls if c.tool == "list_pods" and c.handle), None)
    search = next((c.result for c in calls if c.tool == "search_results"), None)
    if listing is None or search is None:
        raise BlockError("the run on 5,000 pods got no excerpt, or made no search")
    return listing, search


def excerpt(shell: Shell) -> str:
    """The excerpt: its header, two first lines and three last, the rest counted."""
    lines = large_result(shell)[0].split("\n")
    cut = next((i for i, line in enumerate(lines) if line.startswith("[... ")), None)
    if cut is None:
        raise BlockError("the excerpt has no '[... lines not shown ...]' line")
    head, tail = lines[1:cut], lines[cut + 1 :]
    shown = [
        lines[0],
        *head[:2],
        f"⋮  (this page leaves out {len(head) - 2} of the excerpt's first lines)",
        lines[cut],
        f"⋮  (and {len(tail) - 3} of its last lines)",
        *tail[-3:],
    ]
    return fenced("\n".join(shown))


def search(shell: Shell) -> str:
    """The first search's answer, whole."""
    return fenced(large_result(shell)[1])


PAGE_README, PAGE_REPORT, PAGE_MIGRATION, PAGE_BUDGET = (
    "README.md",
    "docs/report.md",
    "docs/migration.md",
    "docs/context-budget.md",
)
FIVE_THOUSAND = (
    f'k8s-agent ask --cluster PODS-5000.json "{QUESTION}" (the 5,000-pod cluster of bench --scale)'
)

BLOCKS = (
    Block(
        "readme-ask",
        PAGE_README,
        SHOWN_ASK,
        "ask, offline: progress and report",
        readme_ask,
        Check(readme_ask),
    ),
    Block(
        "report-output",
        PAGE_REPORT,
        SHOWN_ASK,
        "ask, offline: the report",
        report_output,
        Check(report_output),
    ),
    Block(
        "report-json",
        PAGE_REPORT,
        f'k8s-agent ask --json "{QUESTION}"',
        "ask --json: the report's fields",
        report_json,
        Check(report_json),
    ),
    Block(
        "report-correction",
        PAGE_REPORT,
        "k8s-agent compare --scenario c12-fabricated-evidence (the hand-written run's trace)",
        "the correction turn's message",
        correction,
        Check(correction),
    ),
    Block(
        "report-unverified",
        PAGE_REPORT,
        f'k8s-agent ask --base-url URL --model scripted --report-format json_schema --quiet "{QUESTION}" '
        "(a scripted model that keeps a fabricated quote)",
        "exit 6: a quote still unverified",
        unverified,
        Check(unverified),
    ),
    Block(
        "report-trace-show",
        PAGE_REPORT,
        "k8s-agent compare --scenario c12-fabricated-evidence; k8s-agent trace show TRACE (its hand-written run)",
        "trace show of a caught fabrication",
        caught_fabrication,
        Check(caught_fabrication),
    ),
    Block(
        "migration-ask-responses",
        PAGE_MIGRATION,
        f'k8s-agent ask --impl sdk --api responses "{QUESTION}"',
        "ask, the SDK port on the Responses wire",
        responses_run,
        Check(responses_run),
    ),
    Block(
        "migration-bytes",
        PAGE_MIGRATION,
        f'k8s-agent ask --json --impl IMPL --api API "{QUESTION}" (each implementation on each wire)',
        "requests, calls and bytes per wire",
        bytes_per_wire,
        Check(bytes_per_wire),
    ),
    Block("budget-excerpt", PAGE_BUDGET, FIVE_THOUSAND, "a large result's excerpt", excerpt, Check(excerpt)),
    Block(
        "budget-search", PAGE_BUDGET, FIVE_THOUSAND, "a search of the stored result", search, Check(search)
    ),
)
