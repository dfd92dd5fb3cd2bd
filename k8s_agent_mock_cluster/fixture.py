"""Cluster fixtures: JSON files describing nodes, pods (with logs) and events, validated on load, and
any other Kubernetes object as it is (`objects`: Deployments, Secrets, ConfigMaps ...), which the
fake Kubernetes API serves to the real servers (kube_objects.py).

A YAML incident file (`*.yaml`, docs/eval.md) is a fixture too: its `cluster` section, composed with the
shared backgrounds it names and with the defaults below, is the same kind of description.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

_STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
_LINES = {"type": "array", "items": {"type": "string"}}
_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
# Names as Kubernetes limits them: an object name is a DNS subdomain (at most 253 characters), a
# namespace and a container name a DNS label (at most 63).
_OBJECT_NAME = {"type": "string", "minLength": 1, "maxLength": 253, "pattern": f"^{_LABEL}(\\.{_LABEL})*$"}
_LABEL_NAME = {"type": "string", "minLength": 1, "maxLength": 63, "pattern": f"^{_LABEL}$"}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["nodes", "pods"],
    "properties": {
        "cluster": {"type": "object"},
        "nodes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "status"],
                "properties": {
                    "name": _OBJECT_NAME,
                    "status": {"type": "string"},
                    "roles": {"type": "array", "items": {"type": "string"}},
                    "capacity": _STRING_MAP,
                    "allocatable": _STRING_MAP,
                    "conditions": _STRING_MAP,
                    "labels": _STRING_MAP,
                    "taints": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["key", "effect"],
                            "properties": {
                                "key": {"type": "string", "minLength": 1},
                                "value": {"type": "string"},
                                "effect": {"enum": ["NoSchedule", "PreferNoSchedule", "NoExecute"]},
                            },
                        },
                    },
                },
            },
        },
        "pods": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "namespace", "status", "containers"],
                "properties": {
                    "name": _OBJECT_NAME,
                    "namespace": _LABEL_NAME,
                    "status": {"type": "string"},
                    "phase": {"type": "string"},
                    "reason": {"type": "string"},
                    "message": {"type": "string"},
                    "node": {"type": ["string", "null"]},
                    "labels": _STRING_MAP,
                    "annotations": _STRING_MAP,
                    "conditions": _STRING_MAP,
                    "containers": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["name", "image"],
                            "properties": {
                                "name": _LABEL_NAME,
                                "image": {"type": "string"},
                                "ready": {"type": "boolean"},
                                "restarts": {"type": "integer", "minimum": 0},
                                "state": {"type": "object"},
                                "last_state": {"type": "object"},
                                "requests": _STRING_MAP,
                                "limits": _STRING_MAP,
                                "env": {
                                    "type": "object",
                                    "additionalProperties": {"type": ["string", "object"]},
                                },
                                "logs": _LINES,
                                "previous_logs": _LINES,
                            },
                        },
                    },
                },
            },
        },
        "objects": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["apiVersion", "kind", "metadata"],
                "properties": {
                    "apiVersion": {"type": "string", "minLength": 1},
                    "kind": {"type": "string", "minLength": 1},
                    "metadata": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {"name": _OBJECT_NAME, "namespace": _LABEL_NAME},
                    },
                },
            },
        },
        "events": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["namespace", "object", "type", "reason", "message"],
                "properties": {
                    "object": {"type": "string", "pattern": "^[A-Za-z]+/.+$"},
                    "count": {"type": "integer", "minimum": 1},
                },
            },
        },
    },
}


class FixtureError(Exception):
    """A fixture file is missing, not JSON, or not a cluster description."""


def default_fixture_path() -> Path:
    """The fixture shipped with the package."""
    return Path(str(resources.files("k8s_agent_mock_cluster") / "fixtures" / "default.json"))


def load_fixture(path: Path | None = None) -> dict[str, Any]:
    """Read and validate a fixture (JSON, or a YAML incident file); raises FixtureError with a one-line reason."""
    path = path or default_fixture_path()
    if path.suffix in YAML_SUFFIXES:
        data: Any = compose_incident(path)
    else:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise FixtureError(f"cluster fixture not found: {path}") from None
        except OSError as error:
            raise FixtureError(f"cannot read fixture {path}: {error.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise FixtureError(f"fixture {path} is not valid JSON: {error}") from None
    errors = sorted(
        Draft202012Validator(SCHEMA).iter_errors(data), key=lambda e: list(map(str, e.absolute_path))
    )
    if not errors:
        errors = _unknown_kinds(data)
    if not errors:
        errors = _object_errors(data)
    if errors:
        first = errors[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.absolute_path) or "<root>"
        more = (
            f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
            if len(errors) > 1
            else ""
        )
        message = (
            first.message
            if len(first.message) <= 300
            else f"{first.message[:150]} ... {first.message[-100:]}"
        )
        raise FixtureError(f"fixture {path} is not a cluster description: {where}: {message}{more}")
    return dict(data)


def _unknown_kinds(data: Any) -> list[Any]:
    """An object of a kind the fake Kubernetes API cannot serve, as a validation error."""
    objects = data.get("objects") or []
    if not objects:
        return []
    from jsonschema import ValidationError

    from k8s_agent_mock_cluster.kube_resources import api_key

    problems = []
    for number, obj in enumerate(objects):
        try:
            api_key(obj)
        except ValueError as error:
            problems.append(ValidationError(str(error), path=["objects", number, "kind"]))
    return problems


_LABELS = {"type": "object", "additionalProperties": {"type": "string"}}
_SELECTOR = {
    "type": "object",
    "properties": {
        "matchLabels": _LABELS,
        "matchExpressions": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["key", "operator"],
                "properties": {
                    "key": {"type": "string"},
                    "operator": {"enum": ["In", "NotIn", "Exists", "DoesNotExist"]},
                    "values": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    },
}
_COUNT = {"type": "integer", "minimum": 0}
_CONDITIONS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["type", "status"],
        "properties": {"type": {"type": "string"}, "status": {"enum": ["True", "False", "Unknown"]}},
    },
}
_WORKLOAD = {
    "properties": {
        "spec": {
            "type": "object",
            "properties": {"replicas": _COUNT, "selector": _SELECTOR, "template": {"type": "object"}},
        },
        "status": {
            "type": "object",
            "properties": {
                "replicas": _COUNT,
                "readyReplicas": _COUNT,
                "availableReplicas": _COUNT,
                "updatedReplicas": _COUNT,
                "unavailableReplicas": _COUNT,
                "conditions": _CONDITIONS,
            },
        },
    }
}
_QUANTITIES = {"type": "object", "additionalProperties": {"type": ["string", "integer"]}}
OBJECT_SCHEMAS: dict[str, dict[str, Any]] = {
    "Deployment": _WORKLOAD,
    "ReplicaSet": _WORKLOAD,
    "StatefulSet": _WORKLOAD,
    "DaemonSet": {"properties": {"spec": {"type": "object", "properties": {"selector": _SELECTOR}}}},
    "Job": {
        "properties": {
            "spec": {"type": "object", "properties": {"backoffLimit": _COUNT, "completions": _COUNT}},
            "status": {
                "type": "object",
                "properties": {
                    "succeeded": _COUNT,
                    "failed": _COUNT,
                    "active": _COUNT,
                    "conditions": _CONDITIONS,
                },
            },
        }
    },
    "CronJob": {
        "required": ["spec"],
        "properties": {
            "spec": {
                "type": "object",
                "required": ["schedule"],
                "properties": {"schedule": {"type": "string"}},
            }
        },
    },
    "Service": {
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "type": {"enum": ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]},
                    "selector": _LABELS,
                    "ports": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["port"],
                            "properties": {
                                "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                                "targetPort": {"type": ["integer", "string"]},
                            },
                        },
                    },
                },
            }
        }
    },
    "Endpoints": {"properties": {"subsets": {"type": "array", "items": {"type": "object"}}}},
    "Ingress": {
        "properties": {
            "spec": {
                "type": "object",
                "properties": {"rules": {"type": "array", "items": {"type": "object"}}},
            }
        }
    },
    "NetworkPolicy": {
        "required": ["spec"],
        "properties": {
            "spec": {
                "type": "object",
                "required": ["podSelector"],
                "properties": {
                    "podSelector": _SELECTOR,
                    "policyTypes": {"type": "array", "items": {"enum": ["Ingress", "Egress"]}},
                    "ingress": {"type": "array", "items": {"type": "object"}},
                    "egress": {"type": "array", "items": {"type": "object"}},
                },
            }
        },
    },
    "PersistentVolumeClaim": {
        "properties": {
            "spec": {"type": "object", "properties": {"storageClassName": {"type": "string"}}},
            "status": {"type": "object", "properties": {"phase": {"enum": ["Pending", "Bound", "Lost"]}}},
        }
    },
    "PersistentVolume": {
        "properties": {
            "status": {
                "type": "object",
                "properties": {"phase": {"enum": ["Pending", "Available", "Bound", "Released", "Failed"]}},
            }
        }
    },
    "StorageClass": {"required": ["provisioner"], "properties": {"provisioner": {"type": "string"}}},
    "ResourceQuota": {
        "properties": {
            "spec": {"type": "object", "properties": {"hard": _QUANTITIES}},
            "status": {"type": "object", "properties": {"hard": _QUANTITIES, "used": _QUANTITIES}},
        }
    },
    "HorizontalPodAutoscaler": {
        "required": ["spec"],
        "properties": {
            "spec": {
                "type": "object",
                "required": ["scaleTargetRef", "maxReplicas"],
                "properties": {
                    "scaleTargetRef": {
                        "type": "object",
                        "required": ["kind", "name"],
                        "properties": {"kind": {"type": "string"}, "name": {"type": "string"}},
                    },
                    "minReplicas": {"type": "integer", "minimum": 1},
                    "maxReplicas": {"type": "integer", "minimum": 1},
                },
            },
            "status": {
                "type": "object",
                "properties": {
                    "currentReplicas": _COUNT,
                    "desiredReplicas": _COUNT,
                    "conditions": _CONDITIONS,
                },
            },
        },
    },
    "ConfigMap": {"properties": {"data": {"type": "object", "additionalProperties": {"type": "string"}}}},
    "Secret": {"properties": {"data": {"type": "object", "additionalProperties": {"type": "string"}}}},
}
"""What each kind's fields must be where a fixture writes them (a Service's ports, a claim's phase, an
autoscaler's bounds): the fields the tools print and the offline model reads. Other fields are free."""


