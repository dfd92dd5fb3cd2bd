"""Provenance: what each tool result of a run is, and what a report's quote or name may rest on.

Every tool result is kept with where it came from: the cluster tool, its arguments (and which of
them the tool's input schema declares), and whether the call succeeded. The harness's own
`search_results` tool is no source: its lines are copies of stored results, which are sources
themselves, and its header repeats the model's own pattern.

Each result is read by the parser of its shape (`k8s_agent_harness.evidence.shapes`) into records, one per
resource it shows, each with the kind, name and namespace the record itself gives. This module is
the one place that decides, from those records, what a span of a result is about:

- a span inside a record is about that record's resource (the innermost record that holds it);
  a span that crosses a record's edge (the end of one list item and the start of the next) is
  about nothing;
- a span outside every record is free text (a log line, prose): about the one resource the call
  named by an argument its tool declares (`get_pod_logs(name=X)`), else about nothing;
- a record is about its resource, and, for a pod, its owners' records are about it too (by
  Kubernetes' naming rules or the owners the results show, kinds matched, `shapes.naming`); a
  workload's pods' records are about the workload.

Logs are the workload's own words: nothing in them is read as a table, a header or an object (a
log line can print anything); only a log search's `namespace/pod:N:` prefix is structure. The
spans that only repeat the call's own arguments (`0 matches for "X"`) carry nothing the cluster
said, so they never count towards a quote's information.

`findings.verify` checks a report against these; docs/report.md has the rule and its threat model.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Protocol

from k8s_agent_harness.evidence.redact import Redactor
from k8s_agent_harness.evidence.shapes import (
    Record,
    Resource,
    describe,
    documents,
    is_name,
    kind_of,
    lines,
    tables,
)
from k8s_agent_harness.evidence.shapes.naming import (
    OWNER_KINDS,
    WORKLOAD_KINDS,
    controllers_of,
    generated_name,
    long_running,
    owners,
    owns,
)
from k8s_agent_harness.evidence.shapes.status import healthy

__all__ = [
    "MIN_LINE_CHARACTERS",
    "MIN_QUOTE_CHARACTERS",
    "OWNER_KINDS",
    "WORKLOAD_KINDS",
    "Reading",
    "Record",
    "Resource",
    "Source",
    "informative",
    "kind_of",
    "names_in",
    "normalised",
    "sources_of",
]

MIN_QUOTE_CHARACTERS = 12
"""A quote must carry at least this many letters or digits the call was not itself asked..."""
MIN_LINE_CHARACTERS = 4
"""...unless it is a whole line of the result, with at least this many of its own."""

# Argument names that name the resource a call is about (compared lowercase, without `_` and `-`),
# counted only when the tool's input schema declares them.
_NAME_ARGUMENTS = frozenset({"name", "pod", "podname", "node", "nodename", "resourcename", "object"})
_NAMESPACE_ARGUMENTS = frozenset({"namespace", "ns"})
_KIND_ARGUMENTS = frozenset({"kind", "resourcetype", "resource", "type"})
NAMING_ARGUMENTS = _NAME_ARGUMENTS | _NAMESPACE_ARGUMENTS | _KIND_ARGUMENTS
"""Every argument name that says which resource a call is about."""
_SEARCH_WORDS = frozenset({"search", "grep", "find"})


def normalised(text: str) -> str:
    """Whitespace collapsed, for comparing a quote with the tool results it claims to come from."""
    return " ".join(text.split())


def informative(text: str) -> int:
    """The letters and digits of a text: what a quote must carry enough of."""
    return sum(1 for character in text if character.isalnum())


def names_in(text: str, name: str) -> bool:
    """Whether `text` names `name` as a whole word (`api-7d9f8` is not `api-7d9f8-x2x`)."""
    return re.search(rf"(?<![A-Za-z0-9-]){re.escape(name)}(?![A-Za-z0-9-])", text) is not None


def _pattern(quote: str, flags: int = 0) -> re.Pattern[str]:
    """A quote (normalised) as a pattern that finds it in a text whatever its whitespace."""
    return re.compile(r"\s+".join(re.escape(word) for word in quote.split()), flags)


@dataclass
class Reading:
    """A result as a text to find quotes in, with its records (spans of the text) and the spans
    that only repeat the call's arguments."""

    text: str
    records: list[Record]
    echoes: list[tuple[int, int]] = field(default_factory=list)
    """Sorted and disjoint."""
    keys: list[tuple[int, int, str]] = field(default_factory=list)
    """The spans of a JSON or YAML document's values with the keys that lead to each."""

    @cached_property
    def _lines(self) -> list[tuple[int, int]]:
        return tables.lines_of(self.text)

    @cached_property
    def _line_starts(self) -> list[int]:
        return [line[0] for line in self._lines]

    @cached_property
    def _echo_starts(self) -> list[int]:
        return [span[0] for span in self.echoes]

    def occurrences(self, quote: str) -> Iterator[tuple[int, int]]:
        """Where `quote` (normalised) occurs in the text, whitespace of any kind between its words."""
        if not quote:
            return
        pattern = _pattern(quote)
        position = 0
        while (match := pattern.search(self.text, position)) is not None:
            yield match.start(), match.end()
            position = match.start() + 1

    def own_characters(self, start: int, end: int) -> int:
        """Letters and digits of text[start:end] outside the spans that repeat the call's arguments."""
        count = informative(self.text[start:end])
        index = max(0, bisect.bisect_right(self._echo_starts, start) - 1)
        while index < len(self.echoes) and self.echoes[index][0] < end:
            low, high = self.echoes[index]
            if low < end and high > start:
                count -= informative(self.text[max(low, start) : min(high, end)])
            index += 1
        return count

    def whole_line(self, start: int, end: int) -> bool:
        """Whether text[start:end] is exactly one line of the result (its indentation aside)."""
        return self.line_span(start) == (start, end)

    def line_span(self, position: int) -> tuple[int, int] | None:
        """Where the line the position is in starts and ends, its indentation and trailing spaces aside."""
        line = self._line_at(position)
        if line is None:
            return None
        low, high = line
        text = self.text[low:high]
        return low + len(text) - len(text.lstrip()), high - (len(text) - len(text.rstrip()))

    def line_of(self, position: int) -> str:
        """The (normalised) line the position is in."""
        line = self._line_at(position)
        return normalised(self.text[slice(*line)]) if line is not None else ""

    def place(self, start: int, end: int) -> tuple[Record | None, bool]:
        """The innermost record that holds text[start:end], and whether the span lies outside every
        record (free text). A span that crosses a record's edge is in no record and no free text."""
        holding: Record | None = None
        for record in self.records:
            if record.start <= start and end <= record.end:
                if holding is None or record.end - record.start < holding.end - holding.start:
                    holding = record
            elif record.start < end and start < record.end:
                return None, False
        return holding, holding is None

    def _line_at(self, position: int) -> tuple[int, int] | None:
        index = bisect.bisect_right(self._line_starts, position) - 1
        return self._lines[index] if 0 <= index < len(self._lines) else None


