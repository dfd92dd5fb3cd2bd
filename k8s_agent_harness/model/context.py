"""The context budget: large tool results kept, not sent; a search tool over them; compaction.

Sizes are estimated from bytes (`BYTES_PER_TOKEN` bytes a token, no tokenizer to download). A tool
result over the per-result budget reaches the model as an excerpt (its first and last lines, with
exact line and byte counts and a handle); the full text is stored in the run and in the trace, and
`search_results` (a tool the harness itself serves, through the same gateway as the server's)
finds lines in it, literally or by regex. Before each request, when the conversation would exceed
the budget, the oldest large entries are compacted: a tool result becomes a stub naming its handle
(still searchable), an old long text or argument string is cut. Both agents compute the same
compaction from the same history (conversation.py applies the plan), so they put the same messages
on the wire.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.evidence.report import MAX_REPORT_BYTES
from k8s_agent_harness.traces.events import sha256_of

BYTES_PER_TOKEN = 4
"""How the budget turns into bytes: an estimate that is close for English, JSON and kubectl output."""
RESULT_SHARE = 8
"""A tool result may take up to 1/RESULT_SHARE of the budget before it is excerpted."""
COMPACTION_TARGET = 0.85
"""Compaction brings the conversation under this share of the budget (the rest: wire overhead)."""
SEARCH_TOOL = "search_results"
MAX_LINE_SHOWN = 300
"""Characters of one line an excerpt or a search shows (a 20 MB one-line result stays one bounded line)."""
MAX_MATCHES = 200
MIN_RESULT_BYTES = 2048
"""However small the budget, an excerpt keeps this much."""
MAX_ANSWER_BYTES = MAX_REPORT_BYTES
"""A text answer of the model kept in the conversation (a report sent back for correction) is cut
to this, or to ANSWER_SHARE of the budget if less: the tool results its quotes come from keep the room."""
ANSWER_SHARE = 4
MIN_COMPACT_BYTES = 1024
"""Entries smaller than this are never made stubs (a stub is not much smaller); they leave with their turn."""


def size_of(text: str) -> int:
    """The size of a text on the wire, in bytes (UTF-8)."""
    return len(text.encode("utf-8", "replace"))


def tokens_of(size: int) -> int:
    """The estimated tokens of `size` bytes."""
    return -(-size // BYTES_PER_TOKEN)


@dataclass(frozen=True)
class Budget:
    """The context budget of a run, in bytes (0: no budget)."""

    tokens: int
    calls_per_turn: int = 0
    """Tool calls of one model turn that enter the conversation (0: all): the calls a turn
    proposes beyond them are not run, and the conversation leaves them out."""

    @property
    def request_bytes(self) -> int:
        """Bytes one request may take; 0 means unlimited."""
        return self.tokens * BYTES_PER_TOKEN

    @property
    def result_bytes(self) -> int:
        """Bytes one tool result may take before it is excerpted; 0 means unlimited."""
        return max(MIN_RESULT_BYTES, self.request_bytes // RESULT_SHARE) if self.tokens else 0

    @property
    def answer_bytes(self) -> int:
        """Bytes of one text answer of the model kept in the conversation; 0 means unlimited."""
        return min(MAX_ANSWER_BYTES, self.request_bytes // ANSWER_SHARE) if self.tokens else 0

    @property
    def target_bytes(self) -> int:
        """What compaction brings the conversation under."""
        return int(self.request_bytes * COMPACTION_TARGET)


# -- stored results --------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredResult:
    """The full text of one tool result the model was shown only in part (one per distinct text:
    calls that returned the same text share it)."""

    handle: str
    call_id: str
    tool: str
    call: str
    """The first call that returned it, as `tool(arguments)`, to say what the result is."""
    text: str
    sha256: str
    structured: Any = None
    """The server's structured content sent with the text (redacted), when it sent one."""

    @property
    def lines(self) -> list[str]:
        """The text's lines (a text with no newline is one line)."""
        return self.text.splitlines() or [""]

    @property
    def structured_lines(self) -> list[str]:
        """The structured content's values, one line each, named by their path (`$.pods[3].status: Running`)."""
        return (
            [f"{path}: {value}" for path, value in leaves(self.structured)]
            if self.structured is not None
            else []
        )


