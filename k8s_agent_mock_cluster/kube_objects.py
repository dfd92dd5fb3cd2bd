"""A mock-cluster fixture as Kubernetes objects: what a real API server would hold for that cluster.

`kube_objects(fixture, now)` turns a fixture (docs/mock-cluster.md) into the fixture of the fake
Kubernetes API (kube_api.FakeKubeAPI): Pods with their spec (images, resources, env, probes) and a
status.containerStatuses a kubelet would write (state, last termination, restarts, readiness), core
v1 Events with their involved object, Nodes with capacity, allocatable, conditions and roles, and the
containers' current and previous logs. Served with `FakeKubeAPI(objects, now=now)`, a real client
(kubectl, kubernetes-mcp-server) lists the same pods with the same STATUS, READY, RESTARTS and AGE as
the mock cluster's `list_pods`, and reads the same events and log lines.

`now` is the moment the cluster is looked at (an incident's `cluster.now`): ages ("2h", "45s") become
timestamps that far before it. What the fixture format has no object for (Jobs, ReplicaSets, PVCs,
quotas) exists only as the events about it, as in the mock cluster, unless the fixture lists it
among its `objects` (Kubernetes objects as they are: a Deployment, a Secret), served as given.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from typing import Any

from k8s_agent_mock_cluster.kube_resources import api_key

JSON = dict[str, Any]

# A container whose pod says Init:... and that still waits for its pod to initialise is an app
# container; the ones before it are the init containers (the fixture format has one list).
_INITIALIZING = "PodInitializing"
_STATE_KEYS = {
    "started_at": "startedAt",
    "finished_at": "finishedAt",
    "exit_code": "exitCode",
    "reason": "reason",
    "message": "message",
    "signal": "signal",
}
_KINDS = {
    "pod": ("Pod", "v1"),
    "node": ("Node", "v1"),
    "job": ("Job", "batch/v1"),
    "cronjob": ("CronJob", "batch/v1"),
    "deployment": ("Deployment", "apps/v1"),
    "replicaset": ("ReplicaSet", "apps/v1"),
    "statefulset": ("StatefulSet", "apps/v1"),
    "daemonset": ("DaemonSet", "apps/v1"),
    "persistentvolumeclaim": ("PersistentVolumeClaim", "v1"),
    "horizontalpodautoscaler": ("HorizontalPodAutoscaler", "autoscaling/v2"),
    "service": ("Service", "v1"),
}
_NODE_CONDITIONS = {
    # type: (reason when False, message when False, reason when True, message when True)
    "MemoryPressure": (
        "KubeletHasSufficientMemory",
        "kubelet has sufficient memory available",
        "KubeletHasInsufficientMemory",
        "kubelet has insufficient memory available",
    ),
    "DiskPressure": (
        "KubeletHasNoDiskPressure",
        "kubelet has no disk pressure",
        "KubeletHasDiskPressure",
        "kubelet has disk pressure",
    ),
    "PIDPressure": (
        "KubeletHasSufficientPID",
        "kubelet has sufficient PID available",
        "KubeletHasInsufficientPID",
        "kubelet has insufficient PID available",
    ),
    "NetworkUnavailable": (
        "RouteCreated",
        "RouteController created a route",
        "NoRouteCreated",
        "RouteController failed to create a route",
    ),
}


def kube_objects(fixture: JSON, now: datetime) -> JSON:
    """The fake Kubernetes API's fixture (see kube_api) for a mock-cluster fixture seen at `now`."""
    nodes = fixture.get("nodes") or []
    pods = fixture.get("pods") or []
    events = fixture.get("events") or []
    addresses = {str(n.get("name")): n.get("internal_ip") for n in nodes}
    objects: JSON = {
        "namespaces": sorted({str(p["namespace"]) for p in pods} | {str(e["namespace"]) for e in events}),
        "nodes": [_node(node, now) for node in nodes],
        "pods": [_pod(pod, now, addresses, events) for pod in pods],
        "events": [_event(event, now, pods) for event in events],
        "logs": _logs(pods),
    }
    for obj in fixture.get("objects") or []:  # any other kind, served as it is
        served = dict(obj)
        served["metadata"] = {"creationTimestamp": _before(now, "5d"), **dict(obj["metadata"])}
        objects.setdefault(api_key(obj), []).append(served)
    objects["endpoints"] = objects.get("endpoints", []) + derived_endpoints(objects, now)
    if not objects["endpoints"]:
        del objects["endpoints"]
    version = str((fixture.get("cluster") or {}).get("version") or "")
    match = re.match(r"v(\d+)\.(\d+)", version)
    if match:
        objects["version"] = {"major": match[1], "minor": match[2], "gitVersion": version}
    return objects