def _object_errors(data: Any) -> list[Any]:
    """An object whose namespace does not fit its kind (a namespaced kind without one, a cluster-wide
    kind with one), or whose fields are not its kind's, as validation errors."""
    from jsonschema import ValidationError

    from k8s_agent_mock_cluster.kube_resources import RESOURCES

    namespaced = {r.kind: r.namespaced for r in RESOURCES}
    problems: list[Any] = []
    seen: set[tuple[str, str | None, str]] = set()
    for number, obj in enumerate(data.get("objects") or []):
        kind, metadata = str(obj["kind"]), obj["metadata"]
        namespace = metadata.get("namespace")
        key = (kind, namespace, str(metadata["name"]))
        if key in seen:
            problems.append(
                ValidationError(
                    f"a second {kind} named {key[2]!r}", path=["objects", number, "metadata", "name"]
                )
            )
        seen.add(key)
        if namespaced.get(kind) and not namespace:
            problems.append(
                ValidationError(
                    f"a {kind} lives in a namespace: give metadata.namespace",
                    path=["objects", number, "metadata"],
                )
            )
        elif namespaced.get(kind) is False and namespace:
            problems.append(
                ValidationError(
                    f"a {kind} is cluster-wide: it has no namespace",
                    path=["objects", number, "metadata", "namespace"],
                )
            )
        schema = OBJECT_SCHEMAS.get(kind)
        if schema:
            for error in Draft202012Validator({"type": "object", **schema}).iter_errors(obj):
                problems.append(
                    ValidationError(
                        f"{kind} {key[2]}: {error.message}", path=["objects", number, *error.absolute_path]
                    )
                )
    return problems


