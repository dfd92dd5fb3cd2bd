"""The graded incident corpora: the main one (k8s_agent/eval/corpus) and the two held-out ones
(k8s_agent/eval/holdout, k8s_agent/eval/holdout2), one YAML file per incident composed with shared
backgrounds (k8s_agent/eval/backgrounds). Every incident of each loads with no problem, is a valid
mock cluster whose truth holds against what the mock cluster's own tools return, names its pods as
their controllers would, the main corpus covers the causes it must, each held-out set is big enough
and shares no incident with the others, the backgrounds are shared instead of repeated, and a broken
incident file is reported by name and skipped.

Only the mock cluster in process: the fixture loader and the `Cluster` the MCP server answers from.
"""

from __future__ import annotations

import re
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from k8s_agent.eval.corpus import KINDS, NAMESPACED, OBJECT_KINDS, load_corpus, load_incident, tool_texts
from k8s_agent_harness.evidence.report import Cause
from k8s_agent_mock_cluster.cluster import Cluster
from k8s_agent_mock_cluster.fixture import load_fixture

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "k8s_agent" / "eval" / "corpus"
HOLDOUT = ROOT / "k8s_agent" / "eval" / "holdout"
HOLDOUT2 = ROOT / "k8s_agent" / "eval" / "holdout2"
HOLDOUT3 = ROOT / "k8s_agent" / "eval" / "holdout3"
BACKGROUNDS = ROOT / "k8s_agent" / "eval" / "backgrounds"


def _incidents(corpus: Path) -> list[Path]:
    return sorted(corpus.glob("*.yaml"))


MAIN_INCIDENTS = _incidents(CORPUS)
HOLDOUT_INCIDENTS = _incidents(HOLDOUT)
HOLDOUT2_INCIDENTS = _incidents(HOLDOUT2)
HOLDOUT3_INCIDENTS = _incidents(HOLDOUT3)
INCIDENTS = MAIN_INCIDENTS + HOLDOUT_INCIDENTS + HOLDOUT2_INCIDENTS + HOLDOUT3_INCIDENTS
"""Every incident of the four sets: each check of one incident runs on all of them."""
HOLDOUT3_DIGEST = "f7537ca3615a8cb33fc7492b391066e6da3990fd8916ed96db6fd27651335fc5"
"""`sha256sum k8s_agent/eval/holdout3/*.yaml | sha256sum`, recorded before the offline model's rules past
the pods were written (docs/eval.md): the set scored once is this one."""
IDS = [f"{path.parent.name}/{path.stem}" for path in INCIDENTS]
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