def derived_endpoints(objects: JSON, now: datetime) -> list[JSON]:
    """The Endpoints the endpoints controller keeps for each Service with a selector whose Endpoints
    the fixture does not give: the IPs of the pods in its namespace its selector matches, ready ones
    under `addresses`, the others under `notReadyAddresses` (a Service whose selector matches no pod
    has an Endpoints object with no subsets, which kubectl shows as `<none>`)."""
    given = {(e["metadata"].get("namespace"), e["metadata"]["name"]) for e in objects.get("endpoints") or []}
    pods = objects.get("pods") or []
    derived = []
    for service in objects.get("services") or []:
        meta, spec = service["metadata"], service.get("spec") or {}
        namespace = meta.get("namespace") or "default"
        selector = spec.get("selector")
        if not isinstance(selector, dict) or not selector or (namespace, meta["name"]) in given:
            continue
        ready: list[JSON] = []
        waiting: list[JSON] = []
        for pod in pods:
            labels = pod["metadata"].get("labels") or {}
            ip = (pod.get("status") or {}).get("podIP")
            if pod["metadata"].get("namespace") != namespace or not ip:
                continue
            if any(labels.get(key) != str(value) for key, value in selector.items()):
                continue
            address = {
                "ip": ip,
                "nodeName": (pod.get("spec") or {}).get("nodeName"),
                "targetRef": {"kind": "Pod", "namespace": namespace, "name": pod["metadata"]["name"]},
            }
            conditions = {c["type"]: c["status"] for c in (pod.get("status") or {}).get("conditions") or []}
            statuses = (pod.get("status") or {}).get("containerStatuses") or []
            is_ready = conditions.get(
                "Ready", "True" if statuses and all(c.get("ready") for c in statuses) else "False"
            )
            (ready if is_ready == "True" else waiting).append(address)
        ports = [
            {
                k: v
                for k, v in {
                    "name": port.get("name"),
                    "port": port.get("targetPort")
                    if isinstance(port.get("targetPort"), int)
                    else port.get("port"),
                    "protocol": port.get("protocol") or "TCP",
                }.items()
                if v is not None
            }
            for port in spec.get("ports") or []
            if isinstance(port, dict)
        ]
        subset: JSON = {}
        if ready:
            subset["addresses"] = ready
        if waiting:
            subset["notReadyAddresses"] = waiting
        endpoints: JSON = {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": {
                "name": meta["name"],
                "namespace": namespace,
                **({"labels": dict(meta["labels"])} if meta.get("labels") else {}),
                "creationTimestamp": meta.get("creationTimestamp") or _before(now, "5d"),
            },
        }
        if subset:
            endpoints["subsets"] = [{**subset, "ports": ports}] if ports else [subset]
        derived.append(endpoints)
    return derived


def cluster_moment(fixture_now: Any, default: datetime) -> datetime:
    """An incident's `cluster.now` (a datetime, or text like 2026-12-01T06:00:00Z), else `default`."""
    if isinstance(fixture_now, datetime):
        return fixture_now if fixture_now.tzinfo else fixture_now.replace(tzinfo=default.tzinfo)
    if isinstance(fixture_now, str) and fixture_now:
        return datetime.fromisoformat(fixture_now.replace("Z", "+00:00"))
    return default


