"""How the playbook reads a question: the namespaces it names (with or without the word
"namespace"), the workloads it names (by name, by the words of their name, by their name's first
word, or beside their kind: "the billing-api deployment"), the pods or nodes it names, whether it
asks about a namespace as a whole, about nodes, about restarts, and whether it is about the cluster at
all. Only the question's wording is read here: never a fixed name.

A question about restarts asks which pods restarted, how often or when ("which pods restarted
today", "what restarted?", "any restarts in staging?", "how many times did kafka restart?"); a
question that names restarting as a symptom and asks why or what is wrong ("inventory-sync keeps
restarting. Which pods are unhealthy?") is a diagnosis and is not one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

WHOLE_CLUSTER = re.compile(
    r"(?i)\b(?:all|every|each|any|across|other)\s+(?:of\s+)?(?:the\s+|my\s+)?namespaces?\b"
    r"|\bcluster[- ]wide\b|\b(?:whole|entire)\s+cluster\b"
)

_POD_NAME = re.compile(r"(?<![\w.-])[a-z0-9]+(?:-[a-z0-9]+){2,}(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)*(?![\w-])")

_NOT_POD_NAMES = frozenset({"kube-node-lease", "out-of-memory", "crash-looping", "up-to-date"})

_NODES = re.compile(
    r"(?<![\w-])nodes?(?![\w-])(?!\s*(?:groups?|pools?|selectors?|affinity|labels?|images?|class|types?)\b)",
    re.I,
)
"""The word node as the subject of a question: not a node group, node pool or node selector, which
are what a workload is placed by ("after the node group upgrade, what is wrong in notify?")."""

_PODS = re.compile(
    r"\bpods?\b|\bworkloads?\b|\bcontainers?\b|\b(?:runs?|running|scheduled|hosted)\s+(?:on|there)\b"
    r"|\baffected\b|\bon (?:it|them|that node|those nodes)\b",
    re.I,
)


def question_pod(question: str) -> str | None:
    """The pod a question names (a pod-like name that is not the namespace it names), if any."""
    namespace = question_namespace(question)
    for match in _POD_NAME.finditer(question):
        if match[0] != namespace and match[0] not in _NOT_POD_NAMES:
            return match[0]
    return None


_NODE_NAME = re.compile(r"(?i)\bnode\s+((?=[a-z0-9.-]*[-0-9])[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?![\w-])")


def question_node(question: str) -> str | None:
    """The node a question names after the word "node" ("what is wrong with node worker-2?"): a
    name with a digit or a hyphen, so that "node pressure" names none."""
    match = _NODE_NAME.search(question)
    return match[1].lower() if match else None


def asks_about_nodes(question: str) -> bool:
    """Whether the question is about nodes rather than pods."""
    return bool(_NODES.search(question)) and not _PODS.search(question)


def names_a_node(question: str, name: str) -> bool:
    """Rule: a question that names a pod is about that pod even when it mentions a node ("since the
    node it ran on was drained"), unless it says the name is a node's ("node X", "X node")."""
    escaped = re.escape(name)
    return (
        re.search(rf"(?i)\bnodes?\s+{escaped}(?![\w-])|(?<![\w-]){escaped}\s+nodes?\b", question) is not None
    )


def asks_about_nodes_and_pods(question: str) -> bool:
    """Whether the question is about nodes and about pods ("which pods does it affect?")."""
    return bool(_NODES.search(question)) and bool(_PODS.search(question))


_ASKS = re.compile(
    r"(?i)\b(?:which|what|any|anything|anyone|list|show|how\s+(?:many|often)|count|did|has|have|were|was|are|is)\b"
    r"[^.?!]*?\brestart(?:s|ed|ing)?\b"
    r"|\brestart(?:s|ed)?\b[^.?!]*\?"
    r"|\brestart\s+counts?\b"
)

_WHY = re.compile(r"(?i)\bwhy\b|\b(?:unhealthy|wrong|broken|failing)\b")

_KEEPS = re.compile(r"(?i)\bkeeps?\s+(?:on\s+)?restarting\b")

_TIME_WORDS = re.compile(
    r"(?i)\b(?:today|yesterday|tonight|this\s+(?:morning|afternoon|evening|week)|last\s+(?:night|hour|week|\d+\s+\w+)"
    r"|(?:in\s+the\s+)?(?:past|last)\s+(?:\d+\s+)?(?:minutes?|hours?|days?)|since\s+\w+|recently|lately)\b"
)


def asks_about_restarts(question: str) -> bool:
    """Whether the question asks which pods restarted (how often, when), not why something fails."""
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", question) if s.strip()]
    return any(
        _ASKS.search(sentence) and not _WHY.search(sentence) and not _KEEPS.search(sentence)
        for sentence in sentences
    )


def time_words(question: str) -> str | None:
    """The question's words for a time window ("today", "in the last hour"), if any."""
    match = _TIME_WORDS.search(question)
    return " ".join(match[0].split()) if match else None


_NAME = r"[a-z0-9][a-z0-9-]*"

_QUOTE = r"[\"'`]?"

STOP_WORDS = frozenset(
    """
    a about after all an and any are as at be been before being both but by can cluster clusters could
    did do does each either every everything for from had has have how i if in into is it its just
    me more most my no not now of on or other our out over please same so some that the their them
    then there these they this those to too us was we were what when where which who whole why will
    with would you your entire namespace namespaces pod pods node nodes here today right
    yesterday tonight morning evening night last since while up down anything something nothing
    everyone anyone someone kubernetes k8s general called named one two
    """.split()
)
"""Words of a sentence that are never a namespace (a namespace named so is still read from a
`Scope: namespace x.` line or a listing)."""

_SCOPE = re.compile(r"^Scope: namespace ([a-z0-9][a-z0-9-]*)\.$", re.M | re.I)

_CALLED = re.compile(rf"\bnamespaces?\s+(?:called|named)\s+{_QUOTE}({_NAME}){_QUOTE}", re.I)

_BEFORE = re.compile(rf"{_QUOTE}({_NAME}){_QUOTE}\s+namespaces?\b", re.I)

_AFTER = re.compile(rf"\bnamespaces?\s+{_QUOTE}({_NAME}){_QUOTE}", re.I)

_LIST_BEFORE = re.compile(rf"((?:{_NAME}\s*,\s*)*{_NAME},?\s+(?:and|or|&)\s+{_NAME})\s+namespaces\b", re.I)

_LIST_AFTER = re.compile(
    rf"\bnamespaces\s+({_NAME})((?:\s*,\s*{_NAME})*)\s*,?\s*(?:and|or|&)\s+({_NAME})", re.I
)

_PREPOSITION = re.compile(rf"\b(?:in|from|of|inside|within)\s+(?:the\s+)?{_QUOTE}({_NAME}){_QUOTE}", re.I)

_CLUSTER_WORDS = re.compile(
    r"(?i)\b(?:pods?|nodes?|namespaces?|clusters?|k8s|kube\w*|deploy\w*|services?|containers?|crash\w*"
    r"|restart\w*|down|broken|break\w*|wrong|fail\w*|errors?|health\w*|unhealthy|ok|okay|fine|running|runs?"
    r"|stuck|pending|issues?|problems?|outage|alerts?|latency|slow|behind|missing|check\w*|status|logs?"
    r"|images?|jobs?|cronjobs?|replicas?|scal\w+|releases?|rollouts?|working|works|start\w*|stopp?\w*"
    r"|off|came|come|up|oom\w*|memory|cpu|disk|pressure|evict\w*|ready|readiness|liveness|probes?"
    r"|workloads?|apps?|applications?|api|apis|servers?|database|db|queue|users?|customers?|requests?"
    r"|going on|happen\w*|statefulsets?|daemonsets?|volumes?|pvcs?|secrets?|configmaps?|quota|limits?"
    r"|unavailab\w*|upgrad\w*|charts?|helm|degrad\w*|time[sd]? ?out\w*|timing out|unreachab\w*"
    r"|respond\w*|downtime|incidents?"
    r"|\d{3}s?)\b|[a-z0-9]+-[a-z0-9-]+"
)
"""Words a question about the cluster's health uses; a question with none of them (and no
hyphenated name) is not about the cluster ("What is the capital of France?")."""


def _dedup(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(name.lower() for name in names))


def _usable(name: str) -> bool:
    return name.lower() not in STOP_WORDS and not name.isdigit()


def question_namespaces(question: str) -> list[str]:
    """The namespaces a question names with the word namespace ("in the Production namespace", "in
    our production namespace", "the namespace called staging", "namespaces a and b", "Scope:
    namespace x."), lower-cased, in order; the words around ("are", "our", "the") are never taken."""
    scope = _SCOPE.search(question)
    if scope:
        return [scope[1].lower()]
    found: list[tuple[int, str]] = []
    for match in _CALLED.finditer(question):
        found.append((match.start(1), match[1]))
    for pattern in (_LIST_BEFORE, _LIST_AFTER):
        for match in pattern.finditer(question):
            for group in range(1, (match.lastindex or 0) + 1):
                start = match.start(group)
                for name in re.finditer(_NAME, match[group] or "", re.I):
                    found.append((start + name.start(), name[0]))
    for pattern in (_BEFORE, _AFTER):  # "the web namespace" before "namespace web"
        if not any(_usable(name) for _, name in found):
            found += [(match.start(1), match[1]) for match in pattern.finditer(question)]
    return _dedup(name for _, name in sorted(found) if _usable(name))


def question_namespace(question: str) -> str | None:
    """The one namespace the question names with the word namespace, or None (none, or several)."""
    named = question_namespaces(question)
    return named[0] if len(named) == 1 else None


def implied_namespaces(question: str) -> list[str]:
    """Words a question uses as a place ("in billing", "from edge", "in payments?") that may be a
    namespace: what is checked against the cluster's listing."""
    return _dedup(m[1] for m in _PREPOSITION.finditer(question) if _usable(m[1]) and len(m[1]) > 1)


def mentions(question: str, word: str) -> bool:
    """Whether the question has `word` as a word of its own (not a part of a hyphenated name)."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", question, re.I) is not None


def about_the_cluster(question: str) -> bool:
    """Whether the question could be about the cluster (see _CLUSTER_WORDS); an empty one is."""
    return not question.strip() or bool(_CLUSTER_WORDS.search(question))


NOT_ABOUT_THE_CLUSTER = (
    "This is not a question about the cluster: this playbook only checks the health of the cluster's "
    "pods and nodes, so it did not inspect anything. Ask about a namespace, a workload, a pod or a node."
)

_GENERATED_SUFFIX = re.compile(r"-(?:[a-z0-9]{6,10}-[a-z0-9]{5}|[a-z0-9]{5}|\d+)$")
"""The part of a pod's name its controller generates: ReplicaSet hash and suffix, a suffix, an ordinal."""


def workload_of(name: str) -> str:
    """A pod's workload: its name without the part its controller generated."""
    return _GENERATED_SUFFIX.sub("", name) or name


def belongs_to(pod: str, workload: str) -> bool:
    """Whether `pod` is a pod of the workload named `workload`: a Deployment's, a StatefulSet's or a
    DaemonSet's (its name plus what the controller generates), a Job's, or a CronJob's (its name, the
    schedule's number, a suffix)."""
    if not pod.startswith(workload + "-"):
        return False
    own = workload_of(pod)
    return own == workload or re.fullmatch(rf"{re.escape(workload)}-\d+", own) is not None


_WORD = re.compile(r"(?<![\w.-])[a-z0-9][a-z0-9-]*[a-z0-9](?![\w-])", re.I)

_KIND = r"(?:deployments?|statefulsets?|daemonsets?|cronjobs?|jobs?|services?|workloads?|apps?)"

_KIND_AFTER = re.compile(rf"{_QUOTE}({_NAME}){_QUOTE}\s+{_KIND}(?![\w-])", re.I)

_KIND_BEFORE = re.compile(
    rf"(?<![\w-]){_KIND}(?:\s+(?:called|named)\s+{_QUOTE}|/|\s+[\"'`])({_NAME})"
    rf"|(?<![\w-]){_KIND}\s+({_NAME}-{_NAME})",
    re.I,
)
"""A kind then a name: "deployment/x", "the service called x", "statefulset 'x'", "job nightly-etl"
(a plain word after a kind is English: "job run", "service down")."""

_WHOLE = re.compile(
    r"(?i)\b(?:which|what|any|all|every|each|other|the)\s+(?:of\s+the\s+)?(?:pods|workloads)\b"
    r"|\b(?:anything|everything|something|nothing)\b|\bhealth\s+(?:report|check)\b|\bwhat\s+needs\b"
)
"""Words asking about a namespace as a whole ("which pods", "anything", "a health report")."""


def _words(question: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(question)]


def named_workloads(question: str, pods: Sequence[str]) -> dict[str, list[str]]:
    """The workloads the question names, each with its pods (by name, as listed): by its name
    ("payment-service", "kafka", "nightly-etl") or by its words ("the payment service", "the batch
    scorer" for batch-scorer)."""
    words = _words(question)
    candidates = [*words]
    for size in (3, 2):  # words joined as the name they spell: "batch scorer" -> batch-scorer
        candidates += ["-".join(words[i : i + size]) for i in range(len(words) - size + 1)]
    found: dict[str, list[str]] = {}
    for word in _dedup(candidates):
        if not _usable(word) or word in found:
            continue
        mine = [pod for pod in pods if belongs_to(pod, word)]
        if mine:
            found[word] = mine
    return found


def first_word_workloads(
    question: str, pods: Sequence[str], namespaces: Sequence[str] = ()
) -> dict[str, list[str]]:
    """The workloads a word of the question is the first word of ("checkout" for checkout-service
    and checkout-worker), each with its pods; never a word that is a namespace, a stop word, or
    shorter than three letters."""
    found: dict[str, list[str]] = {}
    for word in _dedup(w for w in _words(question) if "-" not in w):
        if not _usable(word) or len(word) < 3 or word in namespaces:
            continue
        for pod in pods:
            workload = workload_of(pod)
            if workload.startswith(word + "-") and belongs_to(pod, workload):
                found.setdefault(workload, []).append(pod)
    return found


def named_by_kind(question: str) -> list[str]:
    """The names the question gives beside a workload's kind ("the billing-api deployment",
    "statefulset 'kafka'", "job nightly-etl", "the checkout service"), lower-cased, in order."""
    found = [
        (m.start(), name)
        for pattern in (_KIND_AFTER, _KIND_BEFORE)
        for m in pattern.finditer(question)
        for name in m.groups()
        if name
    ]
    return _dedup(name for _, name in sorted(found) if _usable(name) and len(name) > 1)


def asks_about_the_whole(question: str) -> bool:
    """Whether the question asks about a namespace as a whole ("which pods in checkout ...",
    "is anything wrong in shop?"), not only about a workload it names there."""
    return bool(_WHOLE.search(without_scope_line(question)))


def without_scope_line(question: str) -> str:
    """The question without the `Scope: namespace x.` line the CLI's --namespace adds."""
    return _SCOPE.sub("", question).strip()