@dataclass
class Source:
    """One tool result of the run with its provenance: the call, its arguments, success or failure."""

    call_id: str
    tool: str
    text: str
    arguments: dict[str, Any]
    ok: bool
    structured: Any = None
    """The server's structured content sent with the text, when it sent one: its string values are
    quotable as the text's are."""
    parameters: tuple[str, ...] = ()
    """The argument names the tool's input schema declares."""

    @cached_property
    def declared(self) -> dict[str, Any]:
        """The call's arguments its tool declares: only these say what the result is about (a server
        ignores an argument it does not declare)."""
        return {key: value for key, value in self.arguments.items() if key in self.parameters}

    def _argument(self, names: frozenset[str]) -> str | None:
        return next(
            (
                value
                for key, value in self.declared.items()
                if _plain(key) in names and isinstance(value, str) and value
            ),
            None,
        )

    @cached_property
    def named(self) -> list[tuple[str, str | None]]:
        """The (name, namespace) of what the call itself named by a declared argument."""
        return [
            (value, self.namespace)
            for key, value in self.declared.items()
            if _plain(key) in _NAME_ARGUMENTS and isinstance(value, str) and value
        ][:1]

    @cached_property
    def namespace(self) -> str | None:
        """The namespace the call was scoped to by a declared argument, if it named one."""
        return self._argument(_NAMESPACE_ARGUMENTS)

    @cached_property
    def kind(self) -> str | None:
        """The kind of resource the call is about: its declared kind argument, else its tool name's word."""
        declared = self._argument(_KIND_ARGUMENTS)
        if declared is not None:
            found = kind_of(declared)
            if found is not None and found != "event":
                return found
        words = [kind_of(word) for word in _tool_words(self.tool)]
        for wanted in ("node", "pod"):  # describe_node lists pods; pods_log is about a pod
            if wanted in words:
                return wanted
        return next((word for word in words if word is not None and word != "event"), None)

    @cached_property
    def reads_logs(self) -> bool:
        """Whether the result is logs (`get_pod_logs`, `pods_log`, `search_logs`): a workload's own
        words, never read as tables, objects or headers (a log line can print anything)."""
        return any(word in ("log", "logs") for word in _tool_words(self.tool))

    @cached_property
    def _searched(self) -> list[str]:
        """What a searching tool (`grep`, `search`, `find` in its name) was asked for: its argument
        strings, which its lines quote when they speak of the search itself."""
        if not _SEARCH_WORDS & set(_tool_words(self.tool)):
            return []
        return [value for value in _argument_strings(self.arguments) if len(value.strip()) >= 2]

    @cached_property
    def searches(self) -> bool:
        """Whether the result is a log search's hits (a logs tool that searches, or names no pod)."""
        return self.reads_logs and (bool(_SEARCH_WORDS & set(_tool_words(self.tool))) or not self.named)

    @cached_property
    def called(self) -> Resource | None:
        """The one resource the call named (by declared arguments): what its free text is about."""
        if not self.named:
            return None
        name, namespace = self.named[0]
        return Resource(self.kind, name, namespace)

    @cached_property
    def readings(self) -> list[Reading]:
        """The text with its records, and for a JSON or YAML result its decoded strings with theirs;
        the structured content's strings with theirs when the text shows no record (the model reads
        the text: a structured content that says otherwise is not what it was shown)."""
        echoes = self._echo_strings
        readings: list[Reading] = []
        if self.reads_logs:
            records = lines.read(self.text, hits_only=True) if self.searches else []
            readings.append(_reading(self.text, records, echoes, self._searched))
        else:
            lined = [*tables.read(self.text, self.kind, self.namespace), *describe.read(self.text, self.kind)]
            document = None if lined else _document(self.text, self.kind, self.namespace)
            if document is not None:
                readings.append(_reading(self.text, document.records, echoes, keys=document.text_keys))
                readings.append(_strings_reading(document, echoes))
            else:
                named_pod = self.kind == "pod" and bool(self.named)
                records = [
                    *lined,
                    *lines.read(self.text, hits_only=named_pod, namespace=self.namespace, pod_rows=not lined),
                    *lines.blocks(self.text),
                ]
                readings.append(_reading(self.text, records, echoes, self._searched))
        if self.structured is not None and self.ok:
            structured = _strings_reading(
                documents.read_value(self.structured, self.kind, self.namespace), echoes
            )
            verdicts: dict[Resource, set[bool | None]] = {}
            for reading in readings:
                for record in reading.records:
                    verdicts.setdefault(record.resource, set()).add(healthy(record))
            structured.records = [
                replace(record, disputed=True) if _disputes(record, verdicts) else record
                for record in structured.records
            ]
            readings.append(structured)
        return readings

    @cached_property
    def unread_records(self) -> list[Record]:
        """The records of the structured content that the text of the same result, which the model
        reads, contradicts: evidence of nothing; they only explain a claim the text does not bear
        out (the two views disagree)."""
        return [record for reading in self.readings for record in reading.records if record.disputed]

    @cached_property
    def records(self) -> list[Record]:
        """Every record of the result, as read from its text or its structured content (none for a
        failure): the resources it shows."""
        if not self.ok:
            return []
        found: dict[tuple[Any, ...], Record] = {}
        for reading in self.readings:
            for record in reading.records:
                if record.disputed:
                    continue
                found.setdefault((record.resource, record.status, record.owners, record.event), record)
        return list(found.values())

    @cached_property
    def _echo_strings(self) -> list[str]:
        """The call's argument strings, in the forms a server may repeat them (plain, repr, JSON)."""
        found: dict[str, None] = {}
        for value in _argument_strings(self.arguments):
            # The harness's own redaction changes an argument a server repeats (`password=...`).
            for form in dict.fromkeys(
                (value, repr(value)[1:-1], json.dumps(value)[1:-1], _REDACTOR.text(value))
            ):
                text = normalised(form).lower()
                if len(text) >= 2:
                    found[text] = None
        return sorted(found, key=len, reverse=True)


