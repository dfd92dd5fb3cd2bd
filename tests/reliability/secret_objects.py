"""Kubernetes objects with planted values, printed the way the servers print them (tests only).

A strategy draws a workload (a Pod, a Deployment, a StatefulSet, a Job or a CronJob: its pod template
nested as deep as the kind nests it) or a Secret (any type, `data` base64 and `stringData` plain,
under keys that name no secret), with a value planted at every position that holds a secret:

- an env entry's `value` under a secret-looking name (DB_PASSWORD, STRIPE_KEY, MYSQL_PWD, ...), in
  every container, init containers too;
- a container arg after a secret-looking flag (`--db-password`, `-token`);
- a URL's password, with and without a user, in a non-secret env value (the rest of it is kept);
- a Secret's every data and stringData value;
- the `kubectl.kubernetes.io/last-applied-configuration` annotation, which repeats them in JSON.

Beside them, planted values that are evidence and must reach the model: non-secret env values
(DB_HOST), a Secret's key names, `secretKeyRef` names and keys, the object's own name.

`shapes(obj)` prints one object every way the servers print it: YAML (Go's key order, as
kubernetes-mcp-server; sorted, as kubectl), JSON pretty (2 and 4 spaces) and compact, a `List`, a
`---` stream, `kubectl describe` text, a `kubectl get` table, and structured content beside an
innocent text or an empty one.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

import yaml
from hypothesis import strategies as st

LOWER = "abcdefghijklmnopqrstuvwxyz"
SECRET_CHARS = LOWER + LOWER.upper() + "0123456789" + "+/=_-.@:# !%&*éü"
"""What a planted secret is made of: a password may hold spaces, colons, `#`, `@` and letters of
any language (never a quote or a backslash, so a test can look for it as written)."""

SECRET_NAME_WORDS = (
    "PASSWORD", "PASS", "PWD", "SECRET", "TOKEN", "API_KEY", "SECRET_KEY", "ACCESS_KEY", "PRIVATE_KEY",
    "CREDENTIALS", "AUTH_TOKEN", "DSN", "KEY", "CLIENT_SECRET", "PASSPHRASE", "SIGNING_KEY",
)  # fmt: skip
PLAIN_NAME_WORDS = ("HOST", "PORT", "USER", "NAME", "LEVEL", "REGION", "MODE", "QUEUE", "BUCKET")
SECRET_FLAGS = ("--db-password", "--password", "--token", "--api-key", "--client-secret", "-auth-token")
SECRET_TYPES = (
    "Opaque", "kubernetes.io/dockerconfigjson", "kubernetes.io/tls", "kubernetes.io/basic-auth",
    "kubernetes.io/ssh-auth", "kubernetes.io/service-account-token", "bootstrap.kubernetes.io/token",
    "helm.sh/release.v1",
)  # fmt: skip
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


@dataclass
class Planted:
    """One object, what in it must never be seen, and what must."""

    obj: dict[str, Any]
    secrets: list[str] = field(default_factory=list)
    keep: list[str] = field(default_factory=list)


class Plants:
    """Distinct planted values for one draw: each secret and each kept value unique, never a
    substring of another."""

    def __init__(self, draw: Any) -> None:
        self.draw = draw
        self.counter = 0

    def secret(self, lines: bool = False) -> str:
        """A secret; with `lines`, sometimes one of several lines (a key file, a config)."""
        body = self.draw(st.text(SECRET_CHARS, min_size=4, max_size=16))
        if lines and self.draw(st.booleans()):
            body += f"\nL{self.counter}w" + self.draw(st.text(SECRET_CHARS, min_size=4, max_size=16)) + "\n"
        return self._unique(f"S{self.counter}q", body)

    def keep(self) -> str:
        body = self.draw(st.text(LOWER + "0123456789", min_size=4, max_size=10))
        return self._unique(f"k{self.counter}x", body)

    def _unique(self, tag: str, body: str) -> str:
        self.counter += 1
        return f"{tag}{body}Z{self.counter}"


def _name(draw: Any, words: tuple[str, ...]) -> str:
    prefix = draw(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=6))
    return f"{prefix}_{draw(st.sampled_from(words))}"


@st.composite
def container(draw: Any, plants: Plants, planted: Planted, number: int) -> dict[str, Any]:
    env: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            secret = plants.secret()
            planted.secrets.append(secret)
            env.append({"name": _name(draw, SECRET_NAME_WORDS), "value": secret})
        else:
            kept = plants.keep()
            planted.keep.append(kept)
            env.append({"name": _name(draw, PLAIN_NAME_WORDS), "value": kept})
    if draw(st.booleans()):  # a URL whose password is a secret, in a variable whose name is not
        password, host = plants.keep().replace("k", "P", 1), plants.keep()  # letters and digits only
        planted.secrets.append(password)
        planted.keep.append(host)
        user = draw(st.sampled_from(["", "app"]))
        scheme = draw(st.sampled_from(["postgres", "redis", "amqp", "mongodb+srv"]))
        env.append(
            {
                "name": _name(draw, ("URL", "ENDPOINT")),
                "value": f"{scheme}://{user}:{password}@{host}:5432/db",
            }
        )
    reference, key = plants.keep(), plants.keep()
    planted.keep += [reference, key]
    env.append(
        {
            "name": _name(draw, SECRET_NAME_WORDS),
            "valueFrom": {"secretKeyRef": {"name": reference, "key": key}},
        }
    )
    env = draw(st.permutations(env))
    body: dict[str, Any] = {"name": f"c{number}", "image": "registry.example.com/app:v1.2.3", "env": env}
    if draw(st.booleans()):
        flag, secret, plain = draw(st.sampled_from(SECRET_FLAGS)), plants.secret(), plants.keep()
        planted.secrets.append(secret)
        planted.keep.append(plain)
        body["args"] = ["--listen=:8080", flag, secret, "--region", plain]
    if draw(st.booleans()):  # the env entry written value first
        body["env"] = [dict(reversed(list(entry.items()))) for entry in body["env"]]
    return body


WORKLOADS = ("Pod", "Deployment", "StatefulSet", "Job", "CronJob")


@st.composite
def workload(draw: Any) -> Planted:
    plants = Plants(draw)
    kind = draw(st.sampled_from(WORKLOADS))
    name = plants.keep()
    planted = Planted({}, keep=[name])
    pod_spec: dict[str, Any] = {
        "containers": [draw(container(plants, planted, n)) for n in range(draw(st.integers(1, 2)))]
    }
    if draw(st.booleans()):
        pod_spec["initContainers"] = [draw(container(plants, planted, 9))]
    template = {"metadata": {"labels": {"app": name}}, "spec": pod_spec}
    api = {"Pod": "v1", "Job": "batch/v1", "CronJob": "batch/v1"}.get(kind, "apps/v1")
    obj: dict[str, Any] = {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name, "namespace": "production", "labels": {"app": name}},
    }
    if kind == "Pod":
        obj["spec"] = pod_spec
        obj["status"] = {"phase": "Running"}
    elif kind == "Job":
        obj["spec"] = {"backoffLimit": 4, "template": template}
    elif kind == "CronJob":
        obj["spec"] = {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": template}}}
    else:
        obj["spec"] = {"replicas": 2, "selector": {"matchLabels": {"app": name}}, "template": template}
    if draw(st.booleans()):
        obj["metadata"]["annotations"] = {LAST_APPLIED: json.dumps(obj, separators=(",", ":")) + "\n"}
    planted.obj = obj
    return planted


@st.composite
def secret(draw: Any) -> Planted:
    plants = Plants(draw)
    name = plants.keep()
    planted = Planted({}, keep=[name])
    data: dict[str, str] = {}
    string_data: dict[str, str] = {}
    keys = [
        draw(st.sampled_from(["connection", "username", ".dockerconfigjson", "tls.key", "config.yaml", "id"]))
        + f"-{plants.keep()}"
        for _ in range(draw(st.integers(1, 4)))
    ]
    for key in keys:
        value = plants.secret(lines=True)
        planted.secrets.append(value)
        planted.keep.append(key)
        if draw(st.booleans()):
            data[key] = base64.b64encode(value.encode()).decode()
        else:
            string_data[key] = value
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": "production"},
        "type": draw(st.sampled_from(SECRET_TYPES)),
    }
    if data:
        obj["data"] = data
    if string_data:
        obj["stringData"] = string_data
    if draw(st.booleans()):
        obj["metadata"]["annotations"] = {LAST_APPLIED: json.dumps(obj, separators=(",", ":")) + "\n"}
    planted.obj = obj
    return planted


objects = st.one_of(workload(), secret())
"""A workload or a Secret with its planted values."""


# -- printed the way the servers print ---------------------------------------------------------------


class _KubectlDumper(yaml.SafeDumper):
    """YAML as kubectl and Go's encoder write it: multi-line strings as `|` blocks."""


