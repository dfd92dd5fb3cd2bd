"""Any mock-cluster fixture as Kubernetes objects (k8s_agent_mock_cluster.kube_objects): what the fake
Kubernetes API then serves says what the mock cluster says, for every incident and synthetic cluster."""

from __future__ import annotations

import json
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import k8s_agent.eval
from k8s_agent_mock_cluster import FixtureError, default_fixture_path, load_fixture
from k8s_agent_mock_cluster.cluster import Cluster
from k8s_agent_mock_cluster.fixture import _minutes, read_yaml
from k8s_agent_mock_cluster.kube_api import FakeKubeAPI, _waiting_reason
from k8s_agent_mock_cluster.kube_objects import cluster_moment, kube_objects
from k8s_agent_mock_cluster.kube_pods import _human_duration
from k8s_agent_mock_cluster.kube_state import _build_state, _res_lookup
from k8s_agent_mock_cluster.kube_tables import _as_table
from k8s_agent_mock_cluster.synthetic import cluster as synthetic_cluster

EVAL = Path(k8s_agent.eval.__file__).parent
"""The corpora as installed (a checkout's, or a wheel's)."""
INCIDENTS = [
    path
    for corpus in ("corpus", "holdout", "holdout2", "holdout3")
    for path in sorted((EVAL / corpus).glob("*.yaml"))
]
NOW = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)


def fixtures() -> list[Any]:
    cases = [pytest.param(path, id=path.stem) for path in INCIDENTS]
    return cases + [pytest.param(size, id=f"synthetic-{size}") for size in (5, 40, 250)]


def load(case: Path | int) -> tuple[dict[str, Any], datetime]:
    if isinstance(case, int):
        return synthetic_cluster(case), NOW
    return load_fixture(case), cluster_moment(read_yaml(case)["cluster"].get("now"), NOW)


def expected_status(pod: dict[str, Any]) -> str:
    """The STATUS a real kubectl prints for the pod: the mock's, except that an evicted pod whose
    container ended with a reason shows that reason (kubectl prints the container's, not the pod's)."""
    if pod["status"] == "Evicted":
        ended = (pod["containers"][0].get("state") or {}).get("terminated") or {}
        return str(ended.get("reason") or "Evicted")
    return str(pod["status"])


@pytest.mark.parametrize("case", fixtures())
def test_the_api_serves_every_pod_event_log_line_and_node_condition_as_the_mock_cluster_does(
    case: Path | int,
) -> None:
    fixture, now = load(case)
    state = _build_state(kube_objects(fixture, now), now)
    pods = _res_lookup("", "v1", "pods")
    assert pods is not None

    table = _as_table(pods, state.store[("", "pods")], "None", "1", now)

    listed = {row["cells"][0]: row["cells"] for row in table["rows"]}
    assert set(listed) == {pod["name"] for pod in fixture["pods"]}
    for pod in fixture["pods"]:
        _, ready, status, restarts, age, *_ = listed[pod["name"]]
        assert status == expected_status(pod), pod["name"]
        assert restarts == sum(int(c.get("restarts", 0)) for c in pod["containers"]), pod["name"]
        # READY counts the app containers only (kubectl's), the mock every container listed
        assert ready.split("/")[0] == str(sum(1 for c in pod["containers"] if c.get("ready"))), pod["name"]
        if pod.get("age"):
            assert age == _human_duration(_minutes(pod["age"]) * 60), pod["name"]
    served_events = {
        (e["involvedObject"]["kind"].lower(), e["involvedObject"]["name"], e["reason"], e["message"])
        for e in state.store[("", "events")]
    }
    for event in fixture.get("events") or []:
        kind, _, name = event["object"].partition("/")
        assert (kind.lower(), name, event["reason"], event["message"]) in served_events
    for pod in fixture["pods"]:
        for container in pod["containers"]:
            entry = state.logs[f"{pod['namespace']}/{pod['name']}/{container['name']}"]
            assert entry["current"].splitlines() == list(container.get("logs") or [])
            assert entry.get("previous", "").splitlines() == list(container.get("previous_logs") or [])
    nodes = {n["metadata"]["name"]: n for n in state.store[("", "nodes")]}
    for node in fixture["nodes"]:
        conditions = {c["type"]: c["status"] for c in nodes[node["name"]]["status"]["conditions"]}
        assert conditions.items() >= (node.get("conditions") or {}).items()


