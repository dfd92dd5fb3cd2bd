"""The offline playbook past the pods (objects.py, object_rules.py): each rule on a cluster written for it, through the
mock cluster's generic tools (`resources_list`, `resources_get`), every quote verified by the harness.

The clusters are small and made up here; none is an incident of the corpus."""

from __future__ import annotations

from typing import Any

from k8s_agent_mock_cluster import Cluster
from k8s_agent_scripted_llm.playbook.objects import aligned_table
from tests.offline.test_offline_model import causes_of, event, mini_cluster, mini_pod, play, quotes_of

SHOP = "shop"


def pod(
    name: str, app: str, ip: str, *, status: str = "Running", ready: bool = True, **container: Any
) -> dict[str, Any]:
    """A pod of namespace shop with the label app=APP and an IP (an endpoint when ready)."""
    made = mini_pod(name, SHOP, status, ready=ready, **container)
    made["labels"] = {"app": app, "pod-template-hash": name.rsplit("-", 2)[-2]}
    made["ip"] = ip
    return made


def service(name: str, selector: dict[str, str], port: int = 80, target: int | str = 8080) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": SHOP},
        "spec": {"selector": selector, "ports": [{"name": "http", "port": port, "targetPort": target}]},
    }


def deployment(
    name: str, app: str, *, replicas: int = 2, ready: int = 2, updated: int | None = None, **more: Any
) -> dict[str, Any]:
    status: dict[str, Any] = {
        "replicas": replicas,
        "readyReplicas": ready,
        "availableReplicas": ready,
        "updatedReplicas": replicas if updated is None else updated,
    }
    if "conditions" in more:
        status["conditions"] = more.pop("conditions")
    container = {"name": app, "image": f"ghcr.io/acme/{app}:1.0", **more}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": SHOP},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": app}},
            "template": {"metadata": {"labels": {"app": app}}, "spec": {"containers": [container]}},
        },
        "status": status,
    }


def cluster(
    pods: list[dict[str, Any]], objects: list[dict[str, Any]], events: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    made = mini_cluster(pods, events or [])
    made["objects"] = objects
    return made


WEB = [pod("web-7c9d8f6b5-q2w4x", "web", "10.1.0.4"), pod("web-7c9d8f6b5-z8k2m", "web", "10.1.0.5")]


def test_a_service_whose_selector_matches_no_pod_is_reported_with_its_selector_line() -> None:
    """object_rules.service_routes_nowhere: every pod is healthy; the Service selects a label no pod has."""
    fixture = cluster(WEB, [deployment("web", "web"), service("web", {"app": "web-v2"})])
    causes, report, _ = causes_of(fixture, "Why does the web site return 503 in the shop namespace?")

    assert causes == {"service/web": "service_no_endpoints"}
    assert quotes_of(report, "web") == ["app: web-v2"]
    assert report.findings[0].namespace == SHOP


def test_a_service_whose_pods_are_all_unready_is_not_blamed_for_them() -> None:
    """object_rules.service_routes_nowhere: the Service's pods exist and none is ready: the pods are the
    problem (their own cause), the Service only shows it."""
    unready = [
        pod(
            "web-7c9d8f6b5-q2w4x",
            "web",
            "10.1.0.4",
            ready=False,
        ),
    ]
    fixture = cluster(
        unready,
        [deployment("web", "web", replicas=1, ready=0), service("web", {"app": "web"})],
        [
            event(
                SHOP,
                "pod/web-7c9d8f6b5-q2w4x",
                "Unhealthy",
                "Readiness probe failed: HTTP probe failed with statuscode: 500",
            )
        ],
    )
    causes, _, _ = causes_of(fixture, "What is wrong in the shop namespace?")

    assert causes == {"pod/web-7c9d8f6b5-q2w4x": "readiness_probe_failure"}


def test_a_service_whose_target_port_no_container_declares_is_reported_with_its_target_port() -> None:
    """object_rules.service_port_unserved: the pods declare port 9000, the Service sends to 8080."""
    ports = [{"containerPort": 9000, "name": "http"}]
    fixture = cluster(
        WEB, [deployment("web", "web", ports=ports), service("web", {"app": "web"}, target=8080)]
    )
    causes, report, _ = causes_of(
        fixture, "Why does the web service in the shop namespace refuse connections?"
    )

    assert causes == {"service/web": "service_no_endpoints"}
    assert quotes_of(report, "web") == ["targetPort: 8080"]


def test_a_service_whose_target_port_a_container_declares_is_healthy() -> None:
    """object_rules.service_port_unserved: the targetPort is a declared port's name: nothing to report."""
    ports = [{"containerPort": 9000, "name": "http"}]
    fixture = cluster(
        WEB, [deployment("web", "web", ports=ports), service("web", {"app": "web"}, target="http")]
    )
    causes, _, _ = causes_of(fixture, "Is anything wrong in the shop namespace?")

    assert causes == {}


def test_an_ingress_whose_backend_service_does_not_exist_is_reported_with_its_warning() -> None:
    """object_rules.ingress_backend_missing: the Ingress sends to a Service that was renamed."""
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "storefront", "namespace": SHOP},
        "spec": {
            "rules": [
                {
                    "host": "shop.example.com",
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "web-frontend", "port": {"number": 80}}},
                            }
                        ]
                    },
                }
            ]
        },
    }
    warning = 'error syncing ingress: service "shop/web-frontend" not found'
    fixture = cluster(
        WEB,
        [deployment("web", "web"), service("web", {"app": "web"}), ingress],
        [event(SHOP, "ingress/storefront", "Sync", warning)],
    )
    causes, report, _ = causes_of(fixture, "shop.example.com returns 404 in the shop namespace: why?")

    assert causes == {"other/storefront": "service_no_endpoints"}
    assert quotes_of(report, "storefront")[:2] == [warning, "name: web-frontend"]