_REDACTOR = Redactor()


def _disputes(record: Record, verdicts: dict[Resource, set[bool | None]]) -> bool:
    """Whether the text shows the record's resource healthy where the record shows it unhealthy, or
    the reverse."""
    mine = healthy(record)
    shown = verdicts.get(record.resource, set()) - {None}
    return mine is not None and bool(shown) and mine not in shown


def _tool_words(tool: str) -> list[str]:
    return [word for word in re.split(r"[_\-.\s/]+", tool.lower()) if word]


def _plain(key: Any) -> str:
    return re.sub(r"[_-]", "", str(key).lower())


def _document(text: str, kind: str | None, namespace: str | None) -> documents.Document | None:
    """The result as JSON, or as YAML (called only for a text that holds no table and no describe block)."""
    head = text.lstrip()[:1]
    if head in ("{", "["):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict | list):
            return documents.read_json(text, value, kind, namespace)
    if not re.search(r"^(?:---|(?:- )?[A-Za-z][\w.-]*:)", text, re.MULTILINE):
        return None
    return documents.read_yaml(text, kind, namespace)


def _reading(
    text: str,
    records: list[Record],
    echo_strings: Sequence[str],
    searched: Sequence[str] = (),
    keys: list[tuple[int, int, str]] | None = None,
) -> Reading:
    spans = _echo_spans(text, echo_strings) + _lines_quoting(text, searched)
    return Reading(text, sorted(records, key=lambda r: (r.start, -r.end)), _merged(spans), keys or [])