@dataclass
class ResultStore:
    """Full texts of the run's excerpted and compacted results, by handle (`r1`, `r2`, ...), each
    distinct text once (by sha256)."""

    results: dict[str, StoredResult] = field(default_factory=dict)
    _by_call: dict[str, str] = field(default_factory=dict)
    _by_sha: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.results)

    def put(
        self,
        call_id: str,
        tool: str,
        call: str,
        text: str,
        *,
        structured: Any = None,
        sha256: str | None = None,
    ) -> StoredResult:
        """Store a result (once per call id, once per text) and return it with its handle."""
        handle = self._by_call.get(call_id)
        if handle is None:
            sha = sha256 or sha256_of(text)
            handle = self._by_sha.get(sha)
            if handle is None:
                handle = self._by_sha[sha] = f"r{len(self.results) + 1}"
                self.results[handle] = StoredResult(handle, call_id, tool, call, text, sha, structured)
            self._by_call[call_id] = handle
        return self.results[handle]

    def handle_of(self, call_id: str) -> str | None:
        """The handle of a call's stored result, if it was stored."""
        return self._by_call.get(call_id)

    def search(
        self,
        pattern: str,
        *,
        handle: str | None = None,
        regex: bool = False,
        ignore_case: bool = False,
        invert: bool = False,
        max_matches: int = 50,
        max_bytes: int = 0,
    ) -> str:
        """Lines of stored results that match (or with `invert`, do not match), like grep -n."""
        if handle is not None and handle not in self.results:
            known = ", ".join(self.results) or "none yet"
            return f"No stored result {handle!r}: the stored results are {known}."
        try:
            compiled = re.compile(
                pattern if regex else re.escape(pattern), re.IGNORECASE if ignore_case else 0
            )
        except re.error as error:
            return f"The pattern is not a valid regular expression: {error}. Pass regex=false to search literally."
        chosen = [self.results[handle]] if handle is not None else list(self.results.values())
        total = 0
        shown: list[str] = []
        size = 0
        lines_in = 0
        for stored in chosen:
            # The text's lines by number, then the structured content's values by path: a value the
            # text shows cut or rounded is exact there.
            numbered = [
                *((str(number), line) for number, line in enumerate(stored.lines, start=1)),
                *(("", line) for line in stored.structured_lines),
            ]
            lines_in += len(numbered)
            for number, line in numbered:
                if (compiled.search(line) is not None) != invert:
                    total += 1
                    if len(shown) < max_matches:
                        where_in = f"{number}: " if number else ""
                        entry = (
                            f"{stored.handle}:{where_in}{clip_line(line, compiled if not invert else None)}"
                        )
                        if max_bytes and size + size_of(entry) + 1 > max_bytes:
                            max_matches = len(shown)  # the output is full: count the rest only
                            continue
                        shown.append(entry)
                        size += size_of(entry) + 1
        where = (
            f"{chosen[0].handle} ({chosen[0].call})"
            if handle is not None
            else f"{len(chosen)} stored results"
        )
        how = "not matching" if invert else "matching"
        head = f'{total} of {lines_in} lines {how} "{pattern}" in {where}'
        if total > len(shown):
            head += f"; the first {len(shown)} shown (narrow the pattern, or raise max_matches)"
        return head + (":\n" + "\n".join(shown) if shown else ".")


def leaves(value: Any, path: str = "$") -> list[tuple[str, str]]:
    """The strings, numbers and booleans of a JSON value with their paths, depth first."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            stack.extend((f"{where}.{key}", inner) for key, inner in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((f"{where}[{index}]", inner) for index, inner in reversed(list(enumerate(item))))
        elif item is not None:
            found.append((where, json.dumps(item) if isinstance(item, bool) else str(item)))
    return found


def outline_of(value: Any, depth: int = 2) -> str:
    """A JSON value's shape in one short line: its keys, and for each list its exact length."""
    if isinstance(value, dict):
        if depth == 0:
            return f"{{{len(value):,} keys}}"
        inner = ", ".join(
            f"{json.dumps(str(key))}: {outline_of(item, depth - 1)}" for key, item in list(value.items())[:8]
        )
        more = f", ... {len(value) - 8:,} more keys" if len(value) > 8 else ""
        return clip_line(f"{{{inner}{more}}}")
    if isinstance(value, list):
        return f"[{len(value):,} items]"
    return clip_line(json.dumps(value, default=str))


