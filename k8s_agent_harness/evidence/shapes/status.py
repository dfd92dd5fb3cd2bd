"""A status claim, word by word, against what a record's status fields show; and what shows a
resource healthy.

Text is NFKC-normalised first; a word with anything outside ASCII left (a Cyrillic letter
that looks like a Latin one) can be no status Kubernetes printed, so it is never verified. Words are compared in
lowercase with their hyphens dropped (`oom-killed` is `oomkilled`, which a Running pod does not
show). Every word of a claim must be a value or a label of the resource's status fields, or one of
a few words that join them (`and`, `in`, `restarts`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from k8s_agent_harness.evidence.shapes import Record, folded

_WORD = re.compile(r"[^\s,;()\[\]{}\"'`=]+")
_EDGE = ".:!?"
CONNECTIVES = frozenset(
    "and with in of the a an since for after at on by to or is are was its has have times restart restarts "
    "restarted count container containers pod condition conditions but yet currently now".split()
)
"""Words a status may use beside the fields' labels and values (`14 restarts in 3h`)."""
UNHEALTHY = frozenset(
    """
    crashloopbackoff error oomkilled pending failed imagepullbackoff errimagepull invalidimagename evicted
    notready unknown createcontainerconfigerror createcontainererror runcontainererror backoff
    unschedulable deadlineexceeded backofflimitexceeded preempted nodelost containerstatusunknown
    init:error init:crashloopbackoff init:imagepullbackoff init:errimagepull schedulingdisabled
    """.split()
)
"""Values a status field shows for a resource that is not healthy."""
_READY = re.compile(r"(\d+)/(\d+)")
_DONE = frozenset({"completed", "succeeded"})
_READY_LABELS = frozenset({"ready", "containersready"})
_PRESSURE_LABELS = frozenset({"memorypressure", "diskpressure", "pidpressure", "networkunavailable"})
"""A node's conditions that say it is in trouble when True."""


@lru_cache(maxsize=65_536)
def words(text: str) -> tuple[str, ...]:
    """The words of a text as a status is compared: NFKC, lowercase, hyphens dropped, edge
    punctuation stripped (`Running.`); a word left with non-ASCII characters is kept as it is, to fail."""
    return tuple(word for _, word in _written_words(text))


def _written_words(text: str) -> list[tuple[str, str]]:
    """Each word as written, with its compared form."""
    return [(written, word) for written, word, _ in _phrased_words(text)]


_BREAK = re.compile(r"[,;()\[\]{}|]")


def _phrased_words(text: str) -> list[tuple[str, str, bool]]:
    """Each word as written, its compared form, and whether it is joined to the word before it (no
    comma, semicolon, bracket or full stop between them: `Ready False` are joined, `not Ready,
    OOMKilled` are not)."""
    found: list[tuple[str, str, bool]] = []
    text = folded(text)
    previous_end = 0
    previous_raw = ""
    for match in _WORD.finditer(text):
        raw = match[0]
        word = raw.lower().replace("-", "").strip(_EDGE)
        if word:
            joined = (
                bool(found)
                and not _BREAK.search(text, previous_end, match.start())
                and not previous_raw.endswith((".", "!", "?"))
            )
            found.append((raw.strip(_EDGE), word, joined))
            previous_raw = raw
        previous_end = match.end()
    return found


HISTORY_WORDS = frozenset("last previous previously before earlier was were ago history laststate".split())
"""Words that say a claim tells what happened to a resource, not how it is now."""
_FRACTION = re.compile(r"\d+/\d+")
_DURATION = re.compile(r"(?:\d+[smhdy])+")


@dataclass(frozen=True)
class _Field:
    labels: frozenset[str]
    values: frozenset[str]
    now: bool
    """How the resource is now (not an event about it, not its last state)."""


_COUNTED = re.compile(r"(\d+)\s+([A-Za-z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*)?)")
_PARTS = re.compile(r"\s*[|/]\s*")


def _fields(records: Iterable[Record]) -> list[_Field]:
    found = []
    for record in records:
        for label, value in record.status:
            labels = frozenset(words(label))
            now = not record.event and not any(word.startswith("last") or word == "event" for word in labels)
            found.append(_Field(labels, frozenset(words(value)), now))
            # A value that is counts with their names (`3 desired | 1 updated | 2 unavailable`,
            # `0 Active / 1 Failed`): each count is a field of its own, labelled by its name.
            parts = _PARTS.split(value.strip())
            counted = [_COUNTED.fullmatch(part) for part in parts]
            if len(parts) >= 2 and all(counted):
                for match in counted:
                    assert match is not None
                    found.append(_Field(labels | frozenset(words(match[2])), frozenset({match[1]}), now))
    return found


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def names_label(word: str, labels: Iterable[str]) -> bool:
    """Whether a claim's word names a field by its label: the label's word itself, its plural, or a
    part a compound label begins or ends with (`restarts`: `restartCount`; `state`: `lastState`)."""
    stem = _stem(word)
    for label in labels:
        if label == word or _stem(label) == stem:
            return True
        if len(stem) >= 4 and (label.startswith(stem) or label.endswith(stem)):
            return True
    return False