def _lines_quoting(text: str, searched: Sequence[str]) -> list[tuple[int, int]]:
    """A search's lines that quote what it was asked for (`No lines matching 'OOMKilled' were
    found`): the tool's words about the search, not what it found, all of them echo."""
    spans = []
    for pattern in searched:
        quoted = re.compile(rf"""["'`\u2018\u201c]{re.escape(pattern)}["'`\u2019\u201d]""", re.IGNORECASE)
        for start, end in tables.lines_of(text):
            if quoted.search(text, start, end):
                spans.append((start, end))
    return spans


def _strings_reading(document: documents.Document, echo_strings: Sequence[str]) -> Reading:
    """A document's decoded strings, one a line, with each record over the lines of its strings."""
    starts = []
    position = 0
    for string in document.strings:
        starts.append(position)
        position += len(string) + 1
    starts.append(position)
    records = [
        record.moved(starts[record.start], starts[record.end] - 1) for record in document.string_records
    ]
    keys = [
        (start, start + len(string), keys)
        for start, string, keys in zip(starts[:-1], document.strings, document.keys, strict=True)
        if keys
    ]
    return _reading("\n".join(document.strings), records, echo_strings, keys=keys)


MIN_CUT_ECHO = 12
"""The fewest characters of an argument a server may repeat cut (`"checkout-api-7d9f8c6b..."`) that
still count as the argument repeated."""
_CUT = re.compile(r"\.\.\.|\u2026|[\"'`\]\)]|\s*$")
"""What ends an argument a server repeats cut: an ellipsis, a closing quote or bracket, the line's end."""