@cache
def truth(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


@cache
def cluster(path: Path) -> Cluster:
    return Cluster(load_fixture(path))


@cache
def tool_output(folder: Path) -> tuple[str, ...]:
    """Everything the read-only tools return for the incident's cluster, call by call."""
    return tuple(tool_texts(cluster(folder)))


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


def test_the_second_holdout_is_there_with_healthy_incidents_and_shares_nothing_with_the_others() -> None:
    assert len(HOLDOUT2_INCIDENTS) >= 20, f"{len(HOLDOUT2_INCIDENTS)} incidents in {HOLDOUT2}"
    assert sum(1 for folder in HOLDOUT2_INCIDENTS if not truth(folder)["unhealthy"]) >= 2
    earlier = MAIN_INCIDENTS + HOLDOUT_INCIDENTS
    shared = {path.name for path in HOLDOUT2_INCIDENTS} & {path.name for path in earlier}
    assert not shared, shared
    questions = {truth(folder)["question"] for folder in earlier}
    assert not [f.name for f in HOLDOUT2_INCIDENTS if truth(f)["question"] in questions]


def test_the_third_holdout_is_the_set_recorded_before_the_rules_and_shares_nothing_with_the_others() -> None:
    import hashlib

    sums = "".join(
        f"{hashlib.sha256(path.read_bytes()).hexdigest()}  k8s_agent/eval/holdout3/{path.name}\n"
        for path in HOLDOUT3_INCIDENTS
    )
    assert hashlib.sha256(sums.encode()).hexdigest() == HOLDOUT3_DIGEST
    assert (
        len(HOLDOUT3_INCIDENTS) >= 20 and sum(1 for f in HOLDOUT3_INCIDENTS if not truth(f)["unhealthy"]) >= 2
    )
    earlier = MAIN_INCIDENTS + HOLDOUT_INCIDENTS + HOLDOUT2_INCIDENTS
    assert not {path.name for path in HOLDOUT3_INCIDENTS} & {path.name for path in earlier}
    questions = {truth(folder)["question"] for folder in earlier}
    assert not [f.name for f in HOLDOUT3_INCIDENTS if truth(f)["question"] in questions]


def test_every_incident_loads_with_no_problem() -> None:
    for root, count in (
        (CORPUS, len(MAIN_INCIDENTS)),
        (HOLDOUT, len(HOLDOUT_INCIDENTS)),
        (HOLDOUT2, len(HOLDOUT2_INCIDENTS)),
        (HOLDOUT3, len(HOLDOUT3_INCIDENTS)),
    ):
        incidents, problems = load_corpus(root)
        assert problems == []
        assert len(incidents) == count
        assert all(
            incident.cluster.is_file() and incident.cluster.suffix == ".yaml" for incident in incidents
        )
    assert sorted(p.name for p in CORPUS.iterdir() if p.name != "__pycache__") == [
        p.name for p in MAIN_INCIDENTS
    ]


@pytest.mark.parametrize("folder", INCIDENTS, ids=IDS)
def test_an_incident_is_a_valid_cluster_with_a_well_formed_truth(folder: Path) -> None:
    load_fixture(folder)  # raises FixtureError when the composed fixture breaks the schema
    data = truth(folder)
    assert isinstance(data["question"], str) and data["question"].strip()
    assert isinstance(data["summary"], str) and data["summary"].strip()
    assert isinstance(data["tags"], list) and all(isinstance(tag, str) for tag in data["tags"])
    assert isinstance(data["unhealthy"], list)
    assert set(data) <= {
        "question",
        "summary",
        "tags",
        "scope",
        "unhealthy",
        "allowed",
        "looks_unhealthy",
        "cluster",
    }
    for entry in data["unhealthy"]:
        assert entry["kind"] in KINDS, entry
        assert isinstance(entry["name"], str) and entry["name"], entry
        if entry["kind"] == "node":
            assert "namespace" not in entry, entry
        elif entry["kind"] in NAMESPACED:
            assert "namespace" in entry, entry
        assert entry["cause"] in CAUSES, entry
        assert isinstance(entry.get("accept", []), list), entry
        assert set(entry.get("accept", [])) <= CAUSES - {entry["cause"]}, entry
        assert isinstance(entry["fact"], str) and len(entry["fact"]) >= 15, entry
    for entry in data.get("allowed", []) + data.get("looks_unhealthy", []):
        assert entry["kind"] in KINDS and isinstance(entry["name"], str), entry
        assert set(entry) <= {"kind", "name", "namespace"}, entry
    named = data["unhealthy"] + data.get("allowed", []) + data.get("looks_unhealthy", [])
    listed = [(e["kind"], e.get("namespace"), e["name"]) for e in named]
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
    fixture = load_fixture(folder)
    objects = {
        (obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"])
        for obj in fixture.get("objects") or []
    }
    jobs = {
        (e["namespace"], e["object"].partition("/")[2]) for e in mock.events if e["object"].startswith("job/")
    }
    for entry in data["unhealthy"] + data.get("allowed", []):
        if entry["kind"] == "node":
            assert entry["name"] in nodes, entry
        elif entry["kind"] == "pod":
            assert (entry["namespace"], entry["name"]) in pods, entry
        elif entry["kind"] == "other":  # any kind of the cluster's objects, by name
            assert any(key[1:] == (entry.get("namespace"), entry["name"]) for key in objects), entry
        else:
            place = (OBJECT_KINDS[entry["kind"]], entry["namespace"], entry["name"])
            assert place in objects or (entry["kind"] == "job" and place[1:] in jobs), entry
    for entry in data["unhealthy"]:
        if entry["kind"] == "pod" and entry["cause"] not in NODE_CAUSES:
            assert mock_unhealthy(pods[(entry["namespace"], entry["name"])]), entry


GENERATED_SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]"
"""The alphabet Kubernetes draws generated name suffixes from (no vowels, no 0, 1 or 3)."""


def controller_name_problem(pod: dict[str, Any]) -> str | None:
    """Why the pod's name is not the one its controller would give it, or None. The controller is
    what the pod's labels say: a ReplicaSet (`pod-template-hash`: `<deployment>-<hash>-<5>`), a Job
    (`batch.kubernetes.io/job-name`: `<job>-<5>`), a StatefulSet (`statefulset.kubernetes.io/pod-name`:
    that name, `<set>-<ordinal>`) or a DaemonSet (`controller-revision-hash`: `<daemonset>-<5>`);
    a pod with none of them is named freely."""
    name, labels = pod["name"], pod.get("labels") or {}
    if "pod-template-hash" in labels:
        template = labels["pod-template-hash"]
        if not re.fullmatch(f"{GENERATED_SUFFIX}{{1,10}}", template):
            return f"pod-template-hash {template!r} is not of the generated alphabet"
        pattern = f".+-{re.escape(template)}-{GENERATED_SUFFIX}{{5}}"
    elif "batch.kubernetes.io/job-name" in labels:
        pattern = f"{re.escape(labels['batch.kubernetes.io/job-name'])}-{GENERATED_SUFFIX}{{5}}"
    elif "statefulset.kubernetes.io/pod-name" in labels:
        if name != labels["statefulset.kubernetes.io/pod-name"]:
            return "not named as its statefulset.kubernetes.io/pod-name label says"
        pattern = r".+-\d+"
    elif "controller-revision-hash" in labels:
        pattern = f".+-{GENERATED_SUFFIX}{{5}}"
    else:
        return None
    return None if re.fullmatch(pattern, name) else f"not named as its controller names pods ({pattern})"


FROZEN_NAMES = {
    "checkout-503-canary-instance-label": {"storefront-web-5b7d8c9f6a-kq4zt"},
    "healthy-payments-parked-workloads": {"fraud-scorer-5b6c7d8f9a-lx7pq", "risk-rules-6d7e8f9a0b-pp2sd"},
    "nightly-export-job-memory-ceiling": {"reporting-api-6f7b8c9d5e-2kwjx", "reporting-api-6f7b8c9d5e-q9tnd"},
    "shopfront-slow-basket-timeouts-after-release": {
        "basket-api-7d4c6b9f8e-9kmsd",
        "catalog-6c8d7e9f5b-p3lzw",
        "edge-gateway-5b9c8d7f6a-4tz8k",
        "edge-gateway-5b9c8d7f6a-wq6rn",
    },
}
"""Pods of the third held-out set named with a vowel in their template hash, as its author wrote them:
the set is frozen (its digest recorded, scored once), so they stay, and no other may appear."""


@pytest.mark.parametrize("folder", INCIDENTS, ids=IDS)
def test_every_pod_is_named_as_its_controller_would_name_it(folder: Path) -> None:
    problems = {pod["name"]: controller_name_problem(pod) for pod in cluster(folder).pods}
    wrong = {name for name, problem in problems.items() if problem}
    assert wrong == (FROZEN_NAMES.get(folder.stem, set()) if folder.parent == HOLDOUT3 else set()), problems


@pytest.mark.parametrize(
    ("pod", "problem"),
    [
        ({"name": "web-7c9d8f6b5-q2w4x", "labels": {"pod-template-hash": "7c9d8f6b5"}}, None),
        ({"name": "web-7c9d8f6b5-q2w4a", "labels": {"pod-template-hash": "7c9d8f6b5"}}, "not named"),
        ({"name": "web-7c0d8f6b5-q2w4x", "labels": {"pod-template-hash": "7c0d8f6b5"}}, "alphabet"),
        ({"name": "web-6d5f7c8b9-q2w4x", "labels": {"pod-template-hash": "7c9d8f6b5"}}, "not named"),
        ({"name": "etl-29948485-x7k2p", "labels": {"batch.kubernetes.io/job-name": "etl-29948485"}}, None),
        (
            {"name": "etl-29948485-x7k2", "labels": {"batch.kubernetes.io/job-name": "etl-29948485"}},
            "not named",
        ),
        ({"name": "db-0", "labels": {"statefulset.kubernetes.io/pod-name": "db-0"}}, None),
        ({"name": "db-1", "labels": {"statefulset.kubernetes.io/pod-name": "db-0"}}, "not named"),
        ({"name": "db-main", "labels": {"statefulset.kubernetes.io/pod-name": "db-main"}}, "not named"),
        ({"name": "agent-k9x2m", "labels": {"controller-revision-hash": "5d7f"}}, None),
        ({"name": "agent-k9x2o", "labels": {"controller-revision-hash": "5d7f"}}, "not named"),
        ({"name": "debug-shell", "labels": {}}, None),
    ],
)
def test_a_pod_name_is_checked_against_the_controller_its_labels_name(
    pod: dict[str, Any], problem: str | None
) -> None:
    found = controller_name_problem(pod)
    assert (found is None) if problem is None else (found is not None and problem in found), found


def test_the_corpus_covers_the_causes_and_has_healthy_and_node_incidents() -> None:
    truths = {folder.name: truth(folder) for folder in MAIN_INCIDENTS}
    used = {entry["cause"] for data in truths.values() for entry in data["unhealthy"]}
    assert MUST_COVER <= used, f"not covered: {sorted(MUST_COVER - used)}"
    assert sum(1 for data in truths.values() if not data["unhealthy"]) >= 4
    node_questions = [name for name, data in truths.items() if "node" in data["question"].lower()]
    assert len(node_questions) >= 2
    several = [name for name, data in truths.items() if len({e["cause"] for e in data["unhealthy"]}) >= 2]
    assert len(several) >= 3, several


BACKGROUND_WORKLOADS = {
    (pod["namespace"], pod["name"].rsplit("-", 2)[0] if not pod.get("daemonset") else pod["name"])
    for path in BACKGROUNDS.glob("*.yaml")
    for pod in yaml.safe_load(path.read_text(encoding="utf-8")).get("pods", [])
}
"""(namespace, workload) of every pod the shared backgrounds hold."""


def _workload(name: str) -> str:
    parts = name.split("-")
    return "-".join(parts[:-2] if len(parts) > 2 and len(parts[-2]) >= 8 else parts[:-1])


def test_the_backgrounds_are_shared_not_repeated() -> None:
    """No incident carries its own healthy copy of a workload a shared background holds."""
    users: dict[str, int] = {}
    for path in INCIDENTS:
        data = truth(path)
        section = data["cluster"]
        for name in section.get("background", []):
            users[name] = users.get(name, 0) + 1
        nodes = cluster(path).nodes
        sick = any(
            node["status"] != "Ready"
            or any(
                node["conditions"].get(k) == "True" for k in ("MemoryPressure", "DiskPressure", "PIDPressure")
            )
            for node in nodes
        )
        if sick:
            continue  # the pods on a sick node are the incident's story
        for pod in section.get("pods", []):
            composed = next(p for p in cluster(path).pods if p["name"] == pod["name"])
            named = {_workload(e["name"]) for e in data["unhealthy"] + data.get("allowed", [])}
            if (
                pod["namespace"] == data["scope"]
                or mock_unhealthy(composed)
                or _workload(pod["name"]) in named
            ):
                continue  # the asked namespace, a broken pod, a workload the truth names: the incident's own
            assert (pod["namespace"], _workload(pod["name"])) not in BACKGROUND_WORKLOADS, (
                f"{path.stem} repeats {pod['name']}: use its background instead"
            )
    assert sorted(users) == sorted(p.stem for p in BACKGROUNDS.glob("*.yaml")), users
    assert users["kube-system"] >= 5, users


GOOD = """\
question: Which pods in the shop namespace are unhealthy, and why?
summary: cart-api is killed for going over its memory limit.
tags: [oom]
scope: shop
unhealthy:
  - {kind: pod, name: cart-api-6d5f7c8b9-k2m4p, namespace: shop, cause: oom_killed, fact: "Reason:       OOMKilled"}
cluster:
  now: 2026-12-01T06:00:00Z
  background: [kube-system]
  nodes:
    - {name: node-a, age: 41d, capacity: {cpu: "4", memory: 16Gi}}
    - {name: node-b, age: 41d, capacity: {cpu: "4", memory: 16Gi}}
  pods:
    - name: cart-api-6d5f7c8b9-k2m4p
      namespace: shop
      status: CrashLoopBackOff
      node: node-a
      age: 2h
      containers:
        - name: cart
          image: ghcr.io/acme/cart:1.0
          restarts: 7
          state: {waiting: {reason: CrashLoopBackOff}}
          last_state: {terminated: {reason: OOMKilled, exit_code: 137}}
          limits: {memory: 256Mi}
          logs: [loading catalogue]
    - name: web-7c9d8f6b5-q2w4x
      namespace: shop
      status: Running
      node: node-b
      age: 3d
      containers: [{name: web, image: ghcr.io/acme/web:2.1}]
  events:
    - {object: pod/cart-api-6d5f7c8b9-k2m4p, type: Warning, reason: BackOff, count: 12, last_seen: 1m, message: Back-off restarting failed container cart}
"""


def test_a_small_incident_composes_with_its_defaults_and_background(tmp_path: Path) -> None:
    (tmp_path / "shop-cart.yaml").write_text(GOOD)
    incident = load_incident(tmp_path / "shop-cart.yaml")
    fixture = load_fixture(incident.cluster)
    web = next(p for p in fixture["pods"] if p["name"].startswith("web-"))
    assert web["phase"] == "Running" and web["conditions"]["Ready"] == "True"
    assert web["containers"][0]["ready"] is True and web["containers"][0]["restarts"] == 0
    assert web["containers"][0]["state"] == {"running": {"started_at": "2026-11-28T06:00:00Z"}}
    assert fixture["nodes"][0]["allocatable"] == {"cpu": "3920m", "memory": "15144Mi"}
    assert fixture["nodes"][0]["conditions"]["Ready"] == "True"
    assert fixture["events"][0]["namespace"] == "shop" and fixture["events"][0]["source"] == "kubelet"
    proxies = [p for p in fixture["pods"] if p["name"].startswith("kube-proxy-")]
    assert sorted(p["node"] for p in proxies) == ["node-a", "node-b"]
    before = incident.digest
    (tmp_path / "_backgrounds").mkdir()
    shutil.copy(BACKGROUNDS / "kube-system.yaml", tmp_path / "_backgrounds" / "kube-system.yaml")
    with (tmp_path / "_backgrounds" / "kube-system.yaml").open("a") as file:
        file.write("# changed\n")
    assert load_incident(tmp_path / "shop-cart.yaml").digest != before  # the background is part of it


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda text: text.replace("tags: [oom]", "tags: [oom"), "not valid YAML"),
        (lambda text: text.replace("[kube-system]", "[platfrom]"), "unknown background 'platfrom'"),
        (
            lambda text: text.replace(
                "name: cart-api-6d5f7c8b9-k2m4p, namespace", "name: cart-api-x, namespace"
            ),
            "the truth names pod cart-api-x, which the cluster does not have",
        ),
        (lambda text: text.replace("web-7c9d8f6b5-q2w4x", "crashy-7c9d8f6b5-q2w4x"), "gives the answer away"),
        (
            lambda text: text.replace('"Reason:       OOMKilled"', "no such text anywhere"),
            "is in no tool result",
        ),
        (
            lambda text: text.replace("status: Running", "status: ImagePullBackOff"),
            "is unhealthy but not in the truth",
        ),
    ],
    ids=["bad-yaml", "unknown-background", "truth-name", "giveaway-name", "fact", "unlisted"],
)
def test_a_broken_incident_file_is_reported_by_name_and_skipped(
    tmp_path: Path, change: Any, problem: str
) -> None:
    (tmp_path / "shop-cart.yaml").write_text(GOOD)
    (tmp_path / "shop-broken.yaml").write_text(change(GOOD))
    incidents, problems = load_corpus(tmp_path)
    assert [incident.id for incident in incidents] == ["shop-cart"]
    ((name, message),) = problems
    assert name == "shop-broken" and problem in message, message
