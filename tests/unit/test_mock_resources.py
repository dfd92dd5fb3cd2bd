"""Any kind in the mock cluster (k8s_agent_mock_cluster.resources, printers, fixture validation): a
fixture's objects are validated per kind, listed with kubectl's columns and got as YAML by the mock's
generic tools, and served with the same columns by the fake Kubernetes API; a Service's Endpoints
are what its pods give."""

from __future__ import annotations

import json
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from k8s_agent_mock_cluster import FixtureError, load_fixture
from k8s_agent_mock_cluster.cluster import Cluster, Invalid, NotFound
from k8s_agent_mock_cluster.kube_api import FakeKubeAPI
from k8s_agent_mock_cluster.kube_objects import kube_objects

NOW = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)


def pod(
    name: str, app: str, ip: str | None, *, ready: bool = True, namespace: str = "shop"
) -> dict[str, Any]:
    made: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "status": "Running",
        "node": "node-a",
        "labels": {"app": app},
        "containers": [{"name": app, "image": f"ghcr.io/acme/{app}:1", "ready": ready}],
    }
    if ip:
        made["ip"] = ip
    return made


def service(name: str, selector: dict[str, str], namespace: str = "shop") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": selector,
            "clusterIP": "10.96.0.10",
            "ports": [{"port": 80, "targetPort": 8080}],
        },
    }


def fixture(**more: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "cluster": {"now": "2026-12-01T06:00:00Z"},
        "nodes": [
            {
                "name": "node-a",
                "status": "Ready",
                "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
            },
            {"name": "node-b", "status": "Ready"},
        ],
        "pods": [
            pod("web-7c9d8f6b5-q2w4x", "web", "10.1.0.4"),
            pod("web-7c9d8f6b5-z8k2m", "web", "10.1.0.5", ready=False),
            pod("api-5b7d9c6f48-k2m4p", "api", "10.1.0.6"),
        ],
        "events": [],
        "objects": [
            service("web", {"app": "web"}),
            service("checkout", {"app": "checkout"}),
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": "data-db-0", "namespace": "shop"},
                "spec": {"storageClassName": "fast-ssd", "accessModes": ["ReadWriteOnce"]},
                "status": {"phase": "Pending"},
            },
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "shop"},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}},
                "status": {"replicas": 2, "readyReplicas": 1, "availableReplicas": 1, "updatedReplicas": 2},
            },
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": "standard"},
                "provisioner": "ebs.csi.aws.com",
            },
        ],
    }
    base.update(more)
    return base