# -- YAML incidents and shared backgrounds ------------------------------------------------------------

YAML_SUFFIXES = (".yaml", ".yml")
BACKGROUNDS = Path(__file__).resolve().parent.parent / "k8s_agent" / "eval" / "backgrounds"
"""The shared backgrounds shipped with the eval corpus; `_backgrounds/` beside an incident comes first."""
CLUSTER_KEYS = {"name", "version", "now", "background", "nodes", "pods", "events", "objects"}
BACKGROUND_KEYS = {"summary", "nodes", "pods", "events"}
PHASES = {
    "Running": "Running",
    "CrashLoopBackOff": "Running",
    "OOMKilled": "Running",
    "Completed": "Succeeded",
    "Error": "Failed",
    "Evicted": "Failed",
}
"""A pod's phase by its STATUS; any other status (Pending, ImagePullBackOff, Init:...) is Pending."""
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def read_yaml(path: Path) -> Any:
    """A YAML file's data; FixtureError naming the file when it cannot be read or parsed."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, ten times faster, when built
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except FileNotFoundError:
        raise FixtureError(f"file not found: {path}") from None
    except OSError as error:
        raise FixtureError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise FixtureError(f"{path} is not UTF-8 text: {error}") from None
    except yaml.YAMLError as error:
        raise FixtureError(f"{path.name} is not valid YAML: {' '.join(str(error).split())}") from None


def background_paths(incident: Path, data: dict[str, Any] | None = None) -> list[Path]:
    """The background files an incident file names, in its order; FixtureError for an unknown name."""
    data = read_yaml(incident) if data is None else data
    section = data.get("cluster") if isinstance(data, dict) else None
    names = section.get("background") if isinstance(section, dict) else None
    names = [names] if isinstance(names, str) else names or []
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise FixtureError("cluster.background must be a list of background names")
    found = []
    for name in names:
        candidates = [incident.parent / "_backgrounds" / f"{name}.yaml", BACKGROUNDS / f"{name}.yaml"]
        path = next((c for c in candidates if c.is_file()), None)
        if path is None:
            raise FixtureError(
                f"unknown background {name!r} (no {name}.yaml in _backgrounds/ or {BACKGROUNDS})"
            )
        found.append(path)
    return found


def compose_incident(path: Path) -> dict[str, Any]:
    """The fixture an incident file describes: its backgrounds, then its own nodes, pods and events."""
    data = read_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("cluster"), dict):
        raise FixtureError(f"{path.name} has no `cluster` section")
    section = data["cluster"]
    unknown = sorted(set(section) - CLUSTER_KEYS)
    if unknown:
        raise FixtureError(
            f"{path.name}: unknown key cluster.{unknown[0]} (known: {', '.join(sorted(CLUSTER_KEYS))})"
        )
    version = str(section.get("version") or "")
    now = _moment(section.get("now"), f"{path.name}: cluster.now")
    nodes = [_node(node, version) for node in _items(section, "nodes", path.name)]
    own_pods = _items(section, "pods", path.name)
    pods: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    for background in background_paths(path, data):
        layer = read_yaml(background)
        if not isinstance(layer, dict):
            raise FixtureError(f"background {background.stem} is not a mapping")
        unknown = sorted(set(layer) - BACKGROUND_KEYS)
        if unknown:
            raise FixtureError(f"background {background.stem}: unknown key {unknown[0]}")
        nodes += [_node(node, version) for node in _items(layer, "nodes", background.name)]
        pods += _placed(_items(layer, "pods", background.name), nodes, background.stem)
        events += _items(layer, "events", background.name)
    pods += own_pods
    pods = [_pod(pod, now) for pod in pods]
    events += _items(section, "events", path.name)
    where: dict[Any, set[Any]] = {}
    for pod in pods:
        where.setdefault(pod.get("name"), set()).add(pod.get("namespace"))
    fixture: dict[str, Any] = {}
    if section.get("name") or version or now:
        fixture["cluster"] = {k: section[k] for k in ("name", "version", "now") if section.get(k)}
    fixture["nodes"] = nodes
    fixture["pods"] = pods
    fixture["events"] = [_event(event, where) for event in events]
    if section.get("objects"):
        fixture["objects"] = _items(section, "objects", path.name)
    composed: dict[str, Any] = _texts(fixture)
    return composed


def _texts(value: Any) -> Any:
    """Times YAML read as dates (an unquoted `2026-12-01T06:00:00Z`) back to the text they were."""
    if isinstance(value, dict):
        return {key: _texts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_texts(item) for item in value]
    if isinstance(value, datetime):
        return _iso(value)
    return value


def _items(section: dict[str, Any], key: str, where: str) -> list[Any]:
    items = section.get(key) or []
    if not isinstance(items, list):
        raise FixtureError(f"{where}: `{key}` must be a list")
    return [dict(item) if isinstance(item, dict) else item for item in items]


def _moment(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise FixtureError(f"{where} is not a time like 2026-12-01T06:00:00Z") from None


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _minutes(age: Any) -> float | None:
    """Minutes in a kubectl age ("45s", "38m", "3h12m", "9d"); None when it is not one."""
    parts = re.findall(r"(\d+)([smhd])", str(age or ""))
    if not parts or "".join(a + u for a, u in parts) != str(age):
        return None
    return sum(int(amount) * {"s": 1 / 60, "m": 1, "h": 60, "d": 1440}[unit] for amount, unit in parts)


def _node(node: Any, version: str) -> Any:
    """A node with its defaults: Ready, a worker, the cluster's version, allocatable from capacity,
    conditions from the status, the hostname and os labels."""
    if not isinstance(node, dict) or "name" not in node:
        return node
    out = dict(node)
    out.setdefault("status", "Ready")
    out.setdefault("roles", ["worker"])
    if version:
        out.setdefault("version", version)
    if isinstance(out.get("capacity"), dict) and "allocatable" not in out:
        out["allocatable"] = _allocatable(out["capacity"])
    healthy = "True" if out["status"] == "Ready" else "Unknown"
    conditions = {
        "Ready": healthy,
        **dict.fromkeys(
            ("MemoryPressure", "DiskPressure", "PIDPressure"), "False" if healthy == "True" else "Unknown"
        ),
    }
    out["conditions"] = {**conditions, **(out.get("conditions") or {})}
    out["labels"] = {
        "kubernetes.io/hostname": str(out["name"]),
        "kubernetes.io/os": "linux",
        **(out.get("labels") or {}),
    }
    # the keys in the order `kubectl describe node` reads best (and the shipped fixtures use)
    order = ("name", "status", "roles", "age", "version", "internal_ip", "capacity", "allocatable")
    return {**{k: out[k] for k in order if k in out}, **out}


def _allocatable(capacity: dict[str, Any]) -> dict[str, Any]:
    """What kubelet leaves to pods: 80m CPU, 600Mi + 40Mi per GiB of memory and 8Gi of storage reserved."""
    out = {}
    for key, value in capacity.items():
        text = str(value)
        if key == "cpu" and text.isdigit():
            out[key] = f"{int(text) * 1000 - 80}m"
        elif key == "memory" and re.fullmatch(r"\d+Gi", text):
            gib = int(text[:-2])
            out[key] = f"{gib * 1024 - 600 - 40 * gib}Mi"
        elif key == "ephemeral-storage" and re.fullmatch(r"\d+Gi", text) and int(text[:-2]) > 8:
            out[key] = f"{int(text[:-2]) - 8}Gi"
        else:
            out[key] = value
    return out


def _placed(pods: list[Any], nodes: list[Any], background: str) -> list[Any]:
    """A background's pods on the incident's nodes: `node: N` is the Nth node (from 1, wrapping round);
    `daemonset: true` is one pod per node, named NAME-<5 characters of the node's name>."""
    names = [n["name"] for n in nodes if isinstance(n, dict) and "name" in n]
    out = []
    for pod in pods:
        if not isinstance(pod, dict):
            out.append(pod)
            continue
        if pod.pop("daemonset", False):
            for node in nodes:
                suffix = "".join(
                    _ALPHABET[b % len(_ALPHABET)]
                    for b in hashlib.sha256(str(node["name"]).encode()).digest()[:5]
                )
                out.append(
                    {
                        **pod,
                        "name": f"{pod.get('name')}-{suffix}",
                        "node": node["name"],
                        "ip": node.get("internal_ip", pod.get("ip")),
                    }
                )
            continue
        where = pod.get("node")
        if isinstance(where, int) and not isinstance(where, bool):
            if not names:
                raise FixtureError(
                    f"background {background}: pod {pod.get('name')} needs a node and the cluster has none"
                )
            pod["node"] = names[(where - 1) % len(names)]
        out.append(pod)
    return out