def claim(name: str, storage_class: str, phase: str = "Pending") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": SHOP},
        "spec": {"storageClassName": storage_class, "accessModes": ["ReadWriteOnce"]},
        "status": {"phase": phase},
    }


def storage_class(name: str, binding: str = "Immediate") -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": "ebs.csi.aws.com",
        "volumeBindingMode": binding,
    }


def test_a_claim_on_a_storage_class_that_does_not_exist_is_reported_with_the_provisioner_s_warning() -> None:
    """object_rules.claim_unbound: the claim names a class the cluster does not have; its pod waits."""
    waiting = mini_pod("db-0", SHOP, "Pending", node=None)
    waiting["labels"] = {"app": "db", "statefulset.kubernetes.io/pod-name": "db-0"}
    told = 'storageclass.storage.k8s.io "fast-ssd" not found'
    fixture = cluster(
        [*WEB, waiting],
        [claim("data-db-0", "fast-ssd"), storage_class("standard")],
        [
            event(SHOP, "persistentvolumeclaim/data-db-0", "ProvisioningFailed", told),
            event(
                SHOP,
                "pod/db-0",
                "FailedScheduling",
                "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.",
            ),
        ],
    )
    causes, report, _ = causes_of(fixture, "Why is the db PVC in shop pending?")

    assert causes == {"pod/db-0": "unbound_volume", "pvc/data-db-0": "unbound_volume"}
    assert quotes_of(report, "data-db-0") == [told, "storageClassName: fast-ssd"]


def test_a_claim_waiting_for_its_first_consumer_is_healthy() -> None:
    """object_rules.claim_unbound: WaitForFirstConsumer with no pod waiting for it is how it should be."""
    fixture = cluster(
        WEB,
        [claim("scratch", "standard"), storage_class("standard", "WaitForFirstConsumer")],
        [
            event(
                SHOP,
                "persistentvolumeclaim/scratch",
                "WaitForFirstConsumer",
                "waiting for first consumer to be created before binding",
                kind="Normal",
            )
        ],
    )
    causes, _, _ = causes_of(fixture, "Is the scratch claim in shop OK?")

    assert causes == {}


def test_a_deployment_whose_replica_set_cannot_create_pods_is_reported_with_the_reason_it_gives() -> None:
    """object_rules.workload_cannot_create: a quota refuses the new pods (a ReplicaSet's FailedCreate,
    reported as its Deployment), a missing service account another's."""
    quota = 'Error creating: pods "web-7c9d8f6b5-x" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=7, limited: cpu=8'
    account = 'Error creating: pods "api-5b7d9c6f48-" is forbidden: error looking up service account shop/api-writer: serviceaccount "api-writer" not found'
    fixture = cluster(
        WEB,
        [deployment("web", "web", replicas=3, ready=2), deployment("api", "api", replicas=1, ready=0)],
        [
            event(SHOP, "replicaset/web-7c9d8f6b5", "FailedCreate", quota),
            event(SHOP, "replicaset/api-5b7d9c6f48", "FailedCreate", account),
        ],
    )
    causes, report, _ = causes_of(fixture, "Why is the shop namespace short of replicas?")

    assert causes == {"deployment/web": "quota_exceeded", "deployment/api": "missing_config_reference"}
    assert quotes_of(report, "web") == [quota]


def test_a_rollout_past_its_deadline_is_reported_with_its_new_pod_s_cause() -> None:
    """object_rules.rollout_stuck: the old pods serve, the new one fails its readiness probe, the
    Deployment is past its progress deadline."""
    new = pod("web-5b7d9c6f48-qk2vz", "web", "10.1.0.9", ready=False)
    progressing = {
        "type": "Progressing",
        "status": "False",
        "reason": "ProgressDeadlineExceeded",
        "message": 'ReplicaSet "web-5b7d9c6f48" has timed out progressing.',
    }
    fixture = cluster(
        [*WEB, new],
        [deployment("web", "web", replicas=2, ready=2, updated=1, conditions=[progressing])],
        [
            event(
                SHOP,
                f"pod/{new['name']}",
                "Unhealthy",
                "Readiness probe failed: HTTP probe failed with statuscode: 404",
            )
        ],
    )
    causes, report, _ = causes_of(fixture, "The web rollout in shop never finishes. Why?")

    assert causes == {
        "pod/web-5b7d9c6f48-qk2vz": "readiness_probe_failure",
        "deployment/web": "readiness_probe_failure",
    }
    assert quotes_of(report, "web")[0] == 'message: ReplicaSet "web-5b7d9c6f48" has timed out progressing.'