def test_any_kind_is_listed_with_kubectl_s_columns_and_got_as_yaml() -> None:
    cluster = Cluster(fixture())

    services = cluster.resources_list("svc", namespace="shop").splitlines()
    assert services[0].split() == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"]
    assert services[2].split() == ["web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "5d", "app=web"]
    assert cluster.resources_list("Deployment").splitlines()[1].split()[:5] == [
        "shop",
        "web",
        "1/2",
        "2",
        "1",
    ]
    assert "ACCESS MODES" in cluster.resources_list("persistentvolumeclaims", namespace="shop")
    assert cluster.resources_list("StorageClass").splitlines()[1].split()[:2] == [
        "standard",
        "ebs.csi.aws.com",
    ]
    assert cluster.resources_list("Ingress", namespace="shop") == "No resources found in shop namespace."
    assert cluster.resources_list("Service", labelSelector="tier=db") == "No resources found."

    got = yaml.safe_load(cluster.resources_get("PersistentVolumeClaim", "data-db-0", "shop"))
    assert got["spec"]["storageClassName"] == "fast-ssd" and got["status"]["phase"] == "Pending"
    assert yaml.safe_load(cluster.resources_get("Node", "node-a"))["spec"]["taints"][0]["key"] == "dedicated"


def test_a_missing_object_or_an_unknown_kind_is_a_clear_error() -> None:
    cluster = Cluster(fixture())
    with pytest.raises(NotFound, match=r'services "cart" not found in namespace "shop"'):
        cluster.resources_get("Service", "cart", "shop")
    with pytest.raises(Invalid, match=r'doesn\'t have a resource type "Widget" \(kinds: ConfigMap, CronJob'):
        cluster.resources_list("Widget")


def test_a_service_s_endpoints_are_its_pods_ready_or_not_and_none_when_its_selector_matches_none() -> None:
    cluster = Cluster(fixture())

    web = yaml.safe_load(cluster.resources_get("Endpoints", "web", "shop"))
    (subset,) = web["subsets"]
    assert [a["targetRef"]["name"] for a in subset["addresses"]] == ["web-7c9d8f6b5-q2w4x"]
    assert [a["targetRef"]["name"] for a in subset["notReadyAddresses"]] == ["web-7c9d8f6b5-z8k2m"]
    assert subset["ports"] == [{"port": 8080, "protocol": "TCP"}]

    checkout = yaml.safe_load(cluster.resources_get("Endpoints", "checkout", "shop"))
    assert "subsets" not in checkout
    assert cluster.resources_list("Endpoints", namespace="shop").splitlines()[1].split()[:2] == [
        "checkout",
        "<none>",
    ]


def test_a_node_s_taints_and_a_pod_s_status_reason_are_shown_as_kubectl_describe_shows_them() -> None:
    evicted = {**pod("batch-7c9d8f6b5-x2x4z", "batch", None), "status": "Evicted", "reason": "Evicted"}
    evicted["message"] = "The node was low on resource: ephemeral-storage."
    cluster = Cluster(fixture(pods=[evicted]))

    assert "Taints:       dedicated=gpu:NoSchedule" in cluster.describe_node("node-a")
    assert "Taints:       <none>" in cluster.describe_node("node-b")
    described = cluster.describe_pod("batch-7c9d8f6b5-x2x4z", "shop")
    assert "Reason:       Evicted" in described
    assert "Message:      The node was low on resource: ephemeral-storage." in described


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {}},
            r"objects\[0\]\.metadata: a Service lives in a namespace",
        ),
        (
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": "x", "namespace": "shop"},
                "provisioner": "p",
            },
            r"objects\[0\]\.metadata\.namespace: a StorageClass is cluster-wide",
        ),
        (
            {**service("web", {"app": "web"}), "spec": {"ports": [{"targetPort": 8080}]}},
            r"objects\[0\]\.spec\.ports\[0\]: Service web: 'port' is a required property",
        ),
        (
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": "d", "namespace": "shop"},
                "status": {"phase": "Waiting"},
            },
            r"objects\[0\]\.status\.phase: PersistentVolumeClaim d: 'Waiting' is not one of",
        ),
        (
            {
                "apiVersion": "autoscaling/v2",
                "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "h", "namespace": "shop"},
                "spec": {"maxReplicas": 3},
            },
            r"'scaleTargetRef' is a required property",
        ),
    ],
)
def test_an_object_that_does_not_fit_its_kind_is_refused_with_its_path(
    tmp_path: Path, broken: dict[str, Any], message: str
) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(fixture(objects=[broken])), encoding="utf-8")
    with pytest.raises(FixtureError, match=message):
        load_fixture(path)


def test_two_objects_of_a_kind_with_one_name_in_a_namespace_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(
        json.dumps(fixture(objects=[service("web", {"a": "b"}), service("web", {"c": "d"})])),
        encoding="utf-8",
    )
    with pytest.raises(FixtureError, match=r"objects\[1\]\.metadata\.name: a second Service named 'web'"):
        load_fixture(path)


def test_the_fake_api_serves_the_same_columns_and_endpoints_to_a_real_client() -> None:
    with FakeKubeAPI(kube_objects(fixture(), NOW), now=NOW) as api:
        request = urllib.request.Request(
            f"{api.url}/api/v1/namespaces/shop/services",
            headers={"Accept": "application/json;as=Table;g=meta.k8s.io;v=v1"},
        )
        with urllib.request.urlopen(request) as response:
            table = json.load(response)
        with urllib.request.urlopen(f"{api.url}/api/v1/namespaces/shop/endpoints/web") as response:
            endpoints = json.load(response)
        with urllib.request.urlopen(f"{api.url}/apis/storage.k8s.io/v1/storageclasses") as response:
            classes = json.load(response)
    assert [c["name"] for c in table["columnDefinitions"]][:5] == [
        "Name",
        "Type",
        "Cluster-IP",
        "External-IP",
        "Port(s)",
    ]
    assert sorted(row["cells"][:2] for row in table["rows"]) == [
        ["checkout", "ClusterIP"],
        ["web", "ClusterIP"],
    ]
    assert [a["ip"] for a in endpoints["subsets"][0]["addresses"]] == ["10.1.0.4"]
    assert [item["metadata"]["name"] for item in classes["items"]] == ["standard"]
