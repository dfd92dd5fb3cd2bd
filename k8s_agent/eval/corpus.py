"""The graded incident corpus: per incident, a mock cluster and the answer a correct report gives.

    k8s_agent/eval/corpus/<incident>.yaml     one incident: the question, the truth, the cluster
    k8s_agent/eval/backgrounds/<name>.yaml    healthy workloads incidents share by name
    k8s_agent/eval/holdout/<incident>.yaml    the held-out incidents, in the same format

An incident file (docs/eval.md, "Writing an incident"): `question`; `summary` (for people); `tags`;
`scope` (the namespace the question asks about, or `nodes`); `unhealthy` (every resource a correct
answer reports: `kind` pod|node|job, `name`, `namespace` for pods and jobs, `cause` from the report's
taxonomy, optional `accept` (other defensible causes), `fact` (a string some tool result of the
cluster holds verbatim that proves the cause: the deciding fact) and optional `facts` (alternatives
to it that prove the cause as well)); optional `allowed` (resources a report may name without being
wrong); optional `looks_unhealthy` (pods whose STATUS or READY looks broken but which are fine: a pod
in its first seconds, a retried Job's failed attempt; a report that names one is wrong); `cluster`: the mock cluster's fixture (docs/mock-cluster.md) with defaults, composed with the
shared backgrounds it names by k8s_agent_mock_cluster.fixture. A folder holding `cluster.json` and
`truth.json` (the same fields) is an incident too.

Every incident is checked when it loads: the fixture validates, the truth's resources exist, every
unhealthy resource in the asked scope is in the truth, each fact is in some tool result, no request
exceeds a node's allocatable, no name gives the answer away. An entry that does not load is reported
by name and skipped, never fatal.

`Incident.digest` identifies what the incident is (its files' bytes, backgrounds included): results
record it, so that a report can tell when the truth changed since a run.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from k8s_agent_harness.evidence.report import Cause

CORPUS = Path(__file__).resolve().parent / "corpus"
BACKGROUNDS = Path(__file__).resolve().parent / "backgrounds"
KINDS = ("pod", "node", "job", "deployment", "service", "pvc", "other")
NAMESPACED = ("pod", "job", "deployment", "service", "pvc")
OBJECT_KINDS = {
    "job": "Job",
    "deployment": "Deployment",
    "service": "Service",
    "pvc": "PersistentVolumeClaim",
}
"""The Kubernetes kind a truth kind names; `other` is any kind the fixture's `objects` hold (a
StatefulSet, an Ingress, an autoscaler, a NetworkPolicy ...), by name and namespace."""
INCIDENT_KEYS = {"question", "summary", "tags", "scope", "unhealthy", "allowed", "looks_unhealthy", "cluster"}
NODE_CAUSES = ("node_not_ready", "node_pressure")
GIVEAWAYS = re.compile(
    r"oom|crash|broken|fail|bad|evict|taint|quota|pending|unbound|notready|missing|wrong|error|"
    r"unhealthy|pressure|backoff|unauthori[sz]|timeout|incident"
)
"""Words no pod, node, namespace or container name may hold: the name would give the answer away."""
PODS, NODES = (4, 20), (2, 5)
"""How many pods and nodes an incident's cluster has: enough to search, few enough to read."""


@dataclass(frozen=True)
class Resource:
    """A resource of the truth: what a report must (or may) name."""

    kind: str
    name: str
    namespace: str | None = None
    cause: Cause | None = None
    accept: tuple[Cause, ...] = ()
    fact: str | None = None
    alternatives: tuple[str, ...] = ()
    """Other texts that prove the cause as well as `fact` does."""

    @property
    def facts(self) -> tuple[str, ...]:
        """Every text a quote may hold to prove the cause: the fact and its alternatives."""
        return ((self.fact,) if self.fact else ()) + self.alternatives

    @property
    def causes(self) -> tuple[Cause, ...]:
        """Every cause that counts as right."""
        return ((self.cause,) if self.cause else ()) + self.accept

    @property
    def label(self) -> str:
        return f"{self.kind}/{self.name}" + (f" ({self.namespace})" if self.namespace else "")


