"""Lines that are a resource by themselves: a node's pods as `namespace/name` lines, and a log
search's hits, `namespace/pod:N: text` (the prefix is the search tool's, the text the pod's).

In a pod's own log nothing is structure (a log line can print anything, `namespace/pod:3:`
included): only a search's hits are read, and only from a tool that searches (its call names no
pod)."""

from __future__ import annotations

import re

from k8s_agent_harness.shapes import Record, Resource, is_name, kind_of
from k8s_agent_harness.shapes.tables import lines_of

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_NAMESPACED = re.compile(rf"\s*({_LABEL})/({_LABEL}(?:\.{_LABEL})*)(:\d+:.*)?\s*")


def read(text: str, *, hits_only: bool) -> list[Record]:
    """The lines of the text that are pods: `namespace/name` alone (unless `hits_only`), or a
    search hit `namespace/pod:N: ...`."""
    records = []
    for start, end in lines_of(text):
        match = _NAMESPACED.fullmatch(text, start, end)
        if match is None or kind_of(match[1]) is not None or not is_name(match[2]):
            continue  # `pod/x`, `deployment/y` are references, not a namespace's pods
        if hits_only and match[3] is None:
            continue
        records.append(Record(Resource("pod", match[2], match[1]), start, end))
    return records
