"""Grounding: names in a report must come from tool results, not from the model's imagination.

Three kinds of names are checked against the evidence (every successful tool result, and the
question):

- pods: every pod-like word, anywhere (three or more dash-separated parts:
  `payment-service-6f7b8d9c8-ghj56`, `gke-prod-default-pool-1a2b3c4d-x9z8`), and names next to
  the word pod (`pod db-0`, `pod/db-0`). A pod passes when it occurs anywhere in the evidence,
  so names derived from a real one (its replica set, `payment-service-6f7b8d9c8`) pass too.
- nodes: names next to the word node (`node ip-10-0-1-23.eu-west-1.compute.internal`,
  `the kind-worker2 node`, `node/x`, `Node: x`), in a Node column of a Markdown table, and
  host names with three or more labels (`ip-10-0-1-23.eu-west-1.compute.internal`).
- namespaces: names next to the word namespace (`in the payments namespace`, `namespace
  payments`, `namespaces shop and monitoring`, `Namespace: payments`, `-n payments`,
  `--namespace=payments`), in a Namespace column, and `payments/checkout-7d9f...`.
  The built-in namespaces (default, kube-system, kube-public, kube-node-lease) always pass.
  Nodes and namespaces pass only as whole words of the evidence (`shop` is not grounded by
  `shopping-cart-1`), since short names hide easily inside longer ones.

The trade-off: a false positive costs one pushback (the model checks or drops the name, and its
second answer is accepted anyway); a false negative lets an invented name through. So detection
leans towards catching names, and stays away from ordinary English by shape and by word lists:
a plain word before "namespace" is a name unless it is a common English word of such phrases
("each namespace", "the wrong namespace"); a plain word after it only where the phrase
introduces a name ("in namespace payments", "Namespace: payments", at the start of a sentence),
not where it ends one ("the shop namespace exists"). Next to "node" or "pod" a word must look
like a name (a digit, a dash or a dot: `kind-worker2`, `db-0`) unless it is quoted or in
backticks. Missed on purpose: capitalised names (`Payments namespace`), plain one-word node and
pod names without quotes (`node minikube`), nodes named by IP address, and names with no kind
word next to them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from k8s_agent_harness.evidence.provenance import Source, names_in, sources_of

POD = "pod"
NODE = "node"
NAMESPACE = "namespace"

# Pod-like: three or more dash-separated lowercase parts (payment-service-6f7b8d9c8-ghj56).
POD_LIKE = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+){2,}\b")

# Hyphenated English a report may use that no cluster returns; never treated as names.
_ENGLISH = frozenset(
    {
        "out-of-memory",
        "up-to-date",
        "out-of-date",
        "end-to-end",
        "step-by-step",
        "day-to-day",
        "point-in-time",
        "one-to-one",
        "one-to-many",
        "out-of-the-box",
        "state-of-the-art",
        "in-the-loop",
        "first-in-first-out",
        "back-off-restarting",
        "per-pod-basis",
    }
)

BUILT_IN_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})

# Words that sit next to "namespace", "node" or "pod" in ordinary English, never as names.
_FUNCTION_WORDS = frozenset(
    """
    a an the this that these those each every any all some no none one two three both either neither
    other another same such its their his her our your my which what whose whichever where when why how
    is are was were be been being has have had do does did will would should could can may might must
    shall and or but nor so yet if then than as of to in on at by for from with without within into onto
    over under about via per not also only still just even too itself here there it they them we you he
    she while because since after before until unless though although whether etc vs s across among
    between around through throughout against along beyond during inside outside toward towards upon like
    unlike near off out up down besides except multiple several many few more most various numerous
    individual unrelated related four five six seven eight nine ten dozens remaining isn aren wasn weren
    doesn don didn hasn haven hadn won can couldn shouldn wouldn check checked checking inspect inspected
    describe described create created delete deleted use used using switch scan scanned verify verified
    search searched query queried examine examined investigate investigated review reviewed cover covered
    monitor monitored look looked view viewed show showed shown find found contain contains include
    includes included e.g i.e
    """.split()
)
_NAMESPACE_WORDS = frozenset(
    """
    given target specified correct wrong right different separate single whole entire current respective
    relevant affected requested specific named listed new old existing missing empty unknown own shared
    dedicated system user users application app tenant team project kubernetes k8s cluster scope scoped
    level wide quota quotas limit limits limitrange resourcequota labels label annotations annotation
    events event resources resource isolation policy policies networkpolicy selector selectors filter
    field flag argument parameter option name names list listing boundary boundaries admin administrator
    owner owners status phase defaults deletion creation settings configuration config permissions
    permission access rbac role roles rolebinding rolebindings serviceaccount metrics usage overview
    summary health report contents content instead first then alone mentioned above below provided
    production-grade same-named corresponding problematic healthy unhealthy
    """.split()
)
_NODE_WORDS = frozenset(
    """
    control-plane multi-node single-node worker-node non-ready not-ready on-demand high-memory x86-64
    arm64 amd64 x86 k8s k3s k0s
    """.split()
)
_POD_WORDS = frozenset({"anti-affinity", "crash-looping", "crash-loop", "non-ready", "not-ready", "k8s"})
# English compounds: "per-tenant namespace", "non-production namespace", "multi-zone nodes".
_ENGLISH_PREFIXES = ("per-", "non-", "multi-", "single-", "cross-", "self-", "well-", "high-", "low-")

# Words that name what kind of thing the next (or previous) word is, in prose.
_KEYWORDS = {
    "pod": POD,
    "pods": POD,
    "node": NODE,
    "nodes": NODE,
    "namespace": NAMESPACE,
    "namespaces": NAMESPACE,
}
# Resource kinds kubectl writes as `kind/name`; the name is checked only for pods, nodes, namespaces.
_KINDS = {**_KEYWORDS, "ns": NAMESPACE}
_OTHER_KINDS = frozenset(
    """
    deployment deployments deploy replicaset replicasets rs statefulset statefulsets sts daemonset
    daemonsets ds service services svc job jobs cronjob cronjobs cj configmap configmaps cm secret secrets
    ingress ingresses ing pvc persistentvolumeclaim persistentvolumeclaims pv persistentvolume hpa
    serviceaccount serviceaccounts sa endpoints ep event events ev role roles rolebinding clusterrole
    clusterrolebinding networkpolicy netpol storageclass sc lease leases crd replicationcontroller rc
    """.split()
)

_TABLE_COLUMNS = {"namespace": NAMESPACE, "ns": NAMESPACE, "node": NODE, "node name": NODE, "nodename": NODE}
# A Markdown table's delimiter row (GFM): cells of one or more dashes, each with an optional colon
# either side (`|---|:--|-:|`).
_TABLE_DELIMITER_ROW = re.compile(r"\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*")
_TABLE_NON_NAMES = frozenset({"n/a", "na", "none", "all", "any", "-", "<none>", "cluster-wide", "unknown"})

_TOKEN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_NAMESPACE_NAME = re.compile(rf"{_LABEL}")
_HOST_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_QUOTES = "`'\""
# What may separate a kind word from its name: spaces and Markdown or quotes, one ':' or '='.
_JOINER = re.compile(r"[ \t`'\"*_]*[:=]?[ \t`'\"*_]*")
_LIST_JOINER = re.compile(r"[ \t`'\"*_]*(?:,|&)?[ \t`'\"*_]*")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s)>\]}\"'`]+", re.IGNORECASE)
_DOTTED_TAIL = re.compile(r"\.[A-Za-z0-9]")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")
# After these words "namespace X" introduces a name ("pods in namespace payments"); after others
# (a determiner, an adjective, a name: "the shop namespace exists") it ends a noun phrase.
_OPENERS = frozenset(
    """
    in into from of to for on at within inside across under via by with and or check checked inspect
    inspected describe described list listed use using query queried scan scanned see saw investigate
    investigated examine examined
    """.split()
)
_MAX_LIST = 8


@dataclass(frozen=True)
class Mention:
    """A name the report uses, of one kind (pod, node or namespace)."""

    name: str
    kind: str


@dataclass(frozen=True)
class ToolText:
    """One tool result of the run with its provenance: the call it answered, and whether it succeeded."""

    call_id: str
    tool: str
    text: str
    arguments: str = ""
    """The call's arguments as JSON."""
    ok: bool = True
    """False for a failed call: `text` is the server's error, which is no evidence of the cluster."""
    structured: Any = None
    """The server's structured content sent with the text (redacted), when it sent one."""
    parameters: tuple[str, ...] = ()
    """The argument names the tool's input schema declares: only these say what a result is about
    (a server ignores an argument it does not declare)."""


