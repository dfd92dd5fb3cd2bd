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

from k8s_agent_harness.shapes import Record, folded

_WORD = re.compile(r"[^\s,;()\[\]{}\"'`]+")
_EDGE = ".:!?"
CONNECTIVES = frozenset(
    "and with in of the a an since for after at on by to or is are was its has have times restart restarts "
    "restarted count container containers pod condition conditions".split()
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


def words(text: str) -> list[str]:
    """The words of a text as a status is compared: NFKC, lowercase, hyphens dropped, edge
    punctuation stripped (`Running.`); a word left with non-ASCII characters is kept as it is, to fail."""
    return [word for _, word in _written_words(text)]


def _written_words(text: str) -> list[tuple[str, str]]:
    """Each word as written, with its compared form."""
    found = []
    for raw in _WORD.findall(folded(text)):
        word = raw.lower().replace("-", "").strip(_EDGE)
        if word:
            found.append((raw.strip(_EDGE), word))
    return found


HISTORY_WORDS = frozenset("last previous previously before earlier was were ago history laststate".split())
"""Words that say a claim tells what happened to a resource, not how it is now."""
_FRACTION = re.compile(r"\d+/\d+")


@dataclass(frozen=True)
class _Field:
    labels: frozenset[str]
    values: frozenset[str]
    now: bool
    """How the resource is now (not an event about it, not its last state)."""


def _fields(records: Iterable[Record]) -> list[_Field]:
    found = []
    for record in records:
        for label, value in record.status:
            labels = frozenset(words(label))
            now = not record.event and not any(word.startswith("last") for word in labels)
            found.append(_Field(labels, frozenset(words(value)), now))
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
    """Words only its history shows (its last state, an event), for a resource shown healthy now and
    a claim that does not say it is history."""


def unshown(claim: str, records: Sequence[Record]) -> Unshown:
    """A status claim checked field by field against the records' status fields.

    Each value the claim states must be a value of a field of the resource; a value written right
    after a field's label (`MemoryPressure True`, `READY 0/1`, `Exit Code 2`) must be that field's;
    a number must be in a field whose label the claim names beside it (`2 restarts`: the restart
    count, not the exit code), or anywhere in the claim for a number alone (`READY 0/1` aside, a
    bare number states nothing). A value only the resource's history shows (its last state, an
    event) states how it is now only when the resource is shown unhealthy now, when nothing shows it
    now but its events, or when the claim says it is history (`last`, `previously`)."""
    fields = _fields(records)
    values = {word for field in fields for word in field.values}
    labels = {word for field in fields for word in field.labels}
    claimed = [word for _, word in _written_words(claim)]
    history_said = bool(HISTORY_WORDS & set(claimed))
    shown_now = any(field.now for field in fields)
    unhealthy_now = any(healthy(record) is False for record in records)
    history_counts = history_said or unhealthy_now or not shown_now
    missing: list[str] = []
    past: list[str] = []
    stated = False
    for index, (written, word) in enumerate(_written_words(claim)):
        if not word.isascii():
            missing.append(written)
            continue
        if word not in values:
            if word not in labels and word not in CONNECTIVES and word not in HISTORY_WORDS:
                missing.append(written)
            continue
        candidates = [field for field in fields if word in field.values]
        before = claimed[index - 1] if index else None
        after = claimed[index + 1] if index + 1 < len(claimed) else None
        bound = False
        if before is not None and before not in HISTORY_WORDS and names_label(before, labels):
            named = [field for field in candidates if names_label(before, field.labels)]
            if named:
                candidates, bound = named, True
            elif before not in values:
                missing.append(written)  # `MemoryPressure True` where MemoryPressure is False
                continue
        if any(character.isdigit() for character in word) and not bound:
            if after is not None and names_label(after, labels):
                named = [field for field in candidates if names_label(after, field.labels)]
                if not named:
                    missing.append(written)  # `2 restarts` where only the exit code is 2
                    continue
                candidates = named
            else:
                named = [
                    field
                    for field in candidates
                    if any(names_label(other, field.labels) for other in claimed)
                ]
                if not named and _FRACTION.fullmatch(word):
                    named = [field for field in candidates if "ready" in field.labels]
                if not named:
                    missing.append(written)  # a number whose field the claim does not name
                    continue
                candidates = named
        if any(field.now for field in candidates):
            stated = True
        elif history_counts:
            stated = True
        else:
            past.append(written)
    return Unshown(list(dict.fromkeys(missing)), stated, list(dict.fromkeys(past)))


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
        ready = _READY.fullmatch(value.strip())
        if ready and label_words & {"ready"} and int(ready[1]) < int(ready[2]):
            return False
    return True
