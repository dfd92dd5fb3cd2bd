"""The graded incident corpora: the main one (k8s_agent/eval/corpus) and the held-out one
(k8s_agent/eval/holdout). Every incident of either is a valid mock cluster whose truth holds against what
the mock cluster's own tools return, the main corpus covers the causes it must, the holdout is big enough
and shares no incident with it, and each generator (scripts/build_eval_corpus.py,
scripts/build_holdout_corpus.py) writes its corpus again byte for byte.

Only the mock cluster in process: the fixture loader and the `Cluster` the MCP server answers from.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from k8s_agent_harness.findings import Cause
from k8s_agent_mock_cluster.cluster import Cluster, Invalid, NotFound
from k8s_agent_mock_cluster.fixture import load_fixture

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "k8s_agent" / "eval" / "corpus"
GENERATOR = ROOT / "scripts" / "build_eval_corpus.py"
HOLDOUT = ROOT / "k8s_agent" / "eval" / "holdout"
HOLDOUT_GENERATOR = ROOT / "scripts" / "build_holdout_corpus.py"


def _incidents(corpus: Path) -> list[Path]:
    return sorted(path for path in corpus.iterdir() if path.is_dir()) if corpus.is_dir() else []


MAIN_INCIDENTS = _incidents(CORPUS)
HOLDOUT_INCIDENTS = _incidents(HOLDOUT)
INCIDENTS = MAIN_INCIDENTS + HOLDOUT_INCIDENTS
"""Every incident of both corpora: each check of one incident runs on all of them."""
IDS = [f"{path.parent.name}/{path.name}" for path in INCIDENTS]
CAUSES = {cause.value for cause in Cause}
NODE_CAUSES = {Cause.NODE_NOT_READY.value, Cause.NODE_PRESSURE.value}
MUST_COVER = {
    "crash_config",
    "oom_killed",
    "image_not_found",
    "image_unauthorized",
    "image_pull_failed",
    "insufficient_resources",
    "node_selector_mismatch",
    "untolerated_taint",
    "unbound_volume",
    "quota_exceeded",
    "missing_config_reference",
    "readiness_probe_failure",
    "liveness_probe_failure",
    "init_container_failure",
    "job_backoff_limit",
    "evicted",
    "node_not_ready",
    "node_pressure",
    "dependency_down",
}


def truth(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "truth.json").read_text(encoding="utf-8"))


@cache
def cluster(folder: Path) -> Cluster:
    return Cluster(load_fixture(folder / "cluster.json"))


def _answer(call: Any, *args: Any, **kwargs: Any) -> str:
    try:
        return str(call(*args, **kwargs))
    except (Invalid, NotFound) as error:  # what the server would send back as the tool's error text
        return str(error)


@cache
def tool_output(folder: Path) -> tuple[str, ...]:
    """Everything the read-only tools return for the incident's cluster, call by call."""
    mock = cluster(folder)
    texts = [mock.list_pods(), mock.get_events(), mock.list_nodes()]
    namespaces = sorted(
        {pod["namespace"] for pod in mock.pods} | {event["namespace"] for event in mock.events}
    )
    for namespace in namespaces:
        texts += [mock.list_pods(namespace), mock.get_events(namespace)]
    for pod in mock.pods:
        name, namespace = pod["name"], pod["namespace"]
        texts += [mock.describe_pod(name, namespace), mock.get_events(namespace, name)]
        for container in pod["containers"]:
            for previous in (False, True):
                texts.append(
                    _answer(
                        mock.get_pod_logs,
                        name,
                        namespace,
                        tail=0,
                        previous=previous,
                        container=container["name"],
                    )
                )
    texts += [mock.describe_node(node["name"]) for node in mock.nodes]
    return tuple(texts)


def mock_unhealthy(pod: dict[str, Any]) -> bool:
    """The mock cluster's notion (docs/mock-cluster.md): STATUS not Running or Completed, or a container not ready."""
    if pod["status"] not in ("Running", "Completed"):
        return True
    return pod["status"] == "Running" and not all(container.get("ready") for container in pod["containers"])


def test_the_corpus_is_there() -> None:
    assert len(MAIN_INCIDENTS) >= 40, f"{len(MAIN_INCIDENTS)} incidents in {CORPUS}"


def test_the_holdout_is_there_has_a_healthy_incident_and_shares_nothing_with_the_corpus() -> None:
    assert len(HOLDOUT_INCIDENTS) >= 10, f"{len(HOLDOUT_INCIDENTS)} incidents in {HOLDOUT}"
    assert any(not truth(folder)["unhealthy"] for folder in HOLDOUT_INCIDENTS)
    shared = {path.name for path in HOLDOUT_INCIDENTS} & {path.name for path in MAIN_INCIDENTS}
    assert not shared, shared
    questions = {truth(folder)["question"] for folder in MAIN_INCIDENTS}
    assert not [f.name for f in HOLDOUT_INCIDENTS if truth(f)["question"] in questions]