@dataclass(frozen=True)
class Incident:
    """One graded incident."""

    id: str
    folder: Path
    question: str
    summary: str
    unhealthy: tuple[Resource, ...]
    allowed: tuple[Resource, ...] = ()
    looks_unhealthy: tuple[Resource, ...] = ()
    """Pods that look broken in the listing and are not: naming one is wrong."""
    tags: tuple[str, ...] = field(default_factory=tuple)
    digest: str = ""
    """A hash of the incident's files: what the incident is, to tell when it changed."""
    fixture: Path | None = None
    """The file the mock cluster loads (`--cluster`): the incident's YAML file; None for a folder."""

    @property
    def cluster(self) -> Path:
        return self.fixture or self.folder / "cluster.json"


class CorpusError(ValueError):
    """An entry of the corpus that cannot be used, and why."""


def load_incident(path: Path) -> Incident:
    """One incident (a YAML file, or a folder with cluster.json and truth.json); CorpusError naming the
    problem when it is broken."""
    if path.suffix in (".yaml", ".yml") and not path.is_dir():
        return load_yaml_incident(path)
    return _load_folder(path)


def load_yaml_incident(path: Path) -> Incident:
    """One incident file, composed with its backgrounds and checked (see `check`)."""
    from k8s_agent_mock_cluster import FixtureError, load_fixture
    from k8s_agent_mock_cluster.fixture import background_paths, read_yaml

    try:
        data = read_yaml(path)
    except FixtureError as error:
        raise CorpusError(str(error)) from None
    if not isinstance(data, dict):
        raise CorpusError("the file is not a mapping of question, truth and cluster")
    unknown = sorted(set(data) - INCIDENT_KEYS)
    if unknown:
        raise CorpusError(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(INCIDENT_KEYS))})")
    try:
        backgrounds = background_paths(path, data)
        fixture = load_fixture(path)
    except FixtureError as error:
        raise CorpusError(f"cluster: {error}") from None
    incident = _incident(
        data, ident=path.stem, folder=path.parent, digest=digest_of(path, *backgrounds), where=path.name
    )
    incident = replace(incident, fixture=path)
    scope = data.get("scope")
    if not isinstance(scope, str) or not scope:
        raise CorpusError("`scope` must name the namespace the question asks about, or `nodes`")
    problems = check(incident, fixture, scope)
    if problems:
        raise CorpusError("; ".join(problems))
    return incident


def _load_folder(folder: Path) -> Incident:
    from k8s_agent_mock_cluster import FixtureError, load_fixture

    try:
        load_fixture(folder / "cluster.json")
    except FixtureError as error:
        raise CorpusError(f"cluster.json: {error}") from None
    try:
        truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    except OSError as error:
        raise CorpusError(f"truth.json: {error.strerror or error}") from None
    except ValueError as error:
        raise CorpusError(f"truth.json is not JSON: {error}") from None
    if not isinstance(truth, dict):
        raise CorpusError("truth.json is not an object")
    return _incident(truth, ident=folder.name, folder=folder, digest=digest_of(folder), where="truth.json")


def _incident(truth: dict[str, Any], *, ident: str, folder: Path, digest: str, where: str) -> Incident:
    question = truth.get("question")
    if not isinstance(question, str) or not question.strip():
        raise CorpusError(f"{where}: `question` must be a non-empty string")
    unhealthy = truth.get("unhealthy")
    if not isinstance(unhealthy, list):
        raise CorpusError(f"{where}: `unhealthy` must be a list (empty when all is healthy)")
    allowed = truth.get("allowed") or []
    if not isinstance(allowed, list):
        raise CorpusError(f"{where}: `allowed` must be a list")
    looks = truth.get("looks_unhealthy") or []
    if not isinstance(looks, list):
        raise CorpusError(f"{where}: `looks_unhealthy` must be a list")
    return Incident(
        id=ident,
        folder=folder,
        question=question,
        summary=str(truth.get("summary", "")),
        unhealthy=tuple(
            _resource(entry, f"{where}: unhealthy[{n}]", graded=True) for n, entry in enumerate(unhealthy)
        ),
        allowed=tuple(
            _resource(entry, f"{where}: allowed[{n}]", graded=False) for n, entry in enumerate(allowed)
        ),
        looks_unhealthy=tuple(
            _resource(entry, f"{where}: looks_unhealthy[{n}]", graded=False) for n, entry in enumerate(looks)
        ),
        tags=tuple(str(tag) for tag in truth.get("tags") or ()),
        digest=digest,
    )


