"""The falsification generator: the proof that verification checks facts, not words (docs/report.md,
"How well it holds").

For every pod of many clusters (the mock cluster's fixtures and the eval corpus's incidents), shown
in every shape the supported servers print (the mock's table and describe, kubectl's table with and
without its header, kubernetes-mcp-server's YAML, one object and a `---` stream, mcp-server-
kubernetes' JSON, indented and compact, a list of items, a CSV a call about the pod returns), an
honest finding is written from the cluster's truth (not from the parser): the pod's name,
namespace, status as that shape shows it, and a line of its own record. Each must be verified.
Then every single-field falsification of it is generated, each one report with one thing false:

- `status`: the status word of another pod of the cluster, one this pod shows in no field;
- `restarts`: another field's number as the restart count (an exit code, another pod's count);
- `ready`: another pod's READY where the shape prints READY;
- `history`: the last state's reason as the status of a pod that is healthy now;
- `namespace`: another namespace; `kind`: the name as a node's or a deployment's;
- `quote`: another pod's line of the same result;
- `echo`: the call's own argument given back as the quote.

Each must be caught (the report not verified). The counts are in docs/report.md, checked here.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from k8s_agent.eval.corpus import CORPUS, load_corpus
from k8s_agent_harness.evidence.provenance import Source
from k8s_agent_harness.evidence.report import HealthReport
from k8s_agent_harness.evidence.verification import verify
from k8s_agent_mock_cluster import load_fixture
from k8s_agent_mock_cluster.cluster import Cluster
from k8s_agent_mock_cluster.fixture import default_fixture_path
from k8s_agent_mock_cluster.kube_objects import cluster_moment, kube_objects

DOC = Path(__file__).parents[2] / "docs" / "report.md"
NOW = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)
TABLE_SHAPES = ("mock table", "kubectl table", "kubectl table, no header")
OBJECT_SHAPES = ("mock describe", "YAML object", "YAML stream", "JSON list", "JSON compact", "JSON object")


@dataclass(frozen=True)
class Truth:
    """A pod as the cluster holds it, from the fixture (never from a parser)."""

    name: str
    namespace: str
    status: str
    """The STATUS column (the mock's list_pods and kubectl print it)."""
    ready: str
    restarts: int
    reasons_now: tuple[str, ...]
    reasons_before: tuple[str, ...]
    counts: tuple[int, ...]
    """Each container's restart count."""
    exit_codes: tuple[int, ...]
    states: tuple[str, ...] = ()
    """Its containers' states (`running`, `waiting`, `terminated`), now and last."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)

    @property
    def healthy_now(self) -> bool:
        ready, total = self.ready.split("/")
        return self.status == "Running" and ready == total


def _reasons(containers: list[dict[str, Any]], state: str) -> tuple[str, ...]:
    return tuple(
        detail["reason"]
        for c in containers
        for detail in (c.get(state) or {}).values()
        if detail and detail.get("reason")
    )


def truths(fixture: dict[str, Any]) -> list[Truth]:
    found = []
    for pod in fixture.get("pods") or []:
        containers = pod.get("containers") or []
        codes = [
            int(detail["exit_code"])
            for c in containers
            for state in ("state", "last_state")
            for detail in (c.get(state) or {}).values()
            if detail and "exit_code" in detail
        ]
        found.append(
            Truth(
                pod["name"],
                pod["namespace"],
                pod["status"],
                f"{sum(1 for c in containers if c.get('ready'))}/{len(containers)}",
                sum(int(c.get("restarts", 0)) for c in containers),
                _reasons(containers, "state"),
                _reasons(containers, "last_state"),
                tuple(int(c.get("restarts", 0)) for c in containers),
                tuple(codes),
                tuple(
                    kind
                    for c in containers
                    for state in ("state", "last_state")
                    for kind in c.get(state) or {}
                ),
            )
        )
    return found


@dataclass(frozen=True)
class Claim:
    """An honest status as a shape prints it: its status word, its READY (tables), the restart count
    it shows (None: it shows none)."""

    word: str
    ready: str | None
    restarts: int | None
    reason: str | None = None

    def text(self) -> str:
        parts = [self.word, *([self.reason] if self.reason and self.reason != self.word else [])]
        if self.ready is not None:
            parts.append(f"READY {self.ready}")
        if self.restarts is not None:
            parts.append(f"{self.restarts} restarts")
        return ", ".join(parts)


@dataclass
class Shape:
    """One shape: its sources (calls with their results) and, for each pod, its call, a line of its
    own record, and its honest status as the shape prints it."""

    name: str
    sources: list[Source] = field(default_factory=list)
    own: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    """(namespace, pod) -> (call id, a line of the pod's own record in that call's text)."""
    claims: dict[tuple[str, str], Claim] = field(default_factory=dict)
    named: dict[tuple[str, str], str] = field(default_factory=dict)
    """(namespace, pod) -> its call's argument given back as a line, where a call names it."""


def _source(call_id: str, tool: str, text: str, **arguments: Any) -> Source:
    return Source(call_id, tool, text, arguments, True, None, tuple(arguments))


def _object_claim(pod: dict[str, Any]) -> Claim:
    """What an API object shows: its phase, its first container's current reason, its restarts (as
    kubectl counts them: its containers' summed)."""
    statuses = pod["status"].get("containerStatuses") or []
    first = statuses[0] if statuses else {}
    reason = next((d.get("reason") for d in (first.get("state") or {}).values() if isinstance(d, dict)), None)
    restarts = sum(int(status.get("restartCount", 0)) for status in statuses) if statuses else None
    return Claim(pod["status"]["phase"], None, restarts, reason)


def _table(rows: list[list[str]], header: bool) -> str:
    lines = ([["NAME", "READY", "STATUS", "RESTARTS", "AGE"]] if header else []) + rows
    widths = [max(len(row[i]) for row in lines) for i in range(5)]
    return "\n".join(
        "   ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in lines
    )


def shapes(fixture: dict[str, Any]) -> Iterator[Shape]:
    cluster = Cluster(fixture)
    moment = cluster_moment((fixture.get("cluster") or {}).get("now"), NOW)
    objects = {
        (p["metadata"]["namespace"], p["metadata"]["name"]): p for p in kube_objects(fixture, moment)["pods"]
    }
    truth = {t.key: t for t in truths(fixture)}
    namespaces = sorted({ns for ns, _ in truth})

    shape = Shape("mock table")
    for number, ns in enumerate(namespaces):
        text = cluster.list_pods(ns)
        shape.sources.append(_source(f"m{number}", "list_pods", text, namespace=ns))
        for key in (k for k in truth if k[0] == ns):
            shape.own[key] = (f"m{number}", _row(text, key[1]))
            shape.claims[key] = Claim(truth[key].status, truth[key].ready, truth[key].restarts)
    yield shape

    for header, name in ((True, "kubectl table"), (False, "kubectl table, no header")):
        shape = Shape(name)
        for number, ns in enumerate(namespaces):
            mine = [t for k, t in truth.items() if k[0] == ns]
            text = _table([[t.name, t.ready, t.status, str(t.restarts), "5d"] for t in mine], header)
            shape.sources.append(_source(f"k{number}", "kubectl_get_pods", text, namespace=ns))
            for t in mine:
                shape.own[t.key] = (f"k{number}", _row(text, t.name))
                shape.claims[t.key] = Claim(t.status, t.ready, t.restarts)
        yield shape

    shape = Shape("mock describe")
    pods = {(p["namespace"], p["name"]): p for p in fixture["pods"]}
    for number, (ns, name) in enumerate(truth):
        text = cluster.describe_pod(name, ns)
        shape.sources.append(_source(f"d{number}", "describe_pod", text, namespace=ns, name=name))
        shape.own[(ns, name)] = (
            f"d{number}",
            next(line for line in text.splitlines() if "Image:" in line).strip(),
        )
        pod = pods[(ns, name)]
        t = truth[(ns, name)]
        shape.claims[(ns, name)] = Claim(
            str(pod.get("phase", pod["status"])),
            None,
            t.restarts if t.counts else None,
            (t.reasons_now or (None,))[0],
        )
        shape.named[(ns, name)] = f"Name:         {name}"
    yield shape

    for name, render, prefix in (
        ("YAML object", lambda pod: _yaml(pod), "name: "),
        ("JSON object", lambda pod: json.dumps(pod, indent=2), '"name": '),
    ):
        shape = Shape(name)
        for number, (key, pod) in enumerate(objects.items()):
            text = render(pod)
            shape.sources.append(_source(f"o{number}", "pods_get", text, namespace=key[0], name=key[1]))
            shape.own[key] = (f"o{number}", _own_line(text, pod))
            shape.claims[key] = _object_claim(pod)
            shape.named[key] = prefix + (f'"{key[1]}",' if prefix.startswith('"') else key[1])
        yield shape

    for name, render in (
        (
            "YAML stream",
            lambda pods: "---\n".join(_yaml(p) for p in pods),
        ),
        ("JSON list", lambda pods: json.dumps({"kind": "List", "apiVersion": "v1", "items": pods}, indent=4)),
        ("JSON compact", lambda pods: json.dumps({"kind": "PodList", "apiVersion": "v1", "items": pods})),
    ):
        shape = Shape(name)
        for number, ns in enumerate(namespaces):
            mine = [pod for key, pod in objects.items() if key[0] == ns]
            text = render(mine)
            shape.sources.append(
                _source(f"s{number}", "kubectl_get", text, resourceType="pods", namespace=ns)
            )
            for pod in mine:
                key = (ns, pod["metadata"]["name"])
                uid = pod["metadata"]["uid"]
                shape.own[key] = (
                    f"s{number}",
                    f'"uid": "{uid}"' if name == "JSON compact" else _own_line(text, pod),
                )
                shape.claims[key] = _object_claim(pod)
        yield shape


def _yaml(value: Any) -> str:
    """YAML as kubernetes-mcp-server prints an object (keys sorted, long lines whole)."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(value, Dumper=dumper, sort_keys=True, width=1_000_000, default_flow_style=False)


def _row(text: str, pod: str) -> str:
    return next(line for line in text.splitlines() if re.search(rf"(^|\s){re.escape(pod)}\s", line)).strip()


def _own_line(text: str, pod: dict[str, Any]) -> str:
    """A line only this pod's object holds: its uid."""
    uid = pod["metadata"]["uid"]
    return next(line.strip().rstrip(",") for line in text.splitlines() if uid in line)


# -- honest findings and their falsifications -------------------------------------------------------


def finding(truth: Truth, status: str, quote: str, call_id: str, **changed: Any) -> dict[str, Any]:
    found = {
        "kind": "pod",
        "name": truth.name,
        "namespace": truth.namespace,
        "status": status,
        "cause": "unknown",
        "explanation": "as the quote shows",
        "evidence": [{"text": quote, "call_id": call_id}],
        "fix": "look further",
    }
    return found | changed


def verified(found: dict[str, Any], shape: Shape) -> tuple[bool, list[str]]:
    report = HealthReport.model_validate(
        {"scope": "pods", "findings": [found], "healthy": {"count": 0, "examples": []}}
    )
    checked = verify(report, shape.sources)
    return checked.verified, checked.problems


def falsifications(
    truth: Truth, shape: Shape, others: list[Truth], namespaces: list[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each single-field falsification of the pod's honest finding in this shape."""
    call_id, line = shape.own[truth.key]
    claim = shape.claims[truth.key]
    status = claim.text()
    shown = {
        word.lower()
        for word in (truth.status, claim.word, *truth.states, *truth.reasons_now, *truth.reasons_before)
    }
    words = [shape.claims[o.key].word for o in others if o.key in shape.claims]
    word = next((w for w in words if w.lower() not in shown and ":" not in w), None)
    if word:
        yield "status", finding(truth, replace(claim, word=word).text(), line, call_id)
    if claim.restarts is not None:
        counts = {*truth.counts, truth.restarts}
        wrong = next((n for n in (*truth.exit_codes, *(o.restarts for o in others)) if n not in counts), None)
        if wrong is not None:
            yield "restarts", finding(truth, replace(claim, restarts=wrong).text(), line, call_id)
    if claim.ready is not None:
        ready = next((o.ready for o in others if o.ready != truth.ready), None)
        if ready:
            yield "ready", finding(truth, replace(claim, ready=ready).text(), line, call_id)
    history = [
        r for r in truth.reasons_before if r.lower() not in shown - set(map(str.lower, truth.reasons_before))
    ]
    if truth.healthy_now and history:
        yield "history", finding(truth, f"{history[0]}, Terminated", line, call_id)
    elsewhere = next((ns for ns in namespaces if ns != truth.namespace), "elsewhere")
    yield "namespace", finding(truth, status, line, call_id, namespace=elsewhere)
    yield "kind", finding(truth, status, line, call_id, kind="node", namespace=None)
    yield "kind", finding(truth, status, line, call_id, kind="deployment")
    other = next(
        (shape.own[o.key] for o in others if o.key in shape.own and shape.own[o.key][1] != line), None
    )
    if other:
        yield "quote", finding(truth, status, other[1], other[0])
    if truth.key in shape.named:
        yield "echo", finding(truth, status, shape.named[truth.key], call_id)


@lru_cache(maxsize=1)
def fixtures() -> tuple[tuple[str, dict[str, Any]], ...]:
    found = [("default", load_fixture(default_fixture_path()))]
    incidents, problems = load_corpus(CORPUS)
    assert not problems
    found += [(incident.id, load_fixture(incident.cluster)) for incident in incidents]
    return tuple(found)


@dataclass
class Tally:
    honest: Counter[str] = field(default_factory=Counter)
    honest_passed: Counter[str] = field(default_factory=Counter)
    generated: Counter[str] = field(default_factory=Counter)
    caught: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    false_alarms: list[str] = field(default_factory=list)


def run(chosen: Sequence[tuple[str, dict[str, Any]]], check: bool = True) -> Tally:
    """The honest findings and their falsifications over these clusters; each verified when `check`."""
    result = Tally()
    for label, fixture in chosen:
        everyone = truths(fixture)
        namespaces = sorted({t.namespace for t in everyone})
        for shape in shapes(fixture):
            for truth in everyone:
                if truth.key not in shape.own:
                    continue
                call_id, line = shape.own[truth.key]
                result.honest[shape.name] += 1
                honest = finding(truth, shape.claims[truth.key].text(), line, call_id)
                ok, problems = verified(honest, shape) if check else (True, [])
                if ok:
                    result.honest_passed[shape.name] += 1
                else:
                    result.false_alarms.append(f"{label} {shape.name} {truth.name}: {problems}")
                for why, false in falsifications(
                    truth, shape, [t for t in everyone if t != truth], namespaces
                ):
                    result.generated[why] += 1
                    if check and verified(false, shape)[0]:
                        result.misses.append(f"{label} {shape.name} {truth.name} {why}: {false}")
                    else:
                        result.caught[why] += 1
    return result


SHARDS = 6
"""The clusters in slices: a failure names its slice, and each slice reports its own misses."""


@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_honest_finding_verifies_and_every_falsification_is_caught(shard: int) -> None:
    tally = run(fixtures()[shard::SHARDS])
    assert set(tally.honest) == set(TABLE_SHAPES + OBJECT_SHAPES)
    assert not tally.false_alarms, tally.false_alarms[:10]
    assert not tally.misses, tally.misses[:10]


def test_the_generator_makes_every_kind_and_the_docs_give_its_counts() -> None:
    """The counts over every cluster (generated only: each shard above verifies its own)."""
    tally = run(fixtures(), check=False)
    assert set(tally.generated) == {
        "status",
        "restarts",
        "ready",
        "history",
        "namespace",
        "kind",
        "quote",
        "echo",
    }
    doc = DOC.read_text(encoding="utf-8")
    line = next((line for line in doc.splitlines() if line.startswith("Falsification generator:")), "")
    assert line == (
        f"Falsification generator: {sum(tally.generated.values()):,} single-field falsifications generated over "
        f"{len(fixtures())} clusters, each caught; {sum(tally.honest.values()):,} honest findings, each verified."
    ), line