def test_a_container_that_never_started_has_no_logs_and_the_api_says_why() -> None:
    fixture = load_fixture(EVAL / "corpus" / "image-tag-not-found.yaml")
    pulling = next(p for p in fixture["pods"] if p["status"] == "ImagePullBackOff")
    mock = Cluster(fixture)
    state = _build_state(kube_objects(fixture, NOW), NOW)
    pod = next(o for o in state.store[("", "pods")] if o["metadata"]["name"] == pulling["name"])

    assert _waiting_reason(pod, pulling["containers"][0]["name"]) == "ImagePullBackOff"
    with pytest.raises(Exception, match="waiting to start: ImagePullBackOff"):
        mock.get_pod_logs(pulling["name"], pulling["namespace"])


TERMINATING = """\
cluster:
  now: '2026-12-01T06:00:00Z'
  nodes:
    - {name: node-a, age: 41d, capacity: {cpu: '4', memory: 16Gi}}
    - {name: node-b, status: NotReady, age: 41d, capacity: {cpu: '4', memory: 16Gi}}
  pods:
    - name: db-0
      namespace: data
      status: Terminating
      phase: Running
      node: node-b
      age: 3d
      containers: [{name: db, image: postgres:16, ready: false}]
    - name: web-7c9d8f6b5-q2w4x
      namespace: data
      status: Running
      node: node-a
      age: 3d
      containers: [{name: web, image: nginx:1.27}]
"""


def test_a_pod_listed_terminating_is_served_as_one_being_deleted(tmp_path: Path) -> None:
    (tmp_path / "terminating.yaml").write_text(TERMINATING)
    fixture = load_fixture(tmp_path / "terminating.yaml")
    state = _build_state(kube_objects(fixture, NOW), NOW)
    served = {o["metadata"]["name"]: o for o in state.store[("", "pods")]}
    pods = _res_lookup("", "v1", "pods")
    assert pods is not None

    table = _as_table(pods, state.store[("", "pods")], "None", "1", NOW)

    statuses = {row["cells"][0]: row["cells"][2] for row in table["rows"]}
    assert statuses == {"db-0": "Terminating", "web-7c9d8f6b5-q2w4x": "Running"}
    assert served["db-0"]["metadata"]["deletionTimestamp"] == "2026-12-01T06:00:00Z"
    assert "deletionTimestamp" not in served["web-7c9d8f6b5-q2w4x"]["metadata"]


SECOND_INIT_PENDING = """\
cluster:
  now: '2026-12-01T06:00:00Z'
  nodes:
    - {name: node-a, age: 41d, capacity: {cpu: '4', memory: 16Gi}}
  pods:
    - name: api-7c9d8f6b5-q2w4x
      namespace: shop
      status: Init:0/2
      node: node-a
      age: 6s
      containers:
        - {name: wait-for-db, image: busybox:1.36, ready: false, state: {running: {started_at: '2026-12-01T05:59:55Z'}}}
        - {name: migrate, image: shop/migrate:2.1, ready: false, state: {waiting: {reason: PodInitializing}}}
        - {name: api, image: shop/api:2.1, ready: false, state: {waiting: {reason: PodInitializing}}}
"""


def test_an_init_status_counts_the_pods_init_containers_even_those_not_started_yet(tmp_path: Path) -> None:
    (tmp_path / "init.yaml").write_text(SECOND_INIT_PENDING)
    (served,) = kube_objects(load_fixture(tmp_path / "init.yaml"), NOW)["pods"]

    assert [c["name"] for c in served["spec"]["initContainers"]] == ["wait-for-db", "migrate"]
    assert [c["name"] for c in served["spec"]["containers"]] == ["api"]


def test_a_fixture_s_objects_are_served_as_given_and_an_unknown_kind_is_refused(tmp_path: Path) -> None:
    hostile = load_fixture(default_fixture_path().with_name("hostile.json"))
    deployment, secret = hostile["objects"]
    with FakeKubeAPI(kube_objects(hostile, NOW)) as api:

        def get(path: str) -> dict[str, Any]:
            with urllib.request.urlopen(f"{api.url}{path}") as response:
                return dict(json.load(response))

        served = get("/apis/apps/v1/namespaces/production/deployments/payment-service")
        listed = get("/api/v1/namespaces/production/secrets")
    assert (
        served["spec"] == deployment["spec"]
        and served["metadata"]["annotations"] == deployment["metadata"]["annotations"]
    )
    assert [item["data"] for item in listed["items"]] == [secret["data"]]

    unknown = {
        **hostile,
        "objects": [{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}],
    }
    path = tmp_path / "fixture.json"
    path.write_text(json.dumps(unknown), encoding="utf-8")
    with pytest.raises(
        FixtureError,
        match=r"objects\[0\]\.kind: kind 'Widget' is not one the fake Kubernetes API serves \(ConfigMap, ",
    ):
        load_fixture(path)