def digest_of(folder: Path, *more: Path) -> str:
    """A short hash of an incident's files (names and bytes): every file of an incident folder, or an
    incident file and the background files it uses."""
    hashed = hashlib.sha256()
    if folder.is_dir():
        files = [
            (p.relative_to(folder).as_posix(), p) for p in sorted(p for p in folder.rglob("*") if p.is_file())
        ]
    else:
        files = [(folder.name, folder)]
    files += [(f"backgrounds/{p.name}", p) for p in more]
    for name, path in files:
        hashed.update(name.encode() + b"\0")
        hashed.update(path.read_bytes() + b"\0")
    return hashed.hexdigest()[:16]


def _resource(entry: Any, where: str, *, graded: bool) -> Resource:
    if not isinstance(entry, dict):
        raise CorpusError(f"{where} is not an object")
    kind, name = entry.get("kind", "pod"), entry.get("name")
    if kind not in KINDS:
        raise CorpusError(f"{where}.kind must be one of {', '.join(KINDS)}")
    if not isinstance(name, str) or not name:
        raise CorpusError(f"{where}.name must be a non-empty string")
    try:
        cause = Cause(entry["cause"]) if graded else None
        accept = tuple(Cause(value) for value in entry.get("accept") or ())
    except KeyError:
        raise CorpusError(f"{where} has no `cause`") from None
    except ValueError as error:
        raise CorpusError(f"{where}: {error} (not a cause of the taxonomy)") from None
    fact = entry.get("fact")
    if graded and (not isinstance(fact, str) or not fact.strip()):
        raise CorpusError(f"{where}.fact must be the text that proves the cause")
    alternatives = entry.get("facts") or []
    if not isinstance(alternatives, list) or not all(isinstance(a, str) and a.strip() for a in alternatives):
        raise CorpusError(f"{where}.facts must be a list of non-empty strings")
    namespace = entry.get("namespace")
    if kind in NAMESPACED and graded and not (isinstance(namespace, str) and namespace):
        raise CorpusError(f"{where}.namespace is required for a {kind}")
    return Resource(
        kind,
        name,
        namespace if isinstance(namespace, str) else None,
        cause,
        accept,
        fact,
        tuple(alternatives),
    )