class Evidence:
    """Everything the cluster tools returned in this run, plus the question.

    Two views: `text`, the successful results and the question, which prose reports' names are
    checked against (C5); and `results` / `sources`, every cluster tool result with its provenance
    (failures included, marked), which a structured report is verified against (verification.py). The
    harness's own search tool adds nothing: its lines are copies of stored results, already here.
    """

    def __init__(self, question: str = "") -> None:
        self._texts: dict[str, None] = {question: None} if question else {}
        """Each distinct text once (a text returned by several calls is one entry)."""
        self.results: list[ToolText] = []
        self._sources: list[Source] = []

    def add(
        self,
        text: str,
        call_id: str = "",
        tool: str = "",
        arguments: Any = None,
        *,
        structured: Any = None,
        parameters: Sequence[str] = (),
    ) -> None:
        """Add one successful tool result (and the arguments of the call that returned it, the
        structured content the server sent with it, and the argument names its tool declares)."""
        if text:
            self._texts[text] = None
            self.results.append(
                ToolText(
                    call_id,
                    tool,
                    text,
                    _arguments(arguments),
                    structured=structured,
                    parameters=tuple(parameters),
                )
            )

    def add_failure(
        self,
        reason: str,
        call_id: str = "",
        tool: str = "",
        arguments: Any = None,
        parameters: Sequence[str] = (),
    ) -> None:
        """Add what a failed call's server said: quotable, shown as error text, never evidence."""
        if reason:
            self.results.append(
                ToolText(call_id, tool, reason, _arguments(arguments), ok=False, parameters=tuple(parameters))
            )

    @property
    def sources(self) -> list[Source]:
        """The results with their provenance read (each result read once, when first asked for)."""
        if len(self._sources) < len(self.results):
            self._sources += sources_of(self.results[len(self._sources) :])
        return self._sources

    @property
    def text(self) -> str:
        """All evidence as one text (a copy: `contains` reads the texts where they are)."""
        return "\n".join(self._texts)

    def contains(self, mention: Mention) -> bool:
        """Whether the evidence names this pod (anywhere), node or namespace (as a whole word)."""
        if mention.kind == NAMESPACE and mention.name in BUILT_IN_NAMESPACES:
            return True
        if mention.kind == POD:
            return any(mention.name in text for text in self._texts)
        return any(names_in(text, mention.name) for text in self._texts)