def _pod(pod: Any, now: datetime | None) -> Any:
    """A pod with its defaults: the phase from the status, each container's `ready` (true when the pod is
    Running), `restarts` (0) and, when Running, `state` (running since now minus the pod's age), and the
    pod's conditions from all that."""
    if not isinstance(pod, dict) or not isinstance(pod.get("containers"), list):
        return pod
    out = dict(pod)
    status = str(out.get("status", ""))
    if "status" in out:
        out.setdefault("phase", PHASES.get(status, "Pending"))
    out.setdefault("node", None)
    age = _minutes(out.get("age"))
    containers = []
    for container in out["containers"]:
        if not isinstance(container, dict):
            containers.append(container)
            continue
        body = {"name": container.get("name"), "image": container.get("image"), **container}
        body.setdefault("ready", status == "Running")
        body.setdefault("restarts", 0)
        if "state" not in body and status == "Running" and now is not None and age is not None:
            body["state"] = {"running": {"started_at": _iso(now - timedelta(seconds=round(age * 60)))}}
        order = ("name", "image", "ready", "restarts", "state", "last_state", "requests", "limits")
        containers.append({**{k: body[k] for k in order if k in body}, **body})
    out["containers"] = containers
    if "conditions" not in out:
        out["conditions"] = _conditions(out)
    elif not out["conditions"]:
        del out["conditions"]
    return out


def _conditions(pod: dict[str, Any]) -> dict[str, str]:
    if pod.get("node") is None:
        return {"PodScheduled": "False"}
    if pod.get("status") == "Completed":
        return {"PodScheduled": "True", "Initialized": "True", "ContainersReady": "False", "Ready": "False"}
    initialized = not str(pod.get("status", "")).startswith("Init:")
    ready = all(isinstance(c, dict) and c.get("ready") for c in pod["containers"])
    return {
        "PodScheduled": "True",
        "Initialized": str(initialized),
        "ContainersReady": str(ready),
        "Ready": str(ready),
    }


def _event(event: Any, where: dict[Any, set[Any]]) -> Any:
    """An event with its defaults: the namespace of its pod (`default` for a node), Normal, count 1,
    from kubelet."""
    if not isinstance(event, dict):
        return event
    out = dict(event)
    kind, _, name = str(out.get("object", "")).partition("/")
    if "namespace" not in out:
        if kind == "node":
            out["namespace"] = "default"
        elif kind == "pod" and len(where.get(name, ())) == 1:
            (out["namespace"],) = where[name]
    out.setdefault("type", "Normal")
    out.setdefault("count", 1)
    out.setdefault("source", "kubelet")
    return out