# -- pods ------------------------------------------------------------------------------------------


def _pod(pod: JSON, now: datetime, addresses: dict[str, Any], events: list[JSON]) -> JSON:
    name, namespace = str(pod["name"]), str(pod["namespace"])
    created = _before(now, pod.get("age"))
    init, app = _split_init(pod)
    node = pod.get("node")
    spec: JSON = {
        "containers": [_container_spec(c) for c in app],
        "restartPolicy": "Never" if _job_name(pod) else "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default",
        "schedulerName": "default-scheduler",
        "enableServiceLinks": True,
        "priority": 0,
        "tolerations": [
            {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
            for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
        ],
    }
    if init:
        spec["initContainers"] = [_container_spec(c) for c in init]
    if node:
        spec["nodeName"] = node
    status: JSON = {
        "phase": pod.get("phase") or "Pending",
        "conditions": [
            {"type": kind, "status": str(value), "lastProbeTime": None, "lastTransitionTime": created}
            for kind, value in (pod.get("conditions") or {}).items()
        ],
        "qosClass": _qos(app),
    }
    if pod.get("status") == "Evicted":
        status["reason"] = "Evicted"
        told = next(
            (e for e in events if e.get("object") == f"pod/{name}" and e.get("reason") == "Evicted"), None
        )
        if told:
            status["message"] = told["message"]
    for key in ("reason", "message"):  # as the fixture says them, over what the events tell
        if pod.get(key):
            status[key] = str(pod[key])
    if node:
        status["hostIP"] = addresses.get(str(node)) or "10.0.0.1"
        status["startTime"] = created
        if init:
            status["initContainerStatuses"] = [_container_status(c, name, namespace, None) for c in init]
        running = created if status["phase"] == "Running" else None
        status["containerStatuses"] = [_container_status(c, name, namespace, running) for c in app]
    if pod.get("ip"):
        status["podIP"] = pod["ip"]
        status["podIPs"] = [{"ip": pod["ip"]}]
    metadata: JSON = {
        "name": name,
        "namespace": namespace,
        "uid": _uid("pod", namespace, name),
        "resourceVersion": "1000",
        "creationTimestamp": created,
        "labels": dict(pod.get("labels") or {}),
    }
    if pod.get("annotations"):
        metadata["annotations"] = dict(pod["annotations"])
    if pod.get("status") == "Terminating":
        # A pod being deleted carries a deletion timestamp, which kubectl prints as Terminating; the
        # fixture says no more than that it is, so the grace period is taken to end now.
        metadata["deletionTimestamp"] = _iso(now)
        metadata["deletionGracePeriodSeconds"] = 30
    owner = _owner(pod)
    if owner:
        kind, api_version, owner_name = owner
        metadata["ownerReferences"] = [
            {
                "apiVersion": api_version,
                "kind": kind,
                "name": owner_name,
                "uid": _uid(kind, namespace, owner_name),
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


def _split_init(pod: JSON) -> tuple[list[JSON], list[JSON]]:
    """(init containers, app containers). A pod whose STATUS is `Init:N/M` has M init containers, the
    first M it lists (a later init container waits in PodInitializing as the app containers do);
    for another `Init:...` status, the containers before the first one waiting in PodInitializing."""
    containers = list(pod.get("containers") or [])
    init = list(pod.get("init_containers") or [])
    status = str(pod.get("status", ""))
    if init or not status.startswith("Init:"):
        return init, containers
    counted = re.fullmatch(r"Init:\d+/(\d+)", status)
    if counted and 0 < int(counted.group(1)) < len(containers):
        return containers[: int(counted.group(1))], containers[int(counted.group(1)) :]
    waiting = [i for i, c in enumerate(containers) if _waiting(c) == _INITIALIZING]
    if not waiting or waiting[0] == 0:
        return [], containers
    return containers[: waiting[0]], containers[waiting[0] :]


def _waiting(container: JSON) -> str | None:
    state = container.get("state") or {}
    waiting = state.get("waiting") if isinstance(state, dict) else None
    return str(waiting.get("reason")) if isinstance(waiting, dict) and waiting.get("reason") else None


def _container_spec(container: JSON) -> JSON:
    spec: JSON = {
        "name": container["name"],
        "image": container["image"],
        "imagePullPolicy": "IfNotPresent",
        "resources": {key: dict(container[key]) for key in ("limits", "requests") if container.get(key)},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }
    env = container.get("env") or {}
    if env:
        spec["env"] = [_env_var(key, value) for key, value in env.items()]
    for field, key in (("livenessProbe", "liveness_probe"), ("readinessProbe", "readiness_probe")):
        probe = _probe(container.get(key))
        if probe:
            spec[field] = probe
    ports = sorted(
        {
            port
            for key in ("liveness_probe", "readiness_probe")
            for port in re.findall(
                r"(?:http-get https?://[^:/\s]*:|tcp-socket [^:\s]*:)(\d+)", str(container.get(key) or "")
            )
        }
    )
    if ports:
        spec["ports"] = [{"containerPort": int(port), "protocol": "TCP"} for port in ports]
    return spec


def _env_var(key: str, value: Any) -> JSON:
    if isinstance(value, dict):
        reference = {"name": value.get("secret"), "key": value.get("key")}
        if value.get("configmap"):
            return {"name": key, "valueFrom": {"configMapKeyRef": {**reference, "name": value["configmap"]}}}
        return {"name": key, "valueFrom": {"secretKeyRef": reference}}
    return {"name": key, "value": str(value)}


_PROBE = re.compile(
    r"^(?P<how>http-get|tcp-socket|exec)\s+(?P<what>\[.*?\]|\S+)(?P<rest>.*)$",
)


def _probe(text: Any) -> JSON | None:
    """A probe from its `kubectl describe` line (`http-get http://:8080/healthz delay=10s timeout=1s
    period=10s #success=1 #failure=3`); None when there is none or it does not read as one."""
    match = _PROBE.match(str(text or "").strip())
    if not match:
        return None
    probe: JSON = {}
    how, what = match["how"], match["what"]
    if how == "http-get":
        url = re.match(r"(https?)://([^:/]*):(\d+)(/\S*)?", what)
        if not url:
            return None
        probe["httpGet"] = {"path": url[4] or "/", "port": int(url[3]), "scheme": url[1].upper()}
    elif how == "tcp-socket":
        port = re.search(r":(\d+)$", what)
        if not port:
            return None
        probe["tcpSocket"] = {"port": int(port[1])}
    else:
        probe["exec"] = {"command": what.strip("[]").split()}
    fields = dict(re.findall(r"(\S+)=(\S+)", match["rest"]))
    for key, name in (
        ("delay", "initialDelaySeconds"),
        ("timeout", "timeoutSeconds"),
        ("period", "periodSeconds"),
        ("#success", "successThreshold"),
        ("#failure", "failureThreshold"),
    ):
        if key in fields:
            probe[name] = int(re.sub(r"\D", "", fields[key]) or 0)
    return probe


def _container_status(container: JSON, pod: str, namespace: str, running_since: str | None) -> JSON:
    """The container's status; one with no state in a running pod has run since `running_since`."""
    image = str(container["image"])
    state = _state(container.get("state"))
    if not state and running_since:
        state = {"running": {"startedAt": running_since}}
    last = _state(container.get("last_state"))
    waiting = _waiting(container)
    started = "running" in state
    status: JSON = {
        "name": container["name"],
        "image": image,
        "imageID": ""
        if waiting and not container.get("restarts")
        else f"{image.split(':')[0]}@sha256:{_digest(image)}",
        "ready": bool(container.get("ready")),
        "restartCount": int(container.get("restarts") or 0),
        "started": started,
        "state": state or {"waiting": {"reason": "ContainerCreating"}},
        "lastState": last,
    }
    if not waiting or container.get("restarts") or last:
        status["containerID"] = f"containerd://{_digest(namespace, pod, str(container['name']))}"
    return status


def _state(state: Any) -> JSON:
    """A fixture's container state ({waiting: {reason}}, {terminated: {exit_code, ...}}) in the API's words."""
    if not isinstance(state, dict) or not state:
        return {}
    kind, detail = next(iter(state.items()))
    out = {_STATE_KEYS.get(key, key): value for key, value in (detail or {}).items()}
    if kind == "terminated":
        out.setdefault("exitCode", 0)
    return {str(kind): out}


def _qos(containers: list[JSON]) -> str:
    resources = [(c.get("requests") or {}, c.get("limits") or {}) for c in containers]
    if not any(requests or limits for requests, limits in resources):
        return "BestEffort"
    guaranteed = all(
        limits.get("cpu") and limits.get("memory") and requests in ({}, limits)
        for requests, limits in resources
    )
    return "Guaranteed" if guaranteed else "Burstable"


def _job_name(pod: JSON) -> str | None:
    labels = pod.get("labels") or {}
    return labels.get("batch.kubernetes.io/job-name") or labels.get("job-name")


def _owner(pod: JSON) -> tuple[str, str, str] | None:
    """The controller a pod's labels and name show: a Job, a ReplicaSet, a StatefulSet."""
    labels = pod.get("labels") or {}
    name = str(pod["name"])
    job = _job_name(pod)
    if job:
        return ("Job", "batch/v1", str(job))
    template = labels.get("pod-template-hash")
    if template and f"-{template}-" in name:
        return ("ReplicaSet", "apps/v1", name[: name.rindex(f"-{template}-")] + f"-{template}")
    if labels.get("statefulset.kubernetes.io/pod-name") == name and "-" in name:
        return ("StatefulSet", "apps/v1", name.rsplit("-", 1)[0])
    return None


def _logs(pods: list[JSON]) -> JSON:
    logs: JSON = {}
    for pod in pods:
        for container in [*(pod.get("init_containers") or []), *(pod.get("containers") or [])]:
            entry: JSON = {"current": _text(container.get("logs"))}
            if container.get("previous_logs"):
                entry["previous"] = _text(container["previous_logs"])
            logs[f"{pod['namespace']}/{pod['name']}/{container['name']}"] = entry
    return logs


def _text(lines: Any) -> str:
    return "".join(f"{line}\n" for line in lines or [])


# -- events and nodes ------------------------------------------------------------------------------


def _event(event: JSON, now: datetime, pods: list[JSON]) -> JSON:
    kind_word, _, name = str(event["object"]).partition("/")
    kind, api_version = _KINDS.get(kind_word.lower(), (kind_word[:1].upper() + kind_word[1:], "v1"))
    namespace = str(event["namespace"])
    last = _before(now, event.get("last_seen"))
    first = _before(now, event.get("first_seen")) if event.get("first_seen") else last
    source = str(event.get("source") or "kubelet")
    host = None
    if kind == "Pod":
        host = next((p.get("node") for p in pods if p["name"] == name and p["namespace"] == namespace), None)
    elif kind == "Node":
        host = name
    digest = _digest(namespace, str(event["object"]), str(event["reason"]), str(event["message"]))[:16]
    involved: JSON = {
        "kind": kind,
        "name": name,
        "apiVersion": api_version,
        "uid": _uid(kind, "" if kind == "Node" else namespace, name),
    }
    if kind != "Node":
        involved["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{name}.{digest}",
            "namespace": namespace,
            "uid": _uid("event", namespace, name, digest),
            "resourceVersion": "2000",
            "creationTimestamp": first,
        },
        "involvedObject": involved,
        "reason": event["reason"],
        "message": event["message"],
        "source": {"component": source, **({"host": host} if host and source == "kubelet" else {})},
        "firstTimestamp": first,
        "lastTimestamp": last,
        "count": int(event.get("count") or 1),
        "type": event.get("type") or "Normal",
        "eventTime": None,
        "reportingComponent": source,
        "reportingInstance": host or "",
    }


def _node(node: JSON, now: datetime) -> JSON:
    name = str(node["name"])
    created = _before(now, node.get("age"))
    heartbeat = _iso(now - timedelta(seconds=10))
    ready = str(node.get("status", "Ready")) == "Ready"
    conditions = dict(node.get("conditions") or {})
    conditions.setdefault("Ready", "True" if ready else "Unknown")
    listed = []
    for kind, value in conditions.items():
        if kind == "Ready":
            reason, message = (
                ("KubeletReady", "kubelet is posting ready status")
                if value == "True"
                else ("NodeStatusUnknown", "Kubelet stopped posting node status.")
                if value == "Unknown"
                else ("KubeletNotReady", "container runtime status check may not have completed yet")
            )
        elif kind in _NODE_CONDITIONS:
            calm_reason, calm_message, bad_reason, bad_message = _NODE_CONDITIONS[kind]
            reason, message = (
                (bad_reason, bad_message)
                if value == "True"
                else (calm_reason, calm_message)
                if value == "False"
                else ("NodeStatusUnknown", "Kubelet stopped posting node status.")
            )
        else:
            reason, message = kind, ""
        listed.append(
            {
                "type": kind,
                "status": str(value),
                "reason": reason,
                "message": message,
                "lastHeartbeatTime": heartbeat,
                "lastTransitionTime": created,
            }
        )
    labels = {
        **{f"node-role.kubernetes.io/{role}": "" for role in node.get("roles") or [] if role != "<none>"},
        **(node.get("labels") or {}),
    }
    labels.setdefault("kubernetes.io/hostname", name)
    labels.setdefault("kubernetes.io/os", "linux")
    capacity = dict(node.get("capacity") or node.get("allocatable") or {})
    capacity.setdefault("pods", "110")
    allocatable = dict(node.get("allocatable") or capacity)
    allocatable.setdefault("pods", capacity["pods"])
    version = str(node.get("version") or "v1.29.0")
    spec: JSON = {}
    if "SchedulingDisabled" in str(node.get("status", "")):
        spec["unschedulable"] = True
    if node.get("taints"):
        spec["taints"] = [
            {k: taint[k] for k in ("key", "value", "effect") if taint.get(k) is not None}
            for taint in node["taints"]
        ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": _uid("node", name),
            "resourceVersion": "3000",
            "creationTimestamp": created,
            "labels": labels,
        },
        "spec": spec,
        "status": {
            "conditions": listed,
            "addresses": [
                {"type": "InternalIP", "address": str(node.get("internal_ip") or "10.0.0.1")},
                {"type": "Hostname", "address": name},
            ],
            "capacity": capacity,
            "allocatable": allocatable,
            "nodeInfo": {
                "kubeletVersion": version,
                "kubeProxyVersion": version,
                "osImage": "Ubuntu 22.04.4 LTS",
                "kernelVersion": "6.5.0",
                "containerRuntimeVersion": "containerd://1.7.22",
                "operatingSystem": "linux",
                "architecture": "amd64",
                "machineID": "",
                "systemUUID": "",
                "bootID": "",
            },
        },
    }


# -- times and names -------------------------------------------------------------------------------


def _before(now: datetime, age: Any) -> str:
    """The timestamp `age` ("45s", "38m", "3h12m", "9d") before `now`; `now` for no age."""
    parts = re.findall(r"(\d+)([smhd])", str(age or ""))
    seconds = sum(int(amount) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[unit] for amount, unit in parts)
    return _iso(now - timedelta(seconds=seconds))


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _digest(*parts: str) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()


def _uid(*parts: str) -> str:
    h = _digest(*parts)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
