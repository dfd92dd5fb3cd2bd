"""The graded incident corpus: a mock cluster fixture and its ground truth per incident.

    k8s_agent/eval/corpus/<incident>/cluster.json    the mock cluster (docs/mock-cluster.md)
    k8s_agent/eval/corpus/<incident>/truth.json      the question and the answer a correct report gives

truth.json: `question`; `summary` (for people); `tags`; `unhealthy` (every resource a correct
answer reports: `kind` pod|node|job, `name`, `namespace` for pods and jobs, `cause` from the report's
taxonomy, optional `accept` (other defensible causes), `fact` (a string some tool result of the
cluster holds verbatim that proves the cause: the deciding fact) and optional `facts` (alternatives
to it that prove the cause as well)); optional `allowed` (resources a report may name without being
wrong). An entry that does not load is reported by name and skipped, never fatal.

`Incident.digest` identifies what the incident is (its files' bytes): results record it, so that a
report can tell when the truth changed since a run.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k8s_agent_harness.findings import Cause

CORPUS = Path(__file__).resolve().parent / "corpus"
KINDS = ("pod", "node", "job")
NAMESPACED = ("pod", "job")


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
    tags: tuple[str, ...] = field(default_factory=tuple)
    digest: str = ""
    """A hash of the incident's files: what the incident is, to tell when it changed."""

    @property
    def cluster(self) -> Path:
        return self.folder / "cluster.json"


class CorpusError(ValueError):
    """An entry of the corpus that cannot be used, and why."""


def load_incident(folder: Path) -> Incident:
    """One incident folder; CorpusError naming the problem when it is broken."""
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
    question = truth.get("question")
    if not isinstance(question, str) or not question.strip():
        raise CorpusError("truth.json: `question` must be a non-empty string")
    unhealthy = truth.get("unhealthy")
    if not isinstance(unhealthy, list):
        raise CorpusError("truth.json: `unhealthy` must be a list (empty when all is healthy)")
    return Incident(
        id=folder.name,
        folder=folder,
        question=question,
        summary=str(truth.get("summary", "")),
        unhealthy=tuple(
            _resource(entry, f"unhealthy[{n}]", graded=True) for n, entry in enumerate(unhealthy)
        ),
        allowed=tuple(
            _resource(entry, f"allowed[{n}]", graded=False)
            for n, entry in enumerate(truth.get("allowed") or [])
        ),
        tags=tuple(str(tag) for tag in truth.get("tags") or ()),
        digest=digest_of(folder),
    )


def digest_of(folder: Path) -> str:
    """A short hash of every file of an incident folder (names and bytes)."""
    hashed = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        hashed.update(path.relative_to(folder).as_posix().encode() + b"\0")
        hashed.update(path.read_bytes() + b"\0")
    return hashed.hexdigest()[:16]


def _resource(entry: Any, where: str, *, graded: bool) -> Resource:
    if not isinstance(entry, dict):
        raise CorpusError(f"truth.json: {where} is not an object")
    kind, name = entry.get("kind", "pod"), entry.get("name")
    if kind not in KINDS:
        raise CorpusError(f"truth.json: {where}.kind must be one of {', '.join(KINDS)}")
    if not isinstance(name, str) or not name:
        raise CorpusError(f"truth.json: {where}.name must be a non-empty string")
    try:
        cause = Cause(entry["cause"]) if graded else None
        accept = tuple(Cause(value) for value in entry.get("accept") or ())
    except KeyError:
        raise CorpusError(f"truth.json: {where} has no `cause`") from None
    except ValueError as error:
        raise CorpusError(f"truth.json: {where}: {error} (not a cause of the taxonomy)") from None
    fact = entry.get("fact")
    if graded and (not isinstance(fact, str) or not fact.strip()):
        raise CorpusError(f"truth.json: {where}.fact must be the text that proves the cause")
    alternatives = entry.get("facts") or []
    if not isinstance(alternatives, list) or not all(isinstance(a, str) and a.strip() for a in alternatives):
        raise CorpusError(f"truth.json: {where}.facts must be a list of non-empty strings")
    namespace = entry.get("namespace")
    if kind in NAMESPACED and graded and not (isinstance(namespace, str) and namespace):
        raise CorpusError(f"truth.json: {where}.namespace is required for a {kind}")
    return Resource(
        kind,
        name,
        namespace if isinstance(namespace, str) else None,
        cause,
        accept,
        fact,
        tuple(alternatives),
    )


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
        folders = sorted(
            path for path in root.iterdir() if path.is_dir() and not path.name.startswith((".", "_"))
        )
    except OSError as error:
        raise CorpusError(f"cannot read the corpus at {root}: {error.strerror or error}") from None
    for folder in folders:
        if patterns and not any(matches(folder.name, pattern) for pattern in patterns):
            continue
        try:
            incidents.append(load_incident(folder))
        except CorpusError as error:
            problems.append((folder.name, str(error)))
    return incidents, problems
