"""Which names a report uses, of which kind: generated names in the ways reports write them.

Each sentence is written with names of known kinds in their slots (the oracle): every planted name
must be found as its kind, and nothing else found but a pod-shaped planted name read as a pod too
(any word of three or more dash-separated parts is checked as a pod wherever it stands).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from k8s_agent_harness.evidence import grounding
from k8s_agent_harness.evidence.grounding import NAMESPACE, NODE, POD, Mention, invented_names, mentions
from tests.harness.evidence.test_grounding import evidence

# Words a report's prose uses next to a kind word: never a name, so never a generated one.
_NOT_NAMES = (
    grounding._FUNCTION_WORDS
    | grounding._NAMESPACE_WORDS
    | grounding._NODE_WORDS
    | grounding._POD_WORDS
    | grounding._ENGLISH
    | grounding._OTHER_KINDS
    | set(grounding._KINDS)
    | grounding.BUILT_IN_NAMESPACES
    | {"and", "or", "n"}
)


def _name(pattern: str) -> st.SearchStrategy[str]:
    return st.from_regex(pattern, fullmatch=True).filter(
        lambda name: name not in _NOT_NAMES and not name.startswith(grounding._ENGLISH_PREFIXES)
    )


NAMESPACES = st.one_of(
    _name(r"[a-z]{2}"),  # qa
    _name(r"[a-z][a-z]{2,9}"),  # payments
    _name(r"[a-z][a-z0-9]{1,7}-[a-z0-9]{1,6}"),  # team-a1, shop-api
)
PLAIN_WORDS = _name(r"[a-z]{3,9}")
HOSTS = st.one_of(
    st.builds(
        "ip-10-0-{}-{}.{}.compute.internal".format,
        st.integers(0, 255),
        st.integers(0, 255),
        st.sampled_from(["eu-west-1", "us-east-2", "ap-south-1"]),
    ),
    _name(r"[a-z]{2,6}-[0-9]{1,2}\.[a-z]{2,6}(-[0-9])?\.(net|internal|lan)"),  # rack-7.dc-2.net
)
NODES = st.one_of(
    _name(r"[a-z]{2,6}-worker[0-9]{0,2}"),  # kind-worker2
    _name(r"[a-z]{2,8}-[0-9]{1,3}"),  # worker-7
    _name(r"[a-z]{2,6}-[0-9]\.[a-z]{2,4}"),  # rack-7.dc: one dot and a dash, no instance type
    st.builds(
        "ip-10-0-{}-{}.{}.compute.internal".format,
        st.integers(0, 255),
        st.integers(0, 255),
        st.sampled_from(["eu-west-1", "us-east-2", "ap-south-1"]),
    ),
    _name(r"gke-[a-z]{3,6}-default-pool-[0-9a-f]{8}-[a-z0-9]{4}"),
)
POD_SHAPED = _name(r"[a-z]{2,8}(?:-[a-z]{2,6})?-[0-9a-f]{8,10}-[a-z0-9]{5}")  # checkout-7d9f8c6b5-x1z2q
SHORT_POD = _name(r"[a-z]{2,8}-[0-9]")  # db-0: a pod's name only next to a kind word
PODS = st.one_of(POD_SHAPED, SHORT_POD)
ANY_POD = "any pod"
"""A slot where only a pod-shaped name is found: no kind word says what the name is."""
DASHED_NAMESPACE = "dashed namespace"
"""A slot where a namespace is found wherever it stands next to the word: its dash says it is a name."""
HOST = "host"
"""A slot where a node is found by its shape alone: a host name of three or more labels."""

# Each shape of sentence, with the kind of each of its slots.
SHAPES: list[tuple[str, dict[str, str]]] = [
    ("In the {a} namespace two pods crash.", {"a": NAMESPACE}),
    ("namespace {a} has one crashing pod.", {"a": NAMESPACE}),
    ("Namespace: {a}", {"a": NAMESPACE}),
    ("**Namespace:** `{a}`", {"a": NAMESPACE}),
    ("Run `kubectl logs {p} -n {a}`.", {"a": NAMESPACE, "p": ANY_POD}),
    ("kubectl get events --namespace={a}", {"a": NAMESPACE}),
    ("Namespaces {a} and {b} were checked.", {"a": NAMESPACE, "b": NAMESPACE}),
    ("Pods in namespace {a} restart.", {"a": NAMESPACE}),
    ("Affected namespace: {a}", {"a": NAMESPACE}),
    ("Two pods pending - namespace {a} is the one.", {"a": NAMESPACE}),
    ("The **namespace** {a} has quotas.", {"a": NAMESPACE}),
    ("An out-of-memory kill, run with --dry-run-server, v1.28.3-eks-5e0fdde, then {q}.", {"q": ANY_POD}),
    ("Checked namespace {a} twice.", {"a": NAMESPACE}),
    ("- namespace {a} has two pending pods", {"a": NAMESPACE}),
    ("* namespace {a} has two pending pods", {"a": NAMESPACE}),
    ("Summary. Namespace {a} is degraded.", {"a": NAMESPACE}),
    ("Two pods (namespace {a}) restart.", {"a": NAMESPACE}),
    ("-n {a} was given.", {"a": NAMESPACE}),
    ("Use `-n {a}`.", {"a": NAMESPACE}),
    ("Namespaces {a}, {b}, and {c} were checked.", {"a": NAMESPACE, "b": NAMESPACE, "c": NAMESPACE}),
    ("Namespaces {a} or {b} hold it.", {"a": NAMESPACE, "b": NAMESPACE}),
    ("See https://grafana.example.com/d/{p} and {q}.", {"q": ANY_POD}),
    ("The {a}, {b} and {c} namespaces are degraded.", {"a": NAMESPACE, "b": NAMESPACE, "c": NAMESPACE}),
    ("Pods in namespaces {a}, {b} & {c} restart.", {"a": NAMESPACE, "b": NAMESPACE, "c": NAMESPACE}),
    ("{a}, {b} and {c} namespaces are degraded.", {"a": NAMESPACE, "b": NAMESPACE, "c": NAMESPACE}),
    ("{a} or {b} namespaces hold it.", {"a": NAMESPACE, "b": NAMESPACE}),
    ("Look at namespaces {a} and", {"a": NAMESPACE}),
    ("In namespaces {a}; and {w} too.", {"a": NAMESPACE}),
    ("{a}/{p} crashes.", {"a": NAMESPACE, "p": POD}),
    ("`{a}/{p}` crashes.", {"a": NAMESPACE, "p": POD}),
    ("Look at ns/{a} first.", {"a": NAMESPACE}),
    (
        "| Namespace | Pod |\n|---|---|\n| {a} | {p} |\n| `{b}` | {q} |",
        {"a": NAMESPACE, "b": NAMESPACE, "p": ANY_POD, "q": ANY_POD},
    ),
    ("Node {m} is NotReady.", {"m": NODE}),
    ("The {m} node is tainted.", {"m": NODE}),
    ("Drain node/{m} first.", {"m": NODE}),
    ("**Node:** `{m}`", {"m": NODE}),
    ("Nodes {m} and {k} are fine.", {"m": NODE, "k": NODE}),
    ("Check nodes {m}, {k} and {j}.", {"m": NODE, "k": NODE, "j": NODE}),
    ("| Pod | Node |\n|:--|:--|\n| {p} | {m} |", {"p": ANY_POD, "m": NODE}),
    ("| Pod | Restarts in 1h | Node |\n|---|---|---|\n| {p} | 3 restarts | {m} |", {"p": ANY_POD, "m": NODE}),
    ("pod {p} restarts.", {"p": POD}),
    ("See pod/{p}.", {"p": POD}),
    ("Pods {p} and {q} are Pending.", {"p": POD, "q": POD}),
    ("{h} has DiskPressure.", {"h": HOST}),
    ("Nodes {h} and {k} are NotReady.", {"h": HOST, "k": NODE}),
    ("Two nodes ({h}) are NotReady.", {"h": HOST}),
    ("| Node |\n|---|\n| {m} |\n\nand then\n\n| Namespace |\n|---|\n| {a} |", {"m": NODE, "a": NAMESPACE}),
    (
        "  | NS | Pod |\n  | - | - |\n  | {a} | {p} |\n  | N/A | {q} |",
        {"a": NAMESPACE, "p": ANY_POD, "q": ANY_POD},
    ),
    (
        "| Pod | Node name |\n|---|---|\n| {p} |\n| {q} | **{m}**, tainted |",
        {"p": ANY_POD, "q": ANY_POD, "m": NODE},
    ),
    # Where a host name (h) is no node: in a URL, a service's DNS name, an address, an image.
    ("Scrape https://{h}/metrics now.", {}),
    ("Call {h}.svc to check.", {}),
    ("Call {h}.svc.cluster.local to check.", {}),
    ("Call {h}.local to check.", {}),
    ("Call {h}.svc.corp to check.", {}),
    ("/{h} is a path.", {}),
    ("Mail ops@{h} now.", {}),
    ("Pull {h}/app:v1 now.", {}),
    # Nor a dotted name without a dash, nor one whose first label is a word or a number.
    ("Resolve {w}1.example.com now.", {}),
    ("Call {w}.eu-west-1.example.net now.", {}),
    ("Ping 10-0-1.{w}.net now.", {}),
    ("Tables need a delimiter row:\n| Node |\n| {m} |", {}),
    ("{a} namespace is degraded.", {"a": NAMESPACE}),
    ("**Namespace:** `{a}` is degraded", {"a": NAMESPACE}),
    ("Every namespace `{a}` is fine.", {"a": NAMESPACE}),
    ("Every namespace {d} is fine.", {"d": DASHED_NAMESPACE}),
    # Where a namespace/pod pair is no pair: a path, an address, a bucket, an image's digest.
    ("/{w}/{p} holds the logs.", {"p": ANY_POD}),
    ("{w}/{p}/logs holds them.", {"p": ANY_POD}),
    ("Read ~/.{w}/{p} first.", {"p": ANY_POD}),
    ("Copy from gs:{w}/{p} now.", {"p": ANY_POD}),
    ("Push to ops@{w}/{p} now.", {"p": ANY_POD}),
    ("Pin {w}/{p}@v2 now.", {"p": ANY_POD}),
    ("Its logs are under pod/", {}),
    ("Roll back deployment/{s} now.", {}),
    ("Check Shop/{p} now.", {"p": ANY_POD}),
    ("Pull {w}/{p}:latest now.", {"p": ANY_POD}),
    ("Pull {w}/{p}:V2 now.", {"p": ANY_POD}),
    ("See {w}/web-api for it.", {}),
    # Tables: the first with neither column, a line before them, cells that name nothing.
    ("| note |\n\n| Node |\n|---|\n| {m} |", {"m": NODE}),
    ("| Pod |\n|---|\n| {p} |\n\n| Node |\n|---|\n| {m} |", {"p": ANY_POD, "m": NODE}),
    ("Nodes:\n\n| Node |\n|---|\n| {m} |", {"m": NODE}),
    ("| Pod | Node |\n|---|---|\n| {p} |  |", {"p": ANY_POD}),
    (
        "| Namespace | Node |\n|---|---|\n| unknown | cluster-wide |\n| kube-system | 10.0.0.7 |\n| {a} | {m} |",
        {"a": NAMESPACE, "m": NODE},
    ),
    ("| Namespace |\n|---|\n| {w}.v2 |", {}),
    # Names no namespace can have, and words that are no names: a dot, one letter, a built-in
    # namespace, a kind, an English compound; a plain word as a pod, a number and a dot as a node.
    ("In namespace {w}.v2 two pods.", {}),
    ("In namespace q, two pods.", {}),
    ("In namespace kube-system and namespace default.", {}),
    ("Every ns namespace is fine.", {}),
    ("The deployment namespace is fine.", {}),
    ("The per-{w} namespace is fine.", {}),
    ("The pod {w}1 restarted.", {}),
    ("Node m5.{w} is an instance type.", {}),
    # Where a plain word (w) is read as no name: it ends a phrase, or follows a flag other than -n.
    ("The last n {w} pods restarted.", {}),
    ("Run `kubectl logs -f {w}`.", {}),
    ("Every namespace {w} fine.", {}),
    ("Done. Every namespace {w} fine.", {}),
    ("Every namespace **{w}** is fine.", {}),
    ("Which nodes {w} ready?", {}),
    ("The pod {w} restarted.", {}),
]


def apart(name: str, others: Iterable[str]) -> bool:
    """Whether a name is no part of another of the sentence (`aa-0` is a word of `aa-0.aa.net`)."""
    return all(name not in other and other not in name for other in others)


@st.composite
def sentences(draw: st.DrawFn, shape: tuple[str, dict[str, str]]) -> tuple[str, set[Mention]]:
    text, slots = shape
    strategies = {
        NAMESPACE: NAMESPACES,
        DASHED_NAMESPACE: _name(r"[a-z][a-z0-9]{1,7}-[a-z0-9]{1,6}"),
        NODE: NODES,
        POD: PODS,
        ANY_POD: POD_SHAPED,
        HOST: HOSTS,
    }
    names: dict[str, str] = {}
    for slot, kind in slots.items():
        names[slot] = draw(strategies[kind].filter(lambda name: apart(name, names.values())))
    for slot in re.findall(r"\{(\w)\}", text):
        if slot not in names:  # a word where no name is read: a plain word, or a pod inside a URL
            unread = {"p": POD_SHAPED, "q": POD_SHAPED, "s": SHORT_POD, "h": HOSTS}.get(slot, PLAIN_WORDS)
            names[slot] = draw(unread.filter(lambda name: apart(name, names.values())))
    read_as = {ANY_POD: POD, HOST: NODE, DASHED_NAMESPACE: NAMESPACE}
    planted = {Mention(names[slot], read_as.get(kind, kind)) for slot, kind in slots.items()}
    return text.format(**names), planted


SHAPE_IDS = [re.sub(r"\W+", "-", text).strip("-")[:40] for text, _ in SHAPES]


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@settings(max_examples=12)
@given(data=st.data())
def test_every_name_a_sentence_holds_is_found_as_its_kind_and_nothing_else(
    shape: tuple[str, dict[str, str]], data: st.DataObject
) -> None:
    answer, planted = data.draw(sentences(shape))

    found = set(mentions(answer))

    assert planted <= found, answer
    assert found - planted <= {Mention(m.name, POD) for m in planted}, answer


@settings(max_examples=150)
@given(st.sampled_from(SHAPES).flatmap(sentences), st.sampled_from(["-x9", "x", "0"]))
def test_a_node_or_namespace_the_tools_showed_only_inside_a_longer_name_is_invented(
    written: tuple[str, set[Mention]], longer: str
) -> None:
    answer, planted = written
    shown = "\n".join(f"NAME {m.name}{longer}" for m in planted)

    assert invented_names(answer, evidence(shown)) == sorted({m.name for m in planted if m.kind != POD})
    assert invented_names(answer, evidence("\n".join(f"NAME {m.name}" for m in planted))) == []