def _arguments(arguments: Any) -> str:
    return json.dumps(arguments, ensure_ascii=False) if isinstance(arguments, dict) else ""


def invented_names(answer: str, evidence: Evidence) -> list[str]:
    """Pods, nodes and namespaces named in `answer` that the evidence does not name, sorted, once each."""
    return sorted({m.name for m in mentions(answer) if not evidence.contains(m)})


def mentions(answer: str) -> list[Mention]:
    """Every pod, node and namespace name the report uses, as far as its wording shows them."""
    tokens = _tokens(answer)
    found: list[Mention] = []
    hosts: list[tuple[int, int]] = []
    for index, token in enumerate(tokens):
        found += _around_keyword(answer, tokens, index)
        found += _slash_pair(answer, tokens, index)
        if _is_host_name(answer, token):
            found.append(Mention(token.text, NODE))
            hosts.append((token.start, token.end))
    found += _table_cells(answer)
    urls = [match.span() for match in _URL.finditer(answer)]
    for match in POD_LIKE.finditer(answer):
        start, end = match.span()
        if match[0] in _ENGLISH or answer[start - 1 : start] in ("-", ".") or _DOTTED_TAIL.match(answer, end):
            continue  # a --flag, or a label of a dotted name (v1.28.3-eks-5e0fdde, ip-10-0-1-23.eu-west-1...)
        if any(a <= start and end <= b for a, b in (*urls, *hosts)):
            continue
        found.append(Mention(match[0], POD))
    return list(dict.fromkeys(found))  # each once, in the order found


# -- tokens --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    text: str
    start: int
    end: int


def _tokens(answer: str) -> list[_Token]:
    return [_Token(m[0], m.start(), m.end()) for m in _TOKEN.finditer(answer)]


def _between(answer: str, tokens: list[_Token], left: int, right: int) -> str:
    """The text between two neighbouring tokens (or the text before the first / after the last)."""
    start = tokens[left].end if left >= 0 else 0
    end = tokens[right].start if right < len(tokens) else len(answer)
    return answer[start:end]


def _quoted(answer: str, token: _Token) -> bool:
    before = answer[token.start - 1 : token.start]
    return bool(before) and before in _QUOTES and answer[token.end : token.end + 1] == before


# -- the ways a report names things ------------------------------------------------------------------