def clip_line(line: str, pattern: re.Pattern[str] | None = None) -> str:
    """A line cut to MAX_LINE_SHOWN characters, around the first match when there is one."""
    if len(line) <= MAX_LINE_SHOWN:
        return line
    start = 0
    if pattern is not None and (found := pattern.search(line)) is not None:
        start = max(0, found.start() - MAX_LINE_SHOWN // 3)
    end = min(len(line), start + MAX_LINE_SHOWN)
    before = f"[{start:,} characters] " if start else ""
    after = f" [{len(line) - end:,} more characters]" if end < len(line) else ""
    return f"{before}{line[start:end]}{after}"


# -- excerpts --------------------------------------------------------------------------------------


def excerpt(stored: StoredResult, budget_bytes: int, call: str | None = None) -> str:
    """What the model sees of a large result: a header with the exact counts and the handle (and the
    outline of its structured content, when the server sent one), then as many first lines (two
    thirds of the room) and last lines (one third) as fit. `call`: the call it answers, when not
    the first that returned this text."""
    lines = stored.lines
    total_bytes = size_of(stored.text)
    outline = (
        f"\n[Structured content beside the text (searchable too, exact values by path): {outline_of(stored.structured)}]"
        if stored.structured is not None
        else ""
    )
    room = max(MIN_RESULT_BYTES, budget_bytes) - 400 - size_of(outline)  # the header and the gap line
    head: list[str] = []
    used = 0
    for line in lines:
        shown = clip_line(line)
        if used + size_of(shown) + 1 > room * 2 // 3:
            break
        head.append(shown)
        used += size_of(shown) + 1
    tail: list[str] = []
    for line in reversed(lines[len(head) :]):
        shown = clip_line(line)
        if used + size_of(shown) + 1 > room:
            break
        tail.insert(0, shown)
        used += size_of(shown) + 1
    hidden = len(lines) - len(head) - len(tail)
    shown_range = _ranges(len(head), len(lines) - len(tail) + 1, len(lines)) if tail else f"1-{len(head)}"
    if not head and not tail:
        shown_range = "none in full"
    header = (
        f"[Result {stored.handle} of {call or stored.call}: {len(lines):,} lines, {total_bytes:,} bytes; too large to "
        f"show whole. Shown: lines {shown_range}. The full result is stored: search it with "
        f'{SEARCH_TOOL}(handle="{stored.handle}", pattern="...").]{outline}'
    )
    if not head and not tail:  # one giant line: show its start, cut
        return f"{header}\n{clip_line(lines[0])}"
    gap = [f"[... {hidden:,} lines not shown ...]"] if hidden else []
    return "\n".join([header, *head, *gap, *tail])


def _ranges(head: int, tail_start: int, last: int) -> str:
    first = f"1-{head}, " if head else ""
    return f"{first}{tail_start}-{last}" if tail_start <= last else first.rstrip(", ")


def compacted(stored: StoredResult, call: str | None = None) -> str:
    """The stub an older result becomes when the conversation must shrink (`call`: the call it
    answers, when not the first that returned this text)."""
    return (
        f"[Result {stored.handle} of {call or stored.call}: {len(stored.lines):,} lines, {size_of(stored.text):,} "
        f"bytes, taken out of the conversation to keep it within the context budget. It is stored: "
        f'search it with {SEARCH_TOOL}(handle="{stored.handle}", pattern="...").]'
    )


def cut_text(text: str, what: str) -> str:
    """An older long text or argument string, cut for compaction."""
    return f"[{what} of {size_of(text):,} bytes, cut to keep the conversation within the context budget]"


# -- compaction ------------------------------------------------------------------------------------

TOOL_RESULT = "tool_result"
TEXT = "text"
ARGUMENTS = "arguments"
PIECE_OVERHEAD = 96
"""Bytes a message, a tool call or a tool result costs on the wire beyond its text, as estimated."""
NOTE_BYTES = 400
"""The note that stands for dropped turns, as estimated."""


class ContextBudgetError(ConfigError):
    """What cannot shrink (instructions, question, tool definitions, the latest turn) does not fit
    the budget (exit 2)."""


@dataclass(frozen=True)
class Entry:
    """One compactable piece of a conversation, in order: a tool result, a text, an argument string."""

    kind: str
    size: int
    turn: int
    """The model turn it belongs to (its assistant message, the calls in it, their results)."""
    call_id: str | None = None
    text: str = ""
    tool: str = ""
    """For arguments and tool results: the tool the call named."""
    arguments: str = ""
    """For tool results: the raw arguments of the call it answers."""


@dataclass(frozen=True)
class Plan:
    """What to take out of a conversation before a request."""

    compacted: frozenset[int] = frozenset()
    """Entries (by index) replaced by a stub or a cut text."""
    dropped: frozenset[int] = frozenset()
    """Whole turns (by number) left out, one note standing for them."""
    clipped: frozenset[int] = frozenset()
    """Text answers (by index) longer than the budget keeps of one: cut to their start."""
    clip_bytes: int = 0

    @property
    def changed(self) -> list[int]:
        """The entries (by index) that go on the wire changed, in order."""
        return sorted(self.compacted | self.clipped)

    def rewrite(self, number: int, entry: Entry, store: ResultStore) -> str:
        """What the entry becomes on the wire: its stub or cut text, or its clipped start."""
        if number in self.compacted:
            return replacement(entry, store)
        return clipped_answer(entry.text, self.clip_bytes)


def wire_size(text: str) -> int:
    """A text's size as a JSON string on the wire (escapes counted, quotes not)."""
    return len(json.dumps(text)) - 2


def plan(entries: Sequence[Entry], fixed: int, budget: Budget) -> Plan:
    """The smallest change that fits the conversation into the budget (nothing without a budget).

    `fixed` is what cannot shrink: instructions, user messages and tool definitions, overheads
    included. In this order, until it fits: the oldest large entries of earlier turns become stubs;
    the oldest earlier turns are dropped whole (one note stands for them); the latest turn's large
    entries become stubs. The plan depends only on the sizes, so that a loop that recomputes it from
    its full history every turn (the SDK port) and one that keeps its own history (the hand-written
    loop) take out the same things. Raises ContextBudgetError when even that does not fit.
    """
    if not budget.tokens:
        return Plan()
    target = budget.target_bytes
    sizes = [PIECE_OVERHEAD + entry.size for entry in entries]
    total = fixed + sum(sizes)
    turns = sorted({entry.turn for entry in entries})
    latest = turns[-1] if turns else None
    compacted: set[int] = set()
    dropped: set[int] = set()
    clipped: set[int] = set()
    limit = budget.answer_bytes
    for index, entry in enumerate(entries):  # first: answers longer than one may be, whatever the total
        if entry.kind == TEXT and entry.size > limit + CLIP_NOTE_BYTES:
            clipped.add(index)
            smaller = PIECE_OVERHEAD + limit + CLIP_NOTE_BYTES
            total -= sizes[index] - smaller
            sizes[index] = smaller

    def compact(only_latest: bool) -> None:
        nonlocal total
        for index, entry in enumerate(entries):
            if total <= target:
                return
            if (
                (entry.turn == latest) != only_latest
                or entry.size < MIN_COMPACT_BYTES
                or entry.turn in dropped
            ):
                continue
            compacted.add(index)
            smaller = PIECE_OVERHEAD + _stub_size(entry)
            total -= sizes[index] - smaller
            sizes[index] = smaller

    compact(only_latest=False)
    if total > target and len(turns) > 1:
        total += NOTE_BYTES
        for turn in turns[:-1]:
            if total <= target:
                break
            dropped.add(turn)
            total -= sum(size for size, entry in zip(sizes, entries, strict=True) if entry.turn == turn)
    compact(only_latest=True)
    if total > target:
        raise ContextBudgetError(
            f"the instructions, the question, the tool definitions and the latest turn take about "
            f"{tokens_of(total):,} tokens, more than the context budget of {budget.tokens:,} leaves room "
            "for: raise --context-budget (or lower --max-calls-per-turn)"
        )
    gone = {i for i, e in enumerate(entries) if e.turn in dropped}
    return Plan(frozenset(compacted - gone), frozenset(dropped), frozenset(clipped - gone - compacted), limit)


CLIP_NOTE_BYTES = 160


def clipped_answer(text: str, limit: int) -> str:
    """The start of a long answer, at most `limit` bytes on the wire, and a note of what was cut."""
    head = text[:limit]
    while head and wire_size(head) > limit:
        head = head[: max(0, len(head) - (wire_size(head) - limit))]
    more = size_of(text) - size_of(head)
    return f"{head}\n[... {more:,} more bytes of this answer, cut to keep the conversation within the context budget]"


def _stub_size(entry: Entry) -> int:
    return 360 if entry.kind == TOOL_RESULT else 110


def replacement(entry: Entry, store: ResultStore) -> str:
    """What a compacted entry becomes (a tool result is stored first, once, so it stays searchable)."""
    if entry.kind == TOOL_RESULT:
        return compacted(_stored(entry, store), _describe(entry.tool, entry.arguments))
    if entry.kind == ARGUMENTS:
        return json.dumps({"note": cut_text(entry.text, "arguments")})
    return cut_text(entry.text, "an earlier answer of the model")


def dropped_note(entries: Sequence[Entry], dropped: frozenset[int], store: ResultStore) -> str:
    """The one message that stands for the dropped turns (their results stored, so searchable)."""
    results = [entry for entry in entries if entry.turn in dropped and entry.kind == TOOL_RESULT]
    handles = list(dict.fromkeys(_stored(entry, store).handle for entry in results))
    stored = (
        f"; their results are stored as {', '.join(handles)}: search them with {SEARCH_TOOL}"
        if handles
        else ""
    )
    return (
        f"[{len(dropped):,} earlier model turns with {len(results):,} tool calls are taken out of the "
        f"conversation to keep it within the context budget{stored}.]"
    )


def _stored(entry: Entry, store: ResultStore) -> StoredResult:
    handle = store.handle_of(entry.call_id or "")
    if handle is not None:
        return store.results[handle]
    return store.put(entry.call_id or "", entry.tool, _describe(entry.tool, entry.arguments), entry.text)


def _describe(tool: str, raw_arguments: str) -> str:
    shown = " ".join(raw_arguments.split()) or "{}"
    return f"{tool}({shown if len(shown) <= 160 else shown[:159] + '…'})"


def search_tool_spec(name: str = SEARCH_TOOL) -> dict[str, Any]:
    """The search tool's JSON Schema and description (served by the harness, read-only)."""
    return {
        "name": name,
        "description": (
            "Search the full text of tool results too large to show whole (their excerpt names a handle such "
            "as r1), like grep -n: exact text, or a regular expression with regex=true. Returns the number of "
            "matching lines and the lines with their numbers. Use it to find every line about a pod, an error "
            "or a status in a long listing, instead of guessing. invert=true lists the lines that do NOT match."
        ),
        "schema": {
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "minLength": 1, "description": "Text (or regex) to find."},
                "handle": {
                    "type": "string",
                    "description": "Only this stored result (e.g. r1); omit for all.",
                },
                "regex": {"type": "boolean", "description": "Treat the pattern as a regular expression."},
                "ignore_case": {"type": "boolean", "description": "Match regardless of case."},
                "invert": {"type": "boolean", "description": "Return the lines that do not match."},
                "max_matches": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_MATCHES,
                    "description": "Most lines to return (default 50).",
                },
            },
            "required": ["pattern"],
            "additionalProperties": False,
        },
    }
