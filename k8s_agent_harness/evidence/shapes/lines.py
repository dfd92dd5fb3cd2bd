"""Lines that are a resource by themselves: a node's pods as `namespace/name` lines, a log
search's hits, `namespace/pod:N: text` (the prefix is the search tool's, the text the pod's), pods
printed one a row with no header (`kubectl get pods --no-headers`: `[NAMESPACE] NAME READY STATUS
RESTARTS AGE`), and events printed one a line with no header (`kubectl get events --no-headers`: `[NAMESPACE] [LAST SEEN]
TYPE REASON kind/name MESSAGE`), each about the object it names.

In a pod's own log nothing is structure (a log line can print anything, `namespace/pod:3:`
included): only a search's hits are read, and only from a tool that searches (its call names no
pod); a log's lines are never read as events."""

from __future__ import annotations

import re
from itertools import pairwise

from k8s_agent_harness.evidence.shapes import Record, Resource, is_name, kind_of
from k8s_agent_harness.evidence.shapes.tables import lines_of

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_NAMESPACED = re.compile(rf"\s*({_LABEL})/({_LABEL}(?:\.{_LABEL})*)(:\d+:.*)?\s*")
_AGE = r"(?:(?:\d+[smhdy])+|<unknown>|<invalid>)"
_EVENT = re.compile(
    rf"\s*(?:(?:(?P<namespace>{_LABEL})\s+)?{_AGE}(?:\s+\(x\d+ over {_AGE}\))?\s+)?"
    rf"(?P<type>Normal|Warning)\s+(?P<reason>[A-Z][A-Za-z]*)\s+"
    rf"(?P<kind>[A-Za-z]+)(?:\.[a-z0-9.]+)?/(?P<name>{_LABEL}(?:\.{_LABEL})*)(?:\s+.*?)?\s*"
)
"""An event's line: its NAMESPACE and LAST SEEN when printed (`5m`, `5m (x3 over 10m)`), its TYPE
and REASON, the object (`job/x`, `statefulset.apps/x`), its message. Nothing else may come before
the TYPE: a sentence that mentions `Warning` is no event."""
_POD_ROW = re.compile(
    rf"\s*(?:(?P<namespace>{_LABEL})\s+)?(?P<name>{_LABEL}(?:\.{_LABEL})*)\s+(?P<ready>\d+/\d+)\s+"
    rf"(?P<status>[A-Z][\w:/.-]*)\s+(?P<restarts>\d+(?:\s+\({_AGE} ago\))?)\s+(?P<age>{_AGE})(?:\s+.*)?"
)
"""A pod's row printed with no header (`kubectl get pods --no-headers`, `-A`, `-o wide`): [NAMESPACE]
NAME READY STATUS RESTARTS AGE [IP NODE ...]; its cells are what those columns are."""


def read(text: str, *, hits_only: bool, namespace: str | None = None, pod_rows: bool = True) -> list[Record]:
    """The lines of the text that are pods: `namespace/name` alone (unless `hits_only`), or a
    search hit `namespace/pod:N: ...`; and (unless `hits_only`) the events printed one a line, in
    their NAMESPACE column's namespace, else `namespace` (the one the call declared), and the pods
    printed one a row with no header (unless `pod_rows` is False: the text has tables of its own)."""
    records = []
    for start, end in lines_of(text):
        match = _NAMESPACED.fullmatch(text, start, end)
        if match is None or kind_of(match[1]) is not None or not is_name(match[2]):
            found = None if hits_only else _event(text, start, end, namespace)
            if found is None and pod_rows and not hits_only:
                found = _pod_row(text, start, end, namespace)
            if found is not None:
                records.append(found)
            continue  # `pod/x`, `deployment/y` are references, not a namespace's pods
        if hits_only and match[3] is None:
            continue
        records.append(Record(Resource("pod", match[2], match[1]), start, end))
    return records


def _event(text: str, start: int, end: int, namespace: str | None) -> Record | None:
    match = _EVENT.fullmatch(text, start, end)
    if match is None or kind_of(match["kind"]) in (None, "event") or not is_name(match["name"]):
        return None
    resource = Resource(kind_of(match["kind"]), match["name"], match["namespace"] or namespace)
    status = (("TYPE", match["type"]), ("REASON", match["reason"]))
    return Record(resource, start, end, status, event=True)


def _pod_row(text: str, start: int, end: int, namespace: str | None) -> Record | None:
    match = _POD_ROW.fullmatch(text, start, end)
    if match is None or not is_name(match["name"]):
        return None
    status = tuple((label, match[label.lower()]) for label in ("READY", "STATUS", "RESTARTS"))
    return Record(Resource("pod", match["name"], match["namespace"] or namespace), start, end, status)


_LINK = re.compile(r"\[resource link .*; URI \S+(?: \([^()]*\))?\]")
_EMBEDDED = re.compile(r"\[embedded resource (?P<uri>\S+?)(?: \([^()]*\))?(?:: [^\]]*)?\]")
LINK = Resource("link", "[resource link]", None)
"""What a resource link's line is about: its server's description of a link, no resource."""


def blocks(text: str) -> list[Record]:
    """The parts of a result that are not the cluster's text (as the harness writes MCP content
    blocks): a resource link's line (its name and description are the server's words about a
    link: about no resource), and an embedded resource, from its `[embedded resource URI]` line to
    the next block, about the object its URI names (`.../namespaces/shop/pods/web-1`), when it names
    one."""
    records = []
    spans = lines_of(text)
    for number, (start, end) in enumerate(spans):
        if _LINK.fullmatch(text, start, end):
            records.append(Record(LINK, start, end))
            continue
        embedded = _EMBEDDED.fullmatch(text, start, end)
        if embedded is None or (named := _named_by(embedded["uri"])) is None:
            continue
        last = next(
            (
                spans[other - 1][1]
                for other in range(number + 1, len(spans))
                if _LINK.fullmatch(text, *spans[other]) or _EMBEDDED.fullmatch(text, *spans[other])
            ),
            len(text),
        )
        records.append(Record(named, start, last))
    return records


def _named_by(uri: str) -> Resource | None:
    """The object a URI's path names: its last `kind/name` pair, in the namespace it names."""
    parts = [part for part in re.split(r"[/:?#=&]+", uri) if part]
    found = None
    namespace = None
    for kind_word, name in pairwise(parts):
        kind = kind_of(kind_word)
        if kind == "namespace" and is_name(name):
            namespace = name
        elif kind is not None and kind != "event" and is_name(name):
            found = (kind, name)
    return Resource(found[0], found[1], namespace) if found else None