def _around_keyword(answer: str, tokens: list[_Token], index: int) -> Iterator[Mention]:
    """Names after a kind word (`namespace payments`, `-n payments`) and before one (`the shop namespace`)."""
    word = tokens[index].text
    kind = _KEYWORDS.get(word.lower())
    if kind is None and word == "n" and _is_short_namespace_flag(answer, tokens, index):
        kind = NAMESPACE
        yield from _names_after(answer, tokens, index, kind)
        return
    if kind is None:
        return
    yield from _names_after(answer, tokens, index, kind)
    yield from _names_before(answer, tokens, index, kind)


def _is_short_namespace_flag(answer: str, tokens: list[_Token], index: int) -> bool:
    before = _between(answer, tokens, index - 1, index)
    return before.endswith(" -") or before == "-" or before.endswith("`-")


def _names_after(answer: str, tokens: list[_Token], index: int, kind: str) -> Iterator[Mention]:
    joiner = _between(answer, tokens, index, index + 1)
    if index + 1 >= len(tokens) or not _JOINER.fullmatch(joiner):
        return
    yield from _list_of_names(
        answer, tokens, index + 1, kind, 1, _introduces_a_name(answer, tokens, index, joiner)
    )


def _introduces_a_name(answer: str, tokens: list[_Token], index: int, joiner: str) -> bool:
    """Whether the kind word at `index` labels the word after it as a name.

    Yes for `namespace: x`, `--namespace=x`, `-n x`, at the start of a sentence, line or bullet,
    and after a preposition or a verb that takes a name (`in namespace x`, `check node x`).
    """
    if joiner.strip(" \t`'\"*_") or index == 0:  # `-n x` is introduced by its dash, below
        return True
    before = _between(answer, tokens, index - 1, index)
    if re.search(r"[.:;!?\n(|#>]", before) or before.rstrip().endswith(("-", "*")):
        return True
    return tokens[index - 1].text.lower() in _OPENERS


def _names_before(answer: str, tokens: list[_Token], index: int, kind: str) -> Iterator[Mention]:
    joiner = _between(answer, tokens, index - 1, index)
    if index == 0 or not re.fullmatch(r"[ \t`'\"*_]*", joiner) or not joiner:
        return
    yield from _list_of_names(answer, tokens, index - 1, kind, -1, introduced=True)


def _list_of_names(
    answer: str, tokens: list[_Token], start: int, kind: str, step: int, introduced: bool
) -> Iterator[Mention]:
    """The names of `a, b and c` from `start`, walking right (step 1) or left (step -1)."""
    position: int | None = start
    for _ in range(_MAX_LIST):
        if position is None:
            return
        token = tokens[position]
        plain = not _quoted(answer, token) and not re.search(r"[\d.-]", token.text)
        if plain and not introduced:
            return  # "the shop namespace exists": a verb, not a name
        mention = _candidate(answer, token, kind)
        if mention is None:
            return
        yield mention
        position = _next_in_list(answer, tokens, position, step)


def _next_in_list(answer: str, tokens: list[_Token], position: int, step: int) -> int | None:
    """The next item of `a, b and c` from `position`, walking right (step 1) or left (step -1)."""
    following = position + step
    if not 0 <= following < len(tokens):
        return None
    gap = _between(answer, tokens, min(position, following), max(position, following))
    if tokens[following].text in ("and", "or"):
        after = following + step
        if not 0 <= after < len(tokens):
            return None
        other_gap = _between(answer, tokens, min(following, after), max(following, after))
        if _LIST_JOINER.fullmatch(gap) and _LIST_JOINER.fullmatch(other_gap):
            return after
        return None
    if ("," in gap or "&" in gap) and _LIST_JOINER.fullmatch(gap):
        return following
    return None


def _slash_pair(answer: str, tokens: list[_Token], index: int) -> Iterator[Mention]:
    """`node/x`, `pod/x`, `ns/x`, and `payments/checkout-7d9f-x1` (namespace/pod, as kubectl prints)."""
    if index + 1 >= len(tokens) or _between(answer, tokens, index, index + 1) != "/":
        return
    left, right = tokens[index], tokens[index + 1]
    before = answer[max(0, left.start - 3) : left.start]
    after = answer[right.end : right.end + 2]
    if before.endswith(("/", "@", ".", ":")) or after.startswith("/") or after.startswith("@"):
        return  # a path, a URL or an image reference, not a kubectl name
    kind = _KINDS.get(left.text.lower())
    if kind is not None:
        mention = _candidate(answer, right, kind)
        if mention is not None:
            yield mention
        return
    if left.text.lower() in _OTHER_KINDS or not _NAMESPACE_NAME.fullmatch(left.text):
        return
    if re.match(r":[A-Za-z]", after):
        return  # repository/image:tag
    pod_shaped = POD_LIKE.fullmatch(right.text) or ("-" in right.text and re.search(r"\d", right.text))
    if pod_shaped and _HOST_NAME.fullmatch(right.text) and re.search(r"[a-z]", left.text):
        namespace = _candidate(answer, left, NAMESPACE)
        if namespace is not None:
            yield namespace
        yield Mention(right.text, POD)