def _block(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_KubectlDumper.add_representer(str, _block)


def as_yaml(obj: Any, *, sort_keys: bool) -> str:
    return yaml.dump(obj, Dumper=_KubectlDumper, sort_keys=sort_keys, allow_unicode=True, width=10_000)


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj.get("spec", {})
    for step in ("jobTemplate", "spec", "template", "spec"):
        if "containers" in spec:
            break
        spec = spec.get(step, spec)
    return list(spec.get("initContainers", [])) + list(spec.get("containers", []))


def describe(obj: dict[str, Any]) -> str:
    """`kubectl describe` as it prints a workload's containers or a Secret (sizes, never values)."""
    lines = [f"Name:         {obj['metadata']['name']}", "Namespace:    production"]
    if obj["kind"] == "Secret":
        lines += [f"Type:  {obj['type']}", "", "Data", "===="]
        for key, value in {**obj.get("data", {}), **obj.get("stringData", {})}.items():
            lines.append(f"{key}:  {len(value)} bytes")
        return "\n".join(lines) + "\n"
    lines.append("Containers:")
    for body in _containers(obj):
        lines += [f"  {body['name']}:", f"    Image:      {body['image']}"]
        if body.get("args"):
            lines.append("    Args:")
            lines += [f"      {arg}" for arg in body["args"]]
        lines.append("    Environment:")
        for entry in body["env"]:
            if "value" in entry:
                lines.append(f"      {entry['name']}:  {entry['value']}")
            else:
                ref = entry["valueFrom"]["secretKeyRef"]
                lines.append(
                    f"      {entry['name']}:  <set to the key '{ref['key']}' in secret '{ref['name']}'>"
                )
    return "\n".join(lines) + "\n"


def table(obj: dict[str, Any]) -> str:
    name = obj["metadata"]["name"]
    if obj["kind"] == "Secret":
        count = len(obj.get("data", {})) + len(obj.get("stringData", {}))
        return f"NAME   TYPE   DATA   AGE\n{name}   {obj['type']}   {count}   5d\n"
    return f"NAME   READY   STATUS    RESTARTS   AGE\n{name}   1/1     Running   0          5d\n"


def shapes(planted: Planted) -> list[tuple[str, str, Any]]:
    """(shape, text, structured content or None): the object printed every way the servers print it."""
    obj = planted.obj
    list_kind = f"{obj['kind']}List"
    item = {key: value for key, value in obj.items() if key not in ("apiVersion", "kind")}
    return [
        ("yaml-go", as_yaml(obj, sort_keys=False), None),
        ("yaml-kubectl", as_yaml(obj, sort_keys=True), None),
        ("json-2", json.dumps(obj, indent=2, ensure_ascii=False), None),
        ("json-4", json.dumps(obj, indent=4), None),
        ("json-compact", json.dumps(obj, separators=(",", ":")), None),
        ("list", json.dumps({"apiVersion": "v1", "kind": list_kind, "items": [item]}, indent=2), None),
        ("stream", "---\n" + as_yaml({"kind": "Namespace", "metadata": {"name": "production"}}, sort_keys=True)
         + "---\n" + as_yaml(obj, sort_keys=True), None),
        ("describe", describe(obj), None),
        ("table", table(obj), None),
        ("structured", "", obj),
        ("structured-beside-text", f"{obj['kind']} {obj['metadata']['name']} read.", obj),
    ]  # fmt: skip


def encoded(value: str) -> list[str]:
    """The forms a planted value may travel in: as written, base64 and JSON-escaped, and each of its
    lines alone (a block scalar prints them one by one)."""
    forms = [value, base64.b64encode(value.encode()).decode(), json.dumps(value)[1:-1]]
    return forms + [line for line in value.splitlines() if len(line) >= 6 and "\n" in value]


KLOG_LINE = 'W1207 04:12:03.512345       1 reflector.go:539] failed to list *v1.Secret: "timeout"'


def unreadable_shapes(planted: Planted) -> list[tuple[str, str]]:
    """(shape, text): the object printed as YAML or JSON, then made so that it cannot be read whole as
    a document, as a server's output sometimes is: a log line before it, or cut short at a line's
    end (a third and two thirds of the way through, without the last line break)."""
    obj = planted.obj
    printed = {
        "yaml-go": as_yaml(obj, sort_keys=False),
        "yaml-kubectl": as_yaml(obj, sort_keys=True),
        "json-2": json.dumps(obj, indent=2, ensure_ascii=False),
    }
    made: list[tuple[str, str]] = []
    for shape, text in printed.items():
        lines = text.splitlines()
        made.append((f"{shape}-after-a-log-line", f"{KLOG_LINE}\n{text}"))
        for third in (1, 2):
            made.append((f"{shape}-cut-at-{third}-thirds", "\n".join(lines[: len(lines) * third // 3])))
    return made