@dataclass
class Unshown:
    """What a status claim says that the records do not show (docs/report.md, "Status")."""

    missing: list[str]
    """Words (as written) no status field of the resource shows, or not in the field the claim names."""
    stated: bool
    """Whether it states a value at all (column labels alone, `READY STATUS`, state nothing)."""
    past: list[str]
    """Words only its history shows (its last state, an event), given as how it is now: no value of
    now beside them (for a resource shown unhealthy), no word saying they are history."""


def unshown(claim: str, records: Sequence[Record]) -> Unshown:
    """A status claim checked field by field against the records' status fields.

    Each value the claim states must be a value of a field of the resource; a value written right
    after a field's label (`MemoryPressure True`, `READY 0/1`, `Exit Code 2`) must be that field's;
    a number must be in a field whose label the claim names beside it (`2 restarts`: the restart
    count, not the exit code), or anywhere in the claim for a number alone (`READY 0/1` aside, a
    bare number states nothing). A label written with no value of its own claims that the condition
    holds (`Running, Ready`: a Ready condition True, a READY 1/1; `not Ready`: the reverse).

    The claim must state how the resource is now: a value only its history shows (its last state,
    an event) counts beside a value it shows now, for a resource shown unhealthy now, or when the
    claim says it is history (`last`, `previously`); alone, only for a resource nothing shows but
    its history."""
    fields = _fields(records)
    values = {word for field in fields for word in field.values}
    labels = {word for field in fields for word in field.labels}
    phrased = _phrased_words(claim)
    written_words = [(written, word) for written, word, _ in phrased]
    claimed = [word for _, word in written_words]
    joined = [together for _, _, together in phrased] + [False]
    history_said = bool(HISTORY_WORDS & set(claimed))
    shown_now = any(field.now for field in fields)
    unhealthy_now = any(healthy(record) is False for record in records)
    missing: list[str] = []
    history: list[str] = []
    stated_now = False
    for index, (written, word) in enumerate(written_words):
        before = claimed[index - 1] if joined[index] else None
        if not word.isascii():
            missing.append(written)
        elif word in _NEGATIONS:
            counted = _none_of(index, claimed, joined, fields, labels)
            if counted is False:
                missing.append(f"{written} {written_words[index + 1][0]}")  # `no restarts` for a pod with 9
            elif counted:
                stated_now = True
        elif word not in values:
            if word in CONNECTIVES or word in HISTORY_WORDS:
                continue
            negated = before in _NEGATIONS
            label = word
            if word.startswith("not") and not names_label(word, labels) and names_label(word[3:], labels):
                label, negated = word[3:], True  # `NotReady`: not Ready
            if before in _NEGATIONS and not names_label(label, labels):
                continue  # `not Running` for a pod that shows no Running: true, and states nothing
            holds = (
                _holds(label, index, claimed, joined, fields, negated=negated)
                if names_label(label, labels)
                else False
            )
            if holds is False:
                missing.append(written)  # not a label, or `Ready` for a pod whose Ready is False
            elif holds:
                stated_now = True  # `Ready` for a node whose Ready condition is True
        elif before in _NEGATIONS and any(word in field.values for field in fields if field.now):
            missing.append(f"{written_words[index - 1][0]} {written}")  # `not Running` for a Running pod
        else:
            candidates = _bound(word, index, claimed, joined, fields, values, labels)
            if candidates is None:
                missing.append(written)
            elif any(field.now for field in candidates):
                stated_now = True
            else:
                history.append(written)
    if not shown_now:  # nothing shows it now but its history: that is what there is to say
        return Unshown(list(dict.fromkeys(missing)), bool(history), [])
    allowed = history_said or (stated_now and unhealthy_now)
    past = [] if allowed else list(dict.fromkeys(history))
    return Unshown(list(dict.fromkeys(missing)), stated_now or (allowed and bool(history)), past)


_NEGATIONS = frozenset({"not", "no"})


def _none_of(
    index: int, claimed: list[str], joined: list[bool], fields: list[_Field], labels: set[str]
) -> bool | None:
    """What `no` before a counted field's label claims (`no restarts`: a count of 0): whether it
    holds; None when it is no count (`not Ready` is a label's negation, checked with the label)."""
    if index + 1 >= len(claimed) or not joined[index + 1] or claimed[index] != "no":
        return None
    label = claimed[index + 1]
    if not names_label(label, labels):
        return None
    counts = [
        next((value for value in field.values if value.isdigit()), None)
        for field in fields
        if field.now and names_label(label, field.labels)
    ]
    counts = [count for count in counts if count is not None]
    if not counts:
        return None
    return all(count == "0" for count in counts)