def _is_host_name(answer: str, token: _Token) -> bool:
    """`ip-10-0-1-23.eu-west-1.compute.internal`: three or more labels, a dash, not a URL or a version."""
    name = token.text
    if name.count(".") < 2 or "-" not in name or not _HOST_NAME.fullmatch(name):
        return False
    first = name.split(".", 1)[0]
    if not re.search(r"[a-z]", first) or not re.search(r"[\d-]", first) or _VERSION.match(name):
        return False
    if name.endswith((".svc", ".local")) or ".svc." in name:
        return False  # in-cluster service DNS names
    before = answer[max(0, token.start - 3) : token.start]
    return not (before.endswith(("//", "@", "/")) or answer[token.end : token.end + 1] == "/")


def _table_cells(answer: str) -> Iterator[Mention]:
    """Cells of Markdown table columns headed Namespace or Node."""
    lines = answer.splitlines()
    for number, line in enumerate(lines[:-1]):
        if not line.lstrip().startswith("|") or not _TABLE_DELIMITER_ROW.fullmatch(lines[number + 1]):
            continue
        header = [_cell_text(cell).lower() for cell in _cells(line)]
        kinds = {column: _TABLE_COLUMNS[name] for column, name in enumerate(header) if name in _TABLE_COLUMNS}
        if not kinds:
            continue
        for row in lines[number + 2 :]:
            if not row.lstrip().startswith("|"):
                break
            cells = _cells(row)
            for column, kind in kinds.items():
                if column < len(cells):
                    mention = _table_candidate(_cell_text(cells[column]), kind)
                    if mention is not None:
                        yield mention


def _cells(row: str) -> list[str]:
    return row.strip().strip("|").split("|")


def _cell_text(cell: str) -> str:
    return cell.strip().strip("`'\"*_ ").strip()


def _table_candidate(text: str, kind: str) -> Mention | None:
    first = text.split()[0] if text.split() else ""
    if not first or first.lower() in _TABLE_NON_NAMES or first in _FUNCTION_WORDS:
        return None
    first = first.strip("`'\"*_,;:.")  # `**kind-worker2**, tainted`
    pattern = _NAMESPACE_NAME if kind == NAMESPACE else _HOST_NAME
    if not pattern.fullmatch(first) or not re.search(r"[a-z]", first):
        return None
    if kind == NAMESPACE and first in BUILT_IN_NAMESPACES:
        return None
    return Mention(first, kind)


# -- is this word a name? ------------------------------------------------------------------------


def _candidate(answer: str, token: _Token, kind: str) -> Mention | None:
    """The token as a name of `kind`, or None when it is English, not a valid name, or built in."""
    name = token.text
    quoted = _quoted(answer, token)
    pattern = _NAMESPACE_NAME if kind == NAMESPACE else _HOST_NAME
    if len(name) < 2 or not pattern.fullmatch(name) or not re.search(r"[a-z]", name):
        return None
    if not quoted and _is_english(name, kind):
        return None
    if kind == NAMESPACE and name in BUILT_IN_NAMESPACES:
        return None
    if kind == NODE and not (quoted or re.search(r"[\d.-]", name)):
        return None
    if kind == NODE and (_VERSION.match(name) or _ORDINAL.fullmatch(name)):
        return None
    if kind == NODE and not quoted and name.count(".") == 1 and "-" not in name:
        return None  # an instance type (m5.xlarge nodes), not a node name
    if kind == POD and not (quoted or ("-" in name and re.search(r"\d", name))):
        return None
    return Mention(name, kind)


def _is_english(name: str, kind: str) -> bool:
    if name in _FUNCTION_WORDS or name in _ENGLISH or name.startswith(_ENGLISH_PREFIXES):
        return True
    words = {NAMESPACE: _NAMESPACE_WORDS, NODE: _NODE_WORDS, POD: _POD_WORDS}[kind]
    return name in words or name in _KEYWORDS or name in _KINDS or name in _OTHER_KINDS
