"""The columns `kubectl get` prints for the kinds beyond pods, events and nodes, as the API server's
table printers write them (k8s.io/kubernetes/pkg/printers/internalversion): a Deployment's READY,
UP-TO-DATE and AVAILABLE, a Service's TYPE, CLUSTER-IP and PORT(S), a claim's STATUS, VOLUME and
STORAGECLASS, an autoscaler's TARGETS and REPLICAS ...

`columns(kind, objects, age)` gives (column definitions, rows) for the fake Kubernetes API's
server-side Tables and for the mock cluster's `resources_list`; a kind it has no printer for gets
NAME and AGE, as the API server answers for a custom resource with no printer columns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

JSON = dict[str, Any]
Row = list[Any]


def column(name: str, type_: str = "string", fmt: str = "", priority: int = 0) -> JSON:
    """A Table column definition (priority 1: shown only with `-o wide`)."""
    return {"name": name, "type": type_, "format": fmt, "description": "", "priority": priority}


def _get(obj: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _none(value: Any) -> str:
    return str(value) if value not in (None, "", [], {}) else "<none>"


def _selector(selector: Any) -> str:
    """A label selector as kubectl prints it (`app=web,tier!=db`), `<none>` when empty."""
    if not isinstance(selector, dict):
        return "<none>"
    labels = (
        selector.get("matchLabels")
        if "matchLabels" in selector or "matchExpressions" in selector
        else selector
    )
    parts = [f"{k}={v}" for k, v in sorted((labels or {}).items())]
    for expression in selector.get("matchExpressions") or []:
        if not isinstance(expression, dict):
            continue
        key, op = expression.get("key"), str(expression.get("operator") or "")
        values = ",".join(str(v) for v in expression.get("values") or [])
        parts.append(
            {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": str(key)}.get(
                op, f"!{key}"
            )
        )
    return ",".join(parts) or "<none>"


def _containers(obj: JSON) -> list[JSON]:
    spec = _get(obj, "spec", "template", "spec") or _get(
        obj, "spec", "jobTemplate", "spec", "template", "spec"
    )
    return [c for c in (spec or {}).get("containers") or [] if isinstance(c, dict)]


def _wide(obj: JSON) -> Row:
    containers = _containers(obj)
    return [
        ",".join(str(c.get("name", "")) for c in containers) or "<none>",
        ",".join(str(c.get("image", "")) for c in containers) or "<none>",
        _selector(_get(obj, "spec", "selector")),
    ]


_WIDE = [column("Containers", priority=1), column("Images", priority=1), column("Selector", priority=1)]


def _deployment(obj: JSON, age: str) -> Row:
    status = obj.get("status") or {}
    desired = _int(_get(obj, "spec", "replicas") if _get(obj, "spec", "replicas") is not None else 1)
    return [
        f"{_int(status.get('readyReplicas'))}/{desired}",
        _int(status.get("updatedReplicas")),
        _int(status.get("availableReplicas")),
        age,
        *_wide(obj),
    ]


def _replica_set(obj: JSON, age: str) -> Row:
    status = obj.get("status") or {}
    return [
        _int(_get(obj, "spec", "replicas")),
        _int(status.get("replicas")),
        _int(status.get("readyReplicas")),
        age,
        *_wide(obj),
    ]


def _stateful_set(obj: JSON, age: str) -> Row:
    status = obj.get("status") or {}
    desired = _int(_get(obj, "spec", "replicas") if _get(obj, "spec", "replicas") is not None else 1)
    return [f"{_int(status.get('readyReplicas'))}/{desired}", age, *_wide(obj)[:2]]


def _daemon_set(obj: JSON, age: str) -> Row:
    status = obj.get("status") or {}
    node_selector = _get(obj, "spec", "template", "spec", "nodeSelector") or {}
    return [
        _int(status.get("desiredNumberScheduled")),
        _int(status.get("currentNumberScheduled")),
        _int(status.get("numberReady")),
        _int(status.get("updatedNumberScheduled")),
        _int(status.get("numberAvailable")),
        ",".join(f"{k}={v}" for k, v in sorted(node_selector.items())) or "<none>",
        age,
        *_wide(obj),
    ]


def _job(obj: JSON, age: str) -> Row:
    status = obj.get("status") or {}
    conditions = {
        str(c.get("type")): str(c.get("status"))
        for c in status.get("conditions") or []
        if isinstance(c, dict)
    }
    if conditions.get("Failed") == "True":
        state = "Failed"
    elif conditions.get("Complete") == "True":
        state = "Complete"
    elif conditions.get("Suspended") == "True":
        state = "Suspended"
    else:
        state = "Running"
    completions = _get(obj, "spec", "completions")
    wanted = _int(completions) if completions is not None else 1
    return [
        state,
        f"{_int(status.get('succeeded'))}/{wanted}",
        _none(status.get("duration")),
        age,
        *_wide(obj),
    ]


def _cron_job(obj: JSON, age: str) -> Row:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        _none(spec.get("schedule")),
        _none(spec.get("timeZone")),
        str(bool(spec.get("suspend"))),
        len(status.get("active") or []),
        _none(status.get("lastScheduleTime")),
        age,
        *_wide(obj),
    ]


def _ports(ports: Any) -> str:
    shown = []
    for port in ports or []:
        if not isinstance(port, dict):
            continue
        text = str(port.get("port", ""))
        if port.get("nodePort"):
            text += f":{port['nodePort']}"
        shown.append(f"{text}/{port.get('protocol') or 'TCP'}")
    return ",".join(shown) or "<none>"


def _service(obj: JSON, age: str) -> Row:
    spec = obj.get("spec") or {}
    kind = str(spec.get("type") or "ClusterIP")
    ingress = _get(obj, "status", "loadBalancer", "ingress") or []
    external = ",".join(str(i.get("ip") or i.get("hostname") or "") for i in ingress if isinstance(i, dict))
    if not external:
        external = (
            ",".join(spec.get("externalIPs") or [])
            or str(spec.get("externalName") or "")
            or ("<pending>" if kind == "LoadBalancer" else "<none>")
        )
    return [
        kind,
        str(spec.get("clusterIP") or ("None" if kind == "ExternalName" else "<none>")),
        external,
        _ports(spec.get("ports")),
        age,
        _selector(spec.get("selector")),
    ]


def _endpoints(obj: JSON, age: str) -> Row:
    shown = []
    for subset in obj.get("subsets") or []:
        ports = [p.get("port") for p in subset.get("ports") or [] if isinstance(p, dict)] or [None]
        for address in subset.get("addresses") or []:
            for port in ports:
                ip = address.get("ip", "")
                shown.append(f"{ip}:{port}" if port else str(ip))
    text = ",".join(shown[:3]) + (f" + {len(shown) - 3} more..." if len(shown) > 3 else "")
    return [text or "<none>", age]


def _endpoint_slice(obj: JSON, age: str) -> Row:
    ports = ",".join(str(p.get("port")) for p in obj.get("ports") or [] if isinstance(p, dict)) or "<unset>"
    addresses = [
        str(a) for e in obj.get("endpoints") or [] if isinstance(e, dict) for a in e.get("addresses") or []
    ]
    return [str(obj.get("addressType") or "IPv4"), ports, ",".join(addresses) or "<unset>", age]


def _ingress(obj: JSON, age: str) -> Row:
    spec = obj.get("spec") or {}
    hosts = [str(r.get("host")) for r in spec.get("rules") or [] if isinstance(r, dict) and r.get("host")]
    ingress = _get(obj, "status", "loadBalancer", "ingress") or []
    address = ",".join(str(i.get("ip") or i.get("hostname") or "") for i in ingress if isinstance(i, dict))
    return [
        _none(spec.get("ingressClassName")),
        ",".join(hosts) or "*",
        address,
        "80, 443" if spec.get("tls") else "80",
        age,
    ]


def _network_policy(obj: JSON, age: str) -> Row:
    return [_selector(_get(obj, "spec", "podSelector")), age]


def _claim(obj: JSON, age: str) -> Row:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        str(status.get("phase") or "Pending"),
        str(spec.get("volumeName") or ""),
        str((status.get("capacity") or {}).get("storage") or ""),
        ",".join(_modes(status.get("accessModes") or [])),
        _none(spec.get("storageClassName")),
        "<unset>",
        age,
        _none(spec.get("volumeMode") or "Filesystem"),
    ]


def _modes(modes: list[Any]) -> list[str]:
    short = {
        "ReadWriteOnce": "RWO",
        "ReadOnlyMany": "ROX",
        "ReadWriteMany": "RWX",
        "ReadWriteOncePod": "RWOP",
    }
    return [short.get(str(m), str(m)) for m in modes]


def _volume(obj: JSON, age: str) -> Row:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    claim = spec.get("claimRef") or {}
    return [
        str((spec.get("capacity") or {}).get("storage") or ""),
        ",".join(_modes(spec.get("accessModes") or [])),
        str(spec.get("persistentVolumeReclaimPolicy") or "Retain"),
        str(status.get("phase") or "Available"),
        f"{claim.get('namespace')}/{claim.get('name')}" if claim else "",
        str(spec.get("storageClassName") or ""),
        "<unset>",
        str(status.get("reason") or ""),
        age,
    ]


def _storage_class(obj: JSON, age: str) -> Row:
    annotations = _get(obj, "metadata", "annotations") or {}
    default = annotations.get("storageclass.kubernetes.io/is-default-class") == "true"
    return [
        str(obj.get("provisioner") or ""),
        str(obj.get("reclaimPolicy") or "Delete"),
        str(obj.get("volumeBindingMode") or "Immediate"),
        str(bool(obj.get("allowVolumeExpansion"))).lower(),
        age,
        default,
    ]


def _quota(obj: JSON, age: str) -> Row:
    hard = _get(obj, "status", "hard") or _get(obj, "spec", "hard") or {}
    used = _get(obj, "status", "used") or {}
    requests: list[str] = []
    limits: list[str] = []
    for key in sorted(hard):
        text = f"{key}: {used.get(key, 0)}/{hard[key]}"
        (limits if key.startswith("limits.") else requests).append(text)
    return [age, ", ".join(requests), ", ".join(limits)]


def _autoscaler(obj: JSON, age: str) -> Row:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    target = spec.get("scaleTargetRef") or {}
    shown = []
    current = {
        str(_get(m, "resource", "name")): _get(m, "resource", "current", "averageUtilization")
        for m in status.get("currentMetrics") or []
        if isinstance(m, dict)
    }
    for metric in spec.get("metrics") or []:
        if not isinstance(metric, dict) or metric.get("type") != "Resource":
            continue
        name = str(_get(metric, "resource", "name"))
        wanted = _get(metric, "resource", "target", "averageUtilization")
        now = current.get(name)
        shown.append(f"{name}: {'<unknown>' if now is None else f'{now}%'}/{wanted}%")
    return [
        f"{target.get('kind', '')}/{target.get('name', '')}",
        ", ".join(shown) or "<none>",
        _int(spec.get("minReplicas") or 1),
        _int(spec.get("maxReplicas")),
        _int(status.get("currentReplicas")),
        age,
    ]


def _config_map(obj: JSON, age: str) -> Row:
    return [len(obj.get("data") or {}) + len(obj.get("binaryData") or {}), age]


def _secret(obj: JSON, age: str) -> Row:
    return [
        str(obj.get("type") or "Opaque"),
        len(obj.get("data") or {}) + len(obj.get("stringData") or {}),
        age,
    ]


def _disruption_budget(obj: JSON, age: str) -> Row:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        _none(spec.get("minAvailable")).replace("<none>", "N/A"),
        _none(spec.get("maxUnavailable")).replace("<none>", "N/A"),
        _int(status.get("disruptionsAllowed")),
        age,
    ]


def _service_account(obj: JSON, age: str) -> Row:
    return [len(obj.get("secrets") or []), age]


def _lease(obj: JSON, age: str) -> Row:
    return [str(_get(obj, "spec", "holderIdentity") or ""), age]


Printer = tuple[list[JSON], Callable[[JSON, str], Row]]
PRINTERS: dict[str, Printer] = {
    "Deployment": (
        [column("Ready"), column("Up-to-date"), column("Available"), column("Age"), *_WIDE],
        _deployment,
    ),
    "ReplicaSet": (
        [column("Desired"), column("Current"), column("Ready"), column("Age"), *_WIDE],
        _replica_set,
    ),
    "StatefulSet": ([column("Ready"), column("Age"), *_WIDE[:2]], _stateful_set),
    "DaemonSet": (
        [
            column("Desired"),
            column("Current"),
            column("Ready"),
            column("Up-to-date"),
            column("Available"),
            column("Node Selector"),
            column("Age"),
            *_WIDE,
        ],
        _daemon_set,
    ),
    "Job": ([column("Status"), column("Completions"), column("Duration"), column("Age"), *_WIDE], _job),
    "CronJob": (
        [
            column("Schedule"),
            column("Timezone"),
            column("Suspend"),
            column("Active"),
            column("Last Schedule"),
            column("Age"),
            *_WIDE,
        ],
        _cron_job,
    ),
    "Service": (
        [
            column("Type"),
            column("Cluster-IP"),
            column("External-IP"),
            column("Port(s)"),
            column("Age"),
            column("Selector", priority=1),
        ],
        _service,
    ),
    "Endpoints": ([column("Endpoints"), column("Age")], _endpoints),
    "EndpointSlice": (
        [column("AddressType"), column("Ports"), column("Endpoints"), column("Age")],
        _endpoint_slice,
    ),
    "Ingress": (
        [column("Class"), column("Hosts"), column("Address"), column("Ports"), column("Age")],
        _ingress,
    ),
    "NetworkPolicy": ([column("Pod-Selector"), column("Age")], _network_policy),
    "PersistentVolumeClaim": (
        [
            column("Status"),
            column("Volume"),
            column("Capacity"),
            column("Access Modes"),
            column("StorageClass"),
            column("VolumeAttributesClass"),
            column("Age"),
            column("VolumeMode", priority=1),
        ],
        _claim,
    ),
    "PersistentVolume": (
        [
            column("Capacity"),
            column("Access Modes"),
            column("Reclaim Policy"),
            column("Status"),
            column("Claim"),
            column("StorageClass"),
            column("VolumeAttributesClass"),
            column("Reason"),
            column("Age"),
        ],
        _volume,
    ),
    "StorageClass": (
        [
            column("Provisioner"),
            column("ReclaimPolicy"),
            column("VolumeBindingMode"),
            column("AllowVolumeExpansion"),
            column("Age"),
            column("Default", "boolean", priority=1),
        ],
        _storage_class,
    ),
    "ResourceQuota": ([column("Age"), column("Request"), column("Limit")], _quota),
    "HorizontalPodAutoscaler": (
        [
            column("Reference"),
            column("Targets"),
            column("MinPods", "integer"),
            column("MaxPods", "integer"),
            column("Replicas", "integer"),
            column("Age"),
        ],
        _autoscaler,
    ),
    "ConfigMap": ([column("Data", "integer"), column("Age")], _config_map),
    "Secret": ([column("Type"), column("Data", "integer"), column("Age")], _secret),
    "PodDisruptionBudget": (
        [
            column("Min Available"),
            column("Max Unavailable"),
            column("Allowed Disruptions", "integer"),
            column("Age"),
        ],
        _disruption_budget,
    ),
    "ServiceAccount": ([column("Secrets", "integer"), column("Age")], _service_account),
    "Lease": ([column("Holder"), column("Age")], _lease),
}


def columns(kind: str, objects: list[JSON], age: Callable[[JSON], str]) -> tuple[list[JSON], list[Row]]:
    """(column definitions, rows) for objects of one kind, NAME first; `age` gives an object's AGE."""
    definitions, printer = PRINTERS.get(kind, ([column("Age")], lambda obj, shown: [shown]))
    rows = [[str(_get(obj, "metadata", "name") or ""), *printer(obj, age(obj))] for obj in objects]
    return [column("Name", fmt="name"), *definitions], rows