@pytest.mark.parametrize("folder", INCIDENTS, ids=IDS)
def test_an_incident_is_a_valid_cluster_with_a_well_formed_truth(folder: Path) -> None:
    assert sorted(p.name for p in folder.iterdir()) == ["cluster.json", "truth.json"]
    load_fixture(folder / "cluster.json")  # raises FixtureError when the fixture breaks the schema
    data = truth(folder)
    assert isinstance(data["question"], str) and data["question"].strip()
    assert isinstance(data["summary"], str) and data["summary"].strip()
    assert isinstance(data["tags"], list) and all(isinstance(tag, str) for tag in data["tags"])
    assert isinstance(data["unhealthy"], list)
    assert set(data) <= {"question", "summary", "tags", "unhealthy", "allowed"}
    for entry in data["unhealthy"]:
        assert entry["kind"] in ("pod", "node"), entry
        assert isinstance(entry["name"], str) and entry["name"], entry
        assert ("namespace" in entry) == (entry["kind"] == "pod"), entry
        assert entry["cause"] in CAUSES, entry
        assert isinstance(entry.get("accept", []), list), entry
        assert set(entry.get("accept", [])) <= CAUSES - {entry["cause"]}, entry
        assert isinstance(entry["fact"], str) and len(entry["fact"]) >= 15, entry
    for entry in data.get("allowed", []):
        assert entry["kind"] in ("pod", "node") and isinstance(entry["name"], str), entry
        assert set(entry) <= {"kind", "name", "namespace"}, entry
    listed = [(e["kind"], e.get("namespace"), e["name"]) for e in data["unhealthy"] + data.get("allowed", [])]
    assert len(set(listed)) == len(listed), "a resource is listed twice"


@pytest.mark.parametrize("folder", INCIDENTS, ids=IDS)
def test_every_fact_is_verbatim_in_what_a_tool_returns(folder: Path) -> None:
    texts = tool_output(folder)
    for entry in truth(folder)["unhealthy"]:
        assert any(entry["fact"] in text for text in texts), (
            f"{entry['name']}: {entry['fact']!r} in no tool output"
        )


@pytest.mark.parametrize("folder", INCIDENTS, ids=IDS)
def test_the_resources_of_the_truth_exist_and_the_pods_are_unhealthy(folder: Path) -> None:
    mock = cluster(folder)
    pods = {(pod["namespace"], pod["name"]): pod for pod in mock.pods}
    nodes = {node["name"] for node in mock.nodes}
    data = truth(folder)
    for entry in data["unhealthy"] + data.get("allowed", []):
        if entry["kind"] == "node":
            assert entry["name"] in nodes, entry
        else:
            assert (entry["namespace"], entry["name"]) in pods, entry
    for entry in data["unhealthy"]:
        if entry["kind"] == "pod" and entry["cause"] not in NODE_CAUSES:
            assert mock_unhealthy(pods[(entry["namespace"], entry["name"])]), entry


def test_the_corpus_covers_the_causes_and_has_healthy_and_node_incidents() -> None:
    truths = {folder.name: truth(folder) for folder in MAIN_INCIDENTS}
    used = {entry["cause"] for data in truths.values() for entry in data["unhealthy"]}
    assert MUST_COVER <= used, f"not covered: {sorted(MUST_COVER - used)}"
    assert sum(1 for data in truths.values() if not data["unhealthy"]) >= 4
    node_questions = [name for name, data in truths.items() if "node" in data["question"].lower()]
    assert len(node_questions) >= 2
    several = [name for name, data in truths.items() if len({e["cause"] for e in data["unhealthy"]}) >= 2]
    assert len(several) >= 3, several


@pytest.mark.parametrize(
    ("generator", "corpus"), [(GENERATOR, CORPUS), (HOLDOUT_GENERATOR, HOLDOUT)], ids=["corpus", "holdout"]
)
def test_the_generator_writes_the_same_corpus_again(tmp_path: Path, generator: Path, corpus: Path) -> None:
    out = tmp_path / "corpus"
    done = subprocess.run(
        [sys.executable, str(generator), "--out", str(out)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    written = sorted(path.relative_to(out) for path in out.rglob("*") if path.is_file())
    shipped = sorted(path.relative_to(corpus) for path in corpus.rglob("*") if path.is_file())
    assert written == shipped
    for relative in written:
        assert (out / relative).read_bytes() == (corpus / relative).read_bytes(), relative
