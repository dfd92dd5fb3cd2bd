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


def shown_words(records: Iterable[Record]) -> tuple[set[str], set[str]]:
    """The values and the labels the records' status fields show, as words."""
    values: set[str] = set()
    labels: set[str] = set()
    for record in records:
        for label, value in record.status:
            values.update(words(value))
            labels.update(words(label))
    return values, labels


def unshown(claim: str, records: Sequence[Record]) -> tuple[list[str], bool]:
    """The words of a status claim (as written) that the records do not show, and whether it states any
    value at all (column labels alone, `READY STATUS`, state nothing)."""
    values, labels = shown_words(records)
    missing: list[str] = []
    stated = False
    for written, word in dict.fromkeys(_written_words(claim)):
        if not word.isascii():
            missing.append(written)
        elif word in values:
            stated = True
        elif word not in labels and word not in CONNECTIVES:
            missing.append(written)
    return missing, stated


def healthy(record: Record) -> bool | None:
    """Whether the record shows its resource healthy (None: it shows no status, or is an event)."""
    if record.event or not record.status:
        return None
    shown = {word for _, value in record.status for word in words(value)}
    if shown & _DONE and "failed" not in shown:  # a finished pod's containers are not ready, and need not be
        return True
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