_TRUE = frozenset({"true", "yes"})


def _bound(
    word: str,
    index: int,
    claimed: list[str],
    joined: list[bool],
    fields: list[_Field],
    values: set[str],
    labels: set[str],
) -> list[_Field] | None:
    """The fields a value of the claim may be (None: none it may be): those whose label the word
    before it names, if it names one; for a number, those whose label the claim names beside it."""
    candidates = [field for field in fields if word in field.values]
    before = claimed[index - 1] if joined[index] else None
    after = claimed[index + 1] if joined[index + 1] else None
    if before is not None and before not in HISTORY_WORDS and names_label(before, labels):
        named = [field for field in candidates if names_label(before, field.labels)]
        if named:
            return named
        if before not in values:
            return None  # `MemoryPressure True` where MemoryPressure is False
    if not word[:1].isdigit():  # a number (`14`, `0/1`, `3h`), not `init:0/1`
        return candidates
    if after is not None and names_label(after, labels):
        named = [field for field in candidates if names_label(after, field.labels)]
        return named or None  # `2 restarts` where only the exit code is 2
    named = [field for field in candidates if any(names_label(other, field.labels) for other in claimed)]
    if not named and _FRACTION.fullmatch(word):
        named = [field for field in candidates if "ready" in field.labels]
    if not named and _DURATION.fullmatch(word):
        named = candidates  # `9 restarts in 41m`: a time the resource shows, whichever field
    return named or None  # a number whose field the claim does not name


def _holds(
    label: str, index: int, claimed: list[str], joined: list[bool], fields: list[_Field], negated: bool
) -> bool | None:
    """Whether a label the claim writes holds as the claim says (None: it claims nothing by itself).
    A label followed by a value of its fields is that value's (checked with it); a label of
    true/false or N/M fields written alone claims True / N of N (`not` before it: the reverse); any
    other label is a name."""
    following = None
    for at in range(index + 1, len(claimed)):
        if not joined[at]:
            break
        if claimed[at] not in CONNECTIVES:
            following = claimed[at]
            break
    named = [field for field in fields if names_label(label, field.labels) and field.now]
    if following is not None and any(following in field.values for field in named):
        return None
    preceding = claimed[index - 1] if joined[index] else None
    if preceding is not None and any(preceding in field.values for field in named):
        return None  # `0/1 ready`, `9 restarts`: the value's name, checked with the value
    labels = {word for field in fields for word in field.labels}
    if following is not None and following not in _NEGATIONS and names_label(following, labels):
        return None  # labels in a row (`READY STATUS`): a header, no claim
    kinds = [kind for kind in (_truth(field) for field in named) if kind is not None]
    if not kinds:  # no true/false or N/M field of that name (a reason, a count): a name, no claim
        return None
    # Every readiness field must hold for `Ready` (a pod is ready when all its containers are); one
    # that does not is enough for `not Ready`.
    return any(not kind for kind in kinds) if negated else all(kinds)


def _truth(field: _Field) -> bool | None:
    """Whether a true/false or N/M field holds (None: it is neither)."""
    if field.values <= _TRUE | {"false", "no"} and field.values:
        return bool(field.values & _TRUE)
    fraction = next((value for value in field.values if _FRACTION.fullmatch(value)), None)
    if fraction is not None and len(field.values) == 1:
        ready, total = fraction.split("/")
        return ready == total
    return None


def healthy(record: Record, long_running: bool = False) -> bool | None:
    """Whether the record shows its resource healthy (None: it shows no status, or is an event).
    A finished pod is healthy only when it may finish: not the pod of a controller that keeps its
    pods running (`long_running`: a ReplicaSet's, a StatefulSet's, a DaemonSet's)."""
    if record.event or not record.status:
        return None
    shown = {word for _, value in record.status for word in words(value)}
    if shown & _DONE and "failed" not in shown:  # a finished pod's containers are not ready, and need not be
        return not long_running
    for label, value in record.status:
        label_words = set(words(label))
        if "event" in label_words or any(word.startswith("last") for word in label_words):
            continue  # what happened to it (an event, its last state), not how it is
        for word in words(value):
            if word in UNHEALTHY:
                return False
            if label_words & _READY_LABELS and word == "false":
                return False
            if label_words & _PRESSURE_LABELS and word == "true":
                return False
        ready = _READY.fullmatch(value.strip())
        if ready and label_words & {"ready"} and int(ready[1]) < int(ready[2]):
            return False
    return True