def _echo_spans(text: str, echo_strings: Sequence[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    lowered = text.lower()
    for echo in echo_strings:
        pattern = _pattern(echo, re.IGNORECASE)
        spans += [(match.start(), match.end()) for match in pattern.finditer(text)]
        if len(echo) > MIN_CUT_ECHO:  # a name cut at its end; any long part of free text, in any case
            low = echo.lower()
            spans += _cut_echoes(text, lowered, low) if is_name(echo) else _echoed_parts(lowered, low)
    return _merged(spans)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def _cut_echoes(text: str, lowered: str, echo: str) -> list[tuple[int, int]]:
    """Where the text repeats the start of the argument, cut (at least `MIN_CUT_ECHO` characters of
    it, then an ellipsis, a closing quote or the line's end)."""
    spans = []
    head = echo[:MIN_CUT_ECHO]
    position = lowered.find(head)
    while position >= 0:
        length = MIN_CUT_ECHO
        while (
            length < len(echo)
            and position + length < len(lowered)
            and lowered[position + length] == echo[length]
        ):
            length += 1
        end = position + length
        if length < len(echo) and _CUT.match(text, end):
            spans.append((position, end))
        position = lowered.find(head, position + 1)
    return spans


def _echoed_parts(lowered: str, echo: str) -> list[tuple[int, int]]:
    """Where the text repeats a part of a free-text argument (not a name) of at least `MIN_CUT_ECHO`
    characters: its end, its middle, the parts left around what a server masked or cut."""
    spans = []
    covered = -1
    grams: dict[str, int] = {}
    for index in range(len(echo) - MIN_CUT_ECHO + 1):
        grams.setdefault(echo[index : index + MIN_CUT_ECHO], index)
    found = sorted((position, index) for gram, index in grams.items() for position in _all(lowered, gram))
    for position, index in found:
        if position < covered:
            continue
        length = MIN_CUT_ECHO
        while (
            index + length < len(echo)
            and position + length < len(lowered)
            and lowered[position + length] == echo[index + length]
        ):
            length += 1
        spans.append((position, position + length))
        covered = position + length
    return spans


def _all(text: str, part: str) -> Iterator[int]:
    position = text.find(part)
    while position >= 0:
        yield position
        position = text.find(part, position + 1)


def _argument_strings(item: Any) -> Iterator[str]:
    if isinstance(item, dict):
        for value in item.values():
            yield from _argument_strings(value)
    elif isinstance(item, list):
        for value in item:
            yield from _argument_strings(value)
    elif isinstance(item, str):
        yield item


class ToolResult(Protocol):
    """A run's tool result as the evidence records it (`grounding.ToolText`)."""

    @property
    def call_id(self) -> str: ...
    @property
    def tool(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def arguments(self) -> str:
        """The call's arguments as JSON (empty when it had none)."""
        ...

    @property
    def ok(self) -> bool: ...
    @property
    def structured(self) -> Any: ...
    @property
    def parameters(self) -> tuple[str, ...]: ...


def sources_of(results: Iterable[ToolResult]) -> list[Source]:
    """Sources from the run's tool results: call id, tool, text, arguments, whether it succeeded,
    structured content, the tool's declared argument names."""
    sources = []
    for result in results:
        try:
            arguments = json.loads(result.arguments) if result.arguments else {}
        except ValueError:
            arguments = {}
        sources.append(
            Source(
                result.call_id,
                result.tool,
                result.text,
                arguments if isinstance(arguments, dict) else {},
                result.ok,
                result.structured,
                result.parameters,
            )
        )
    return sources


# -- attribution: whether a record (or a call's free text) is about a finding's resource ---------------


@dataclass(frozen=True)
class Subject:
    """The resource a finding is about: its kind (`pod`, `deployment`, ..., `other`), name, namespace."""

    kind: str
    name: str
    namespace: str | None


def kinds_match(subject_kind: str, shown: str | None) -> bool:
    """A finding of kind `other` is any resource; the others must be of their kind, as the record
    says it (a record that cannot say its kind is no pod). A namespace is never a finding."""
    if shown == "namespace":
        return False
    return subject_kind == "other" or shown == subject_kind


def _same_place(subject: Subject, resource: Resource) -> bool:
    return (
        subject.kind == "node"
        or subject.namespace is None
        or resource.namespace is None
        or subject.namespace == resource.namespace
    )


def shows(resource: Resource, subject: Subject) -> bool:
    """Whether a resource a record shows is the finding's resource (name, kind, namespace)."""
    return (
        resource.name == subject.name
        and kinds_match(subject.kind, resource.kind)
        and _same_place(subject, resource)
    )


class Owners:
    """The owners the run's results show for each pod (`ownerReferences`, `pod-template-hash`) and
    for each ReplicaSet (a Deployment's, or another controller's: an Argo Rollout's), and the names
    of every resource they show, by kind."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self._shown: dict[tuple[str, str | None], tuple[list[tuple[str, str]], str | None]] = {}
        self._replicasets: dict[str, list[tuple[str, str]]] = {}
        self.names: dict[str, set[str]] = {}
        """The names of the resources the results show, by kind (`pod`: the pods')."""
        for source in sources:
            for record in source.records:
                resource = record.resource
                if resource.kind is not None:
                    self.names.setdefault(resource.kind, set()).add(resource.name)
                if resource.kind == "pod" and (record.owners or record.template_hash):
                    key = (resource.name, resource.namespace)
                    shown, template_hash = self._shown.get(key, ([], None))
                    self._shown[key] = ([*shown, *record.owners], template_hash or record.template_hash)
                if resource.kind == "replicaset" and not record.event and _shows_metadata(record):
                    # As the result shows it: its owners, or none (a ReplicaSet of its own).
                    self._replicasets.setdefault(resource.name, []).extend(record.owners)

    def _pod(self, pod: str, namespace: str | None) -> tuple[list[tuple[str, str]], str | None] | None:
        return self._shown.get((pod, namespace)) or next(
            (value for (name, _), value in self._shown.items() if name == pod and namespace is None), None
        )

    def of(self, pod: str, namespace: str | None) -> list[tuple[str, str]]:
        """The (kind, name) of the pod's controllers: as shown, else by the names Kubernetes generates;
        a ReplicaSet's own owners, when a result shows them, in place of the Deployment its name says."""
        shown = self._pod(pod, namespace)
        found = owners(pod) if shown is None else owners(pod, shown[0], shown[1])
        replicasets = [name for kind, name in found if kind == "replicaset" and name in self._replicasets]
        if not replicasets:
            return found
        kept = [(kind, name) for kind, name in found if kind != "deployment"]
        return kept + [owner for name in replicasets for owner in self._replicasets[name]]

    def long_running(self, pod: str, namespace: str | None) -> bool:
        """Whether the pod is one its controller keeps running (a finished one is not healthy)."""
        shown = self._pod(pod, namespace)
        return long_running(pod) if shown is None else long_running(pod, shown[0], shown[1])

    def pod_of(self, pod: str, namespace: str | None, subject: Subject) -> bool:
        """Whether the pod belongs to the workload the finding names."""
        if subject.kind not in WORKLOAD_KINDS:
            return False
        return any(
            name == subject.name and owns(kind, subject.kind) for kind, name in self.of(pod, namespace)
        )


def _shows_metadata(record: Record) -> bool:
    """Whether a record is an object that would show its owners if it had any (an API object, a
    describe block), not a table row, which never shows them."""
    return bool(record.owners) or record.template_hash is not None or record.whole_object


def about(resource: Resource, subject: Subject, known: Owners) -> bool:
    """Whether what a record (or a call) shows of `resource` is about the finding's resource: it is
    that resource; or the finding is a pod and the resource is one of its controllers; or the finding
    is a workload and the resource one of its pods. Kinds and namespaces must match."""
    if shows(resource, subject):
        return True
    if not _same_place(subject, resource):
        return False
    if subject.kind == "pod" and resource.kind in OWNER_KINDS:
        return (resource.kind, resource.name) in known.of(subject.name, subject.namespace)
    if resource.kind == "pod":
        return known.pod_of(resource.name, resource.namespace, subject)
    if subject.kind in WORKLOAD_KINDS:  # a Deployment's ReplicaSet (its FailedCreate), a CronJob's Job
        return any(
            name == subject.name and owns(kind, subject.kind)
            for kind, name in controllers_of(resource.kind or "", resource.name)
        )
    return False


def span_about(
    source: Source, reading: Reading, start: int, end: int, subject: Subject, known: Owners
) -> bool:
    """Whether text[start:end] of the result is about the finding's resource: by the record that
    holds it, or, free text, by what the call named; never across records, and never a line that
    names another resource of that kind and not the finding's (a row of another pod in a listing
    the record or the call does not parse, an annotation about another pod) unless it is a log's."""
    record, free = reading.place(start, end)
    if record is not None and record.disputed:
        return False
    if record is not None:
        shown = record.resource
    elif free and source.called is not None:
        shown = source.called
    else:
        return False
    if not about(shown, subject, known):
        return False
    return source.reads_logs or not _names_another(reading, start, end, shown, subject, known)


_TOKEN = re.compile(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?")


def _names_another(
    reading: Reading, start: int, end: int, shown: Resource, subject: Subject, known: Owners
) -> bool:
    """Whether the lines of the span name a resource of the kind shown (one the run's results show,
    or, for pods, a name a controller generated) other than the finding's, and not the finding's."""
    other = _other_named(reading, start, end, shown, known)
    return (
        other is not None
        and other != subject.name
        and not names_in(_lines_around(reading, start, end), subject.name)
    )


AROUND = 400
"""How far either side of a quote in free text its line is read for other names (a one-line result
can be megabytes: only what is near the quote is its context)."""


def _lines_around(reading: Reading, start: int, end: int) -> str:
    """The lines of the span: within the record that holds it (a one-line JSON item is its own
    context, not its neighbours'), or, in free text, at most `AROUND` characters either side; in a
    JSON or YAML document, within the innermost value that holds it, with the keys that lead to that
    value (`{"web-5c6b4d-k8m2n": "CrashLoopBackOff"}` is about that pod, whatever else the line holds)."""
    record, _ = reading.place(start, end)
    if record is not None:
        bottom, top = record.start, record.end
    else:
        bottom, top = max(0, start - AROUND), min(len(reading.text), end + AROUND)
    value = min(
        (span for span in reading.keys if span[0] <= start and end <= span[1]),
        key=lambda span: span[1] - span[0],
        default=None,
    )
    if value is not None:
        bottom, top = max(bottom, value[0]), min(top, value[1])
    low = max(reading.text.rfind("\n", bottom, start) + 1, bottom)
    high = reading.text.find("\n", end, top)
    lines = reading.text[low : high if high >= 0 else top]
    return lines if value is None else f"{lines}\n{value[2]}"


def _other_named(reading: Reading, start: int, end: int, shown: Resource, known: Owners) -> str | None:
    """A resource of the kind shown, other than it, that the lines of the span name while they do not
    name the one shown: one the run's results show, or, for pods, a name a controller generated."""
    tokens = _TOKEN.findall(_lines_around(reading, start, end))
    if shown.name in tokens:
        return None
    same_kind = known.names.get(shown.kind or "", set())
    return next(
        (token for token in tokens if token in same_kind or (shown.kind == "pod" and generated_name(token))),
        None,
    )


def span_subject(source: Source, reading: Reading, start: int, end: int, known: Owners) -> str | None:
    """What text[start:end] is about, to say whose evidence a quote is (None: nothing one resource)."""
    record, free = reading.place(start, end)
    if record is not None and record.disputed:
        return f"{record.resource} as the structured content shows it, which the result's text contradicts"
    shown = record.resource if record is not None else source.called if free else None
    if shown is None:
        return None
    other = None if source.reads_logs else _other_named(reading, start, end, shown, known)
    return (
        f"{shown.kind or 'resource'} {other} (a line of a result about {shown} that names it)"
        if other
        else str(shown)
    )