def check(incident: Incident, fixture: dict[str, Any], scope: str) -> list[str]:
    """What makes an incident unfit to grade (empty: nothing). `scope` is the namespace the question
    asks about, or "nodes"."""
    from k8s_agent_mock_cluster import Cluster

    problems = []
    pods, nodes, events = fixture["pods"], fixture["nodes"], fixture.get("events", [])
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", incident.id):
        problems.append("the id (the file's name) is not kebab-case")
    if not PODS[0] <= len(pods) <= PODS[1]:
        problems.append(f"{len(pods)} {'pod' if len(pods) == 1 else 'pods'} (want {PODS[0]} to {PODS[1]})")
    if not NODES[0] <= len(nodes) <= NODES[1]:
        problems.append(
            f"{len(nodes)} {'node' if len(nodes) == 1 else 'nodes'} (want {NODES[0]} to {NODES[1]})"
        )
    keys = [(p["namespace"], p["name"]) for p in pods]
    if len(set(keys)) != len(keys):
        problems.append("two pods share a name")
    node_names = {n["name"] for n in nodes}
    for pod in pods:
        if pod.get("node") is not None and pod["node"] not in node_names:
            problems.append(f"pod {pod['name']} is on node {pod['node']}, which the cluster does not have")
    for node in nodes:
        cpu = memory = 0.0
        for pod in pods:
            if pod.get("node") == node["name"] and pod["status"] not in ("Completed", "Succeeded"):
                for container in pod["containers"]:
                    cpu += _quantity((container.get("requests") or {}).get("cpu"), "cpu")
                    memory += _quantity((container.get("requests") or {}).get("memory"), "memory")
        allocatable = node.get("allocatable") or node.get("capacity") or {}
        if cpu > _quantity(allocatable.get("cpu"), "cpu") or memory > _quantity(
            allocatable.get("memory"), "memory"
        ):
            problems.append(
                f"node {node['name']} is asked for more than it has ({cpu:.2f} cpu, {memory / 2**30:.1f}Gi)"
            )
    words = [p["name"] for p in pods] + [n["name"] for n in nodes] + [p["namespace"] for p in pods]
    words += [c["name"] for p in pods for c in p["containers"]]
    words += [str(o["metadata"]["name"]) for o in fixture.get("objects") or []]
    for word in dict.fromkeys(words):
        if GIVEAWAYS.search(word) or incident.id in word:
            problems.append(f"the name {word!r} gives the answer away")
    known = {("pod", p["namespace"], p["name"]) for p in pods} | {("node", None, n["name"]) for n in nodes}
    objects = fixture.get("objects") or []
    for obj in objects:
        meta = obj["metadata"]
        kind = next((k for k, v in OBJECT_KINDS.items() if v == obj["kind"]), None)
        known.add((kind or "other", meta.get("namespace"), meta["name"]))
        known.add(("other", meta.get("namespace"), meta["name"]))
    jobs = {(e["namespace"], e["object"].partition("/")[2]) for e in events if e["object"].startswith("job/")}
    for entry in incident.unhealthy + incident.allowed + incident.looks_unhealthy:
        if entry.kind == "job":
            if (
                (entry.namespace, entry.name) not in jobs
                and ("job", entry.namespace, entry.name) not in known
                and not any((p.get("labels") or {}).get("job-name") == entry.name for p in pods)
            ):
                problems.append(f"the truth names job {entry.name}, which the cluster does not have")
        elif (entry.kind, entry.namespace if entry.kind != "node" else None, entry.name) not in known:
            problems.append(f"the truth names {entry.kind} {entry.name}, which the cluster does not have")
    listed = {(e.kind, e.namespace, e.name) for e in incident.unhealthy + incident.looks_unhealthy}
    if scope == "nodes":
        for node in nodes:
            sick = node["status"] != "Ready" or any(
                (node.get("conditions") or {}).get(kind) == "True"
                for kind in ("MemoryPressure", "DiskPressure", "PIDPressure")
            )
            if sick and ("node", None, node["name"]) not in listed:
                problems.append(f"node {node['name']} is unhealthy but not in the truth")
        for entry in incident.unhealthy:
            if entry.kind == "pod" and entry.cause not in NODE_CAUSES:
                problems.append(f"a node question lists pod {entry.name} with a cause that is not a node's")
    else:
        for pod in pods:
            if pod["namespace"] == scope and unhealthy(pod) and ("pod", scope, pod["name"]) not in listed:
                problems.append(f"pod {pod['name']} is unhealthy but not in the truth")
        for entry in incident.unhealthy:
            if entry.namespace != scope:
                problems.append(f"the truth lists {entry.name}, outside the scope {scope}")
    for event in events:
        last = _minutes(event.get("last_seen"))
        if last > 60:
            problems.append(f"an event of {event['object']} is older than the events' 1h time to live")
        if _minutes(event.get("first_seen", event.get("last_seen"))) < last:
            problems.append(f"an event of {event['object']} was first seen after it was last seen")
    listed_all = [(e.kind, e.namespace, e.name) for e in incident.unhealthy]
    if len(set(listed_all)) != len(listed_all):
        problems.append("the truth lists a resource twice")
    texts = None
    for entry in incident.unhealthy:
        if entry.fact and (len(entry.fact) < 15 or "\n" in entry.fact):
            problems.append(f"the fact of {entry.name} is not one line of 15 characters or more")
        texts = texts if texts is not None else tool_texts(Cluster(fixture))
        for fact in entry.facts:
            if not any(fact in text for text in texts):
                problems.append(f"the fact {fact!r} of {entry.name} is in no tool result")
    return problems