def autoscaler(*conditions: dict[str, str], current: int = 80) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": SHOP},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 2,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}},
                }
            ],
        },
        "status": {
            "currentReplicas": 2,
            "desiredReplicas": 2,
            "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": current}}}
            ],
            "conditions": list(conditions),
        },
    }


def test_an_autoscaler_that_cannot_read_its_metrics_or_is_held_at_its_maximum_is_reported() -> None:
    """object_rules.autoscaler_limited: blind (ScalingActive False), or at its maximum above target."""
    blind = {
        "type": "ScalingActive",
        "status": "False",
        "reason": "FailedGetResourceMetric",
        "message": "the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container sidecar",
    }
    fixture = cluster(WEB, [deployment("web", "web"), autoscaler(blind)])
    causes, report, _ = causes_of(fixture, "Why doesn't web in shop scale?")
    assert causes == {"other/web": "autoscaler_limit"}
    assert "missing request for cpu" in quotes_of(report, "web")[0]

    held = {
        "type": "ScalingLimited",
        "status": "True",
        "reason": "TooManyReplicas",
        "message": "the desired replica count is more than the maximum replica count",
    }
    causes, _, _ = causes_of(
        cluster(WEB, [deployment("web", "web"), autoscaler(held, current=180)]), "Is web in shop OK?"
    )
    assert causes == {"other/web": "autoscaler_limit"}


def test_an_autoscaler_at_its_maximum_within_its_target_is_healthy() -> None:
    """object_rules.autoscaler_limited: at maxReplicas with the load under its target: nothing wrong."""
    calm = {
        "type": "ScalingLimited",
        "status": "True",
        "reason": "TooManyReplicas",
        "message": "the desired replica count is more than the maximum replica count",
    }
    causes, _, _ = causes_of(
        cluster(WEB, [deployment("web", "web"), autoscaler(calm, current=55)]), "Is web in shop OK?"
    )

    assert causes == {}


def test_an_egress_policy_that_blocks_dns_is_reported_and_explains_the_pods_that_cannot_resolve() -> None:
    """object_rules.policy_cuts_traffic, objects.explained: the pods cannot resolve their database's name
    and an egress policy selecting them allows only their own namespace."""
    line = 'could not translate host name "db.shop.svc.cluster.local" to address: Temporary failure in name resolution'
    worker = pod(
        "worker-6f9c8d7b5-gx4ht",
        "worker",
        "10.1.0.7",
        status="CrashLoopBackOff",
        restarts=4,
        previous_logs=["starting", line],
    )
    policy = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "worker-egress", "namespace": SHOP},
        "spec": {
            "podSelector": {"matchLabels": {"app": "worker"}},
            "policyTypes": ["Egress"],
            "egress": [
                {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": SHOP}}}]}
            ],
        },
    }
    fixture = cluster([*WEB, worker], [policy])
    causes, report, _ = causes_of(fixture, "Why does worker keep restarting in shop?")

    assert causes == {"pod/worker-6f9c8d7b5-gx4ht": "network_policy", "other/worker-egress": "network_policy"}
    assert quotes_of(report, "worker-egress")[0] == "kubernetes.io/metadata.name: shop"


def test_past_the_pods_the_calls_are_one_listing_round_and_one_reading_round() -> None:
    """objects.objects_wanted: the kinds are listed in one round, the objects that can be wrong read in
    the next; a namespace with no such object costs one round."""
    calls, _, _ = play(Cluster(cluster(WEB, [])), "Is anything wrong in the shop namespace?", max_turns=8)
    kinds = [a["kind"] for name, a in calls if name == "resources_list"]
    assert kinds == [
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "Job",
        "Service",
        "Endpoints",
        "Ingress",
        "PersistentVolumeClaim",
        "HorizontalPodAutoscaler",
        "NetworkPolicy",
    ]
    assert not [name for name, _ in calls if name == "resources_get"]


def test_a_kubectl_table_is_read_by_its_columns_even_where_a_header_holds_a_space() -> None:
    table = (
        "NAME        STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   AGE\n"
        "data-db-0   Pending                                      fast-ssd       5m\n"
        "data-db-1   Bound     pv-1     10Gi       RWO            standard       5d\n"
    )
    rows = aligned_table(table)
    assert [(r["NAME"], r["STATUS"], r["ACCESS MODES"], r["STORAGECLASS"]) for r in rows] == [
        ("data-db-0", "Pending", "", "fast-ssd"),
        ("data-db-1", "Bound", "RWO", "standard"),
    ]
