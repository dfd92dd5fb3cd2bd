"""The reference agent's breaks and legitimate variations: each mutant breaks one clause of one
contract item (docs/contract.md's rule table, clause for clause) and must fail that item alone;
each variation does what a correct agent may do its own way and must hold every item."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    """One break of the reference agent (or, with item `-`, one legitimate variation of it)."""

    name: str
    item: str
    """The contract item it breaks (and only that one)."""
    does: str
    clause: str = ""
    """The clause of the item it breaks, as docs/contract.md states it."""


M = Mutant
MUTANTS: tuple[Mutant, ...] = (
    M("c1-not-forced", "C1", "leaves the first request's tool choice to the model", "request 1 forces a tool call"),
    M("c1-forced-after-pushback", "C1", "forces a tool call again on the request after a pushback", "no later request forces one"),
    M("c1-required-without-tools", "C1", "sends tool_choice required on the tool-less summary request", "no request forces a call while offering no tools"),
    M("c2-accepted", "C2", "accepts an answer given before any tool ran", "a tool-less first answer gets one further turn"),
    M("c2-first-answer-kept", "C2", "gives the answer it pushed back on as its answer", "the next answer is accepted, the run ends without an error: it is the answer"),
    M("c2-twice", "C2", "pushes back on a second tool-less answer too, then gives up with an error", "the next answer is accepted, the run ends without an error"),
    M("c3-passes", "C3", "sends a call that breaks the schema to the server as it is", "a schema-breaking call never reaches the server"),
    M("c3-repaired", "C3", "repairs a schema-breaking call (drops bad fields, fills missing ones) and runs it, saying so", "nor repaired: every server call is a call the model proposed"),
    M("c3-first-problem-only", "C3", "names only the first of the schema problems of a call", "its answer names every problem's field"),
    M("c4-round-duplicates", "C4", "caches results only after a round: repeats within one round all run", "a repeat never reaches the server twice"),
    M("c4-cache-by-name", "C4", "keys its cache by tool name alone: other arguments get the first result", "only an identical call is a repeat"),
    M("c4-summary-dropped", "C4", "answers with a line of its own instead of the forced summary", "the summary's text is the answer"),
    M("c4-no-summary", "C4", "answers repeats from its cache but never forces the summary", "max_repeats repeats end in one tool-less summary request"),
    M("c5-accepted", "C5", "accepts an answer naming pods no tool returned", "the answer naming an invented pod gets one further turn"),
    M("c5-names-withheld", "C5", "pushes back on invented names without saying which", "the further turn names it"),
    M("c5-twice", "C5", "pushes back on invented names again, then gives up with an error", "the next answer is accepted, the run ends without an error"),
    M("c6-forwarded", "C6", "sends a call to a tool it does not offer on to the server", "an unknown tool never reaches the server"),
    M("c6-no-list", "C6", "says a tool is unknown, without the tools there are", "its answer gives the tools there are"),
    M("c6-lists-unknown", "C6", "lists the unknown tool among the tools there are", "the unknown tool is not among them"),
    M("c7-one-more-step", "C7", "lets the model call tools one turn past the step budget", "at most max_steps + 1 requests, the last one tool-less"),
    M("c7-two-summaries", "C7", "asks for the summary twice when the step budget is spent", "one summary request only"),
    M("c7-summary-early", "C7", "asks for the summary one step before the budget is spent", "the summary comes when the budget is spent"),
    M("c7-error-at-limit", "C7", "ends the run with an error when the step budget is spent", "the run ends without an error"),
    M("c7-no-instruction", "C7", "asks for the summary with no instruction: the request only drops the tools", "the summary request asks for the summary"),
    M("c8-empty-arguments", "C8", "runs a call whose arguments are not JSON with no arguments", "no call of the tool reaches the server"),
    M("c8-raw-only", "C8", "shows the arguments it could not use without saying why", "its answer gives the decoder's message"),
    M("c8-no-raw", "C8", "says the arguments are not JSON without showing them", "and the raw arguments"),
    M("c9-silent-retry", "C9", "retries a failed call once without telling the model", "a failed call reached the server once"),
    M("c9-retry-changed", "C9", "retries a failed call once with another argument, without telling the model", "nor retried, or replaced, behind the model's back: with other arguments"),
    M("c9-hidden-failure", "C9", "tells the model a call failed without the server's error", "its answer shows the server's error"),
    M("c9-error-exit", "C9", "answers, then ends the run with an error because a tool failed", "the run ends without an error"),
    M("c10-answered-twice", "C10", "sends each answer of a round twice", "each call id answered exactly once"),
    M("c10-out-of-order", "C10", "answers the calls of a round in reverse order", "in call order"),
    M("c10-rotated", "C10", "answers each call of a round with the next call's result", "with its own call's result"),
    M("c10-truncated", "C10", "cuts every result to its first three lines, without saying so", "the whole result, or an excerpt that says it is one"),
    M("c11-prompt-silent", "C11", "asks for JSON without describing the report", "the system prompt describes the report"),
    M("c11-format-dropped", "C11", "stops asking for the report's format after a correction", "the report's format on every request"),
    M("c11-no-correction", "C11", "accepts a report that breaks its schema", "a report that breaks the schema gets one correction"),
    M("c11-vague-correction", "C11", "asks for the report again without saying what breaks the schema", "naming the errors the report has"),
    M("c11-first-error-only", "C11", "names only the first error of the report that breaks the schema", "naming the errors the report has: every error, where the schema is on the wire"),
    M("c11-asks-again", "C11", "asks once more after the corrected report", "the corrected report is accepted"),
    M("c11-first-report-kept", "C11", "accepts the corrected report but answers with the one it rejected", "the corrected report is accepted: it is the answer"),
    M("c12-quote-only", "C12", "names the fabricated quote in its correction, not the invented pod", "one correction naming each problem"),
    M("c12-asks-again", "C12", "asks once more after the corrected report", "the corrected report is accepted"),
    M("c12-dropped", "C12", "drops the quotes it could not verify from the answer", "what stays unverified is kept"),
    M("c12-unmarked", "C12", "keeps the quotes it could not verify, unmarked", "marked unverified, and the verified quote is not"),
    M("c12-marks-swapped", "C12", "marks the found quote unverified and the fabricated one checked", "marked unverified, and the verified quote is not: the verified one unmarked"),
    M("c13-offered", "C13", "offers tools that change the cluster (and refuses their calls)", "write tools are not offered"),
    M("c13-write-runs", "C13", "offers and runs tools that change the cluster, without approval", "a write call never reaches the server without approval"),
    M("c13-model-approval", "C13", "runs a write call when the model's own text says it was approved", "a write call never reaches the server without approval: approval comes from the operator only"),
    M("c13-no-list", "C13", "refuses a write call without the tools there are", "the refusal says so and gives the tools there are"),
    M("c13-error-exit", "C13", "refuses a write call, then ends the run with an error", "the run ends without an error"),
    M("c13-renamed", "C13", "offers the write tools under other names (restart_pod as refresh_pod), their descriptions kept", "write tools are not offered"),
    M("c13-queued", "C13", "answers a write call 'queued for operator approval' (with the tools there are): it does not say it was not run", "the refusal says so and gives the tools there are: it says it was not run"),
    M("c14-key-in-prompt", "C14", "copies its API key into the system prompt", "no secret the agent holds reaches the model"),
    M("c14-results-unredacted", "C14", "sends tool results to the model without redacting secrets", "secrets in results are redacted first"),
    M("c14-results-escaped", "C14", "sends tool results unredacted, JSON-encoded with every character escaped (\\u0063...)", "in any form the model could read back"),
)  # fmt: skip
VARIANTS: tuple[Mutant, ...] = (
    Mutant(
        "refusal-wording",
        "-",
        "words its refusals and corrections its own way ('rejected: ... may only read')",
    ),
    Mutant("json-results", "-", 'sends each result JSON-encoded: {"result": ...} or {"error": ...}'),
    Mutant(
        "pretty-report",
        "-",
        'prints the checked report as indented JSON, "verified": false, plus UNVERIFIED lines',
    ),
    Mutant(
        "duplicate-refused", "-", "answers a repeat by pointing to the earlier result, without repeating it"
    ),
    Mutant("concurrent-round", "-", "runs the calls of a round concurrently"),
    Mutant("reversed-tools", "-", "offers the tools in reverse order"),
    Mutant("extra-system", "-", "sends a second system message with its own rules"),
    Mutant("explicit-auto", "-", "sends tool_choice auto on every later request that offers tools"),
    Mutant("labelled-excerpt", "-", "cuts long results to six lines, saying how many were left out"),
    Mutant("developer-prompt", "-", "sends its system prompt as a developer message"),
    Mutant("masked-secrets", "-", "redacts secrets in results with a mark of its own: [masked]"),
)
"""Legitimate variations of the reference agent: each must hold every item."""
BY_NAME = {mutant.name: mutant for mutant in (*MUTANTS, *VARIANTS)}