def unhealthy(pod: dict[str, Any]) -> bool:
    """The mock cluster's notion: STATUS not Running or Completed, or Running with a container not ready."""
    if pod["status"] not in ("Running", "Completed"):
        return True
    return pod["status"] == "Running" and not all(c.get("ready") for c in pod["containers"])


def tool_texts(cluster: Any) -> list[str]:
    """What the read-only tools return for a cluster, call by call (every pod, namespace and node)."""
    from k8s_agent_mock_cluster import Invalid, NotFound

    def answer(call: Any, *args: Any, **kwargs: Any) -> str:
        try:
            return str(call(*args, **kwargs))
        except (Invalid, NotFound) as error:  # what the server sends back as the tool's error text
            return str(error)

    texts = [cluster.list_pods(), cluster.get_events(), cluster.list_nodes()]
    namespaces = sorted({p["namespace"] for p in cluster.pods} | {e["namespace"] for e in cluster.events})
    for namespace in namespaces:
        texts += [cluster.list_pods(namespace), cluster.get_events(namespace)]
    for pod in cluster.pods:
        name, namespace = pod["name"], pod["namespace"]
        texts += [cluster.describe_pod(name, namespace), cluster.get_events(namespace, name)]
        for container in pod["containers"]:
            for previous in (False, True):
                texts.append(
                    answer(
                        cluster.get_pod_logs,
                        name,
                        namespace,
                        tail=0,
                        previous=previous,
                        container=container["name"],
                    )
                )
    texts += [cluster.describe_node(node["name"]) for node in cluster.nodes]
    for (_group, plural), items in cluster.resources.store().items():  # any kind, listed and got
        if not items or plural in ("pods", "nodes", "events", "namespaces"):
            continue
        kind = items[0]["kind"]
        texts.append(cluster.resources_list(kind, namespace=None))
        for namespace in sorted(
            {str(o["metadata"].get("namespace")) for o in items if o["metadata"].get("namespace")}
        ):
            texts.append(cluster.resources_list(kind, namespace=namespace))
        for obj in items:
            texts.append(
                answer(cluster.resources_get, kind, obj["metadata"]["name"], obj["metadata"].get("namespace"))
            )
    return texts


def _quantity(value: Any, kind: str) -> float:
    """CPU in cores or memory in bytes (the mock cluster's reading of a quantity)."""
    match = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(value or ""))
    if not match:
        return 0.0
    units = {"m": 1e-3} if kind == "cpu" else {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    return float(match[1]) * units.get(match[2], 1)


def _minutes(age: Any) -> float:
    """Minutes in a kubectl age ("45s", "38m", "3h12m", "9d"); 0 for anything else."""
    units = {"s": 1 / 60, "m": 1, "h": 60, "d": 1440}
    return sum(int(amount) * units[unit] for amount, unit in re.findall(r"(\d+)([smhd])", str(age or "")))


def matches(incident: str, pattern: str) -> bool:
    """A shell-style pattern (`crash*`), or else a part of the id (`pending`)."""
    if any(char in pattern for char in "*?["):
        return fnmatch.fnmatchcase(incident, pattern)
    return pattern in incident


def load_corpus(
    root: Path = CORPUS, patterns: list[str] | None = None
) -> tuple[list[Incident], list[tuple[str, str]]]:
    """The incidents under `root` whose id matches one of `patterns` (see `matches`; all when none),
    in id order, and the (id, problem) of every entry that does not load."""
    incidents, problems = [], []
    try:
        entries = sorted(
            (path.stem if path.is_file() else path.name, path)
            for path in root.iterdir()
            if not path.name.startswith((".", "_"))
            and (path.is_dir() or (path.is_file() and path.suffix in (".yaml", ".yml")))
        )
    except OSError as error:
        raise CorpusError(f"cannot read the corpus at {root}: {error.strerror or error}") from None
    for ident, path in entries:
        if patterns and not any(matches(ident, pattern) for pattern in patterns):
            continue
        try:
            incidents.append(load_incident(path))
        except CorpusError as error:
            problems.append((ident, str(error)))
    return incidents, problems
