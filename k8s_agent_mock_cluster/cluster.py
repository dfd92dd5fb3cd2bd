"""The simulated cluster: answers each read-only tool from a fixture, as `kubectl`-like text.

Names in every result are exact and nothing is random, so tests and the grounding check can rely
on them. Failures a real API would report (unknown pod, logs of a container that never started)
raise `NotFound` or `Invalid` with kubectl-like messages.
"""

from __future__ import annotations

import re
from typing import Any

from k8s_agent_mock_cluster.answers import Invalid, NotFound, table

__all__ = ["Cluster", "Invalid", "NotFound", "table"]


def parse_quantity(value: str | None, kind: str) -> float:
    """CPU in cores or memory in bytes from a Kubernetes quantity ("250m", "1.5", "512Mi", "2Gi")."""
    if not value:
        return 0.0
    units = (
        {"m": 1e-3}
        if kind == "cpu"
        else {
            "Ki": 2**10,
            "Mi": 2**20,
            "Gi": 2**30,
            "Ti": 2**40,
            "K": 1e3,
            "M": 1e6,
            "G": 1e9,
            "T": 1e12,
        }
    )
    match = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", value.strip())
    if not match:
        return 0.0
    return float(match[1]) * units.get(match[2], 1)


def format_quantity(amount: float, kind: str) -> str:
    """A readable quantity: millicores for CPU, Mi/Gi for memory."""
    if kind == "cpu":
        return f"{round(amount * 1000)}m"
    if amount >= 2**30:
        return f"{amount / 2**30:.1f}Gi".replace(".0Gi", "Gi")
    return f"{round(amount / 2**20)}Mi"


class Cluster:
    """A read-only view of a fixture with one method per MCP tool."""

    def __init__(self, fixture: dict[str, Any]) -> None:
        self.fixture = fixture
        self.nodes: list[dict[str, Any]] = fixture.get("nodes", [])
        self.pods: list[dict[str, Any]] = fixture.get("pods", [])
        self.events: list[dict[str, Any]] = fixture.get("events", [])
        self._resources: Any = None

    # -- any kind ------------------------------------------------------------------------

    @property
    def resources(self) -> Any:
        """Every object of the fixture as the API holds it (resources.py), built on first use."""
        if self._resources is None:
            from k8s_agent_mock_cluster.resources import Resources

            self._resources = Resources(self.fixture)
        return self._resources

    # The tools' own argument names (kubernetes-mcp-server's), so that a call's arguments apply as sent.
    def resources_list(
        self,
        kind: str,
        apiVersion: str | None = None,
        namespace: str | None = None,
        labelSelector: str | None = None,
    ) -> str:
        return str(self.resources.list(kind, apiVersion, namespace, labelSelector))

    def resources_get(
        self,
        kind: str,
        name: str,
        namespace: str | None = None,
        apiVersion: str | None = None,
    ) -> str:
        return str(self.resources.get(kind, name, namespace, apiVersion))

    # -- pods ---------------------------------------------------------------------------

    def list_pods(self, namespace: str | None = None) -> str:
        pods = [p for p in self.pods if namespace in (None, "", p["namespace"])]
        if not pods:
            where = f"namespace {namespace}" if namespace else "any namespace"
            known = sorted({p["namespace"] for p in self.pods})
            hint = f" Namespaces with pods: {', '.join(known)}." if namespace and known else ""
            return f"No pods found in {where}.{hint}"
        rows = [
            (
                p["namespace"],
                p["name"],
                _ready(p),
                p["status"],
                _restarts(p),
                p.get("age", "-"),
                p.get("node") or "<none>",
            )
            for p in sorted(pods, key=lambda p: (p["namespace"], p["name"]))
        ]
        body = table(("NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "NODE"), rows)
        namespaces = sorted({p["namespace"] for p in pods})
        scope = f"namespace {namespaces[0]}" if namespace else f"{len(namespaces)} namespaces"
        return f"{body}\n\n{len(pods)} pods in {scope}."

    def describe_pod(self, name: str, namespace: str) -> str:
        pod = self._pod(name, namespace)
        lines = [
            f"Name:         {pod['name']}",
            f"Namespace:    {pod['namespace']}",
            f"Node:         {pod.get('node') or '<none>'}",
            f"Status:       {pod.get('phase', pod['status'])}",
            *([f"Reason:       {pod['reason']}"] if pod.get("reason") else []),
            *([f"Message:      {pod['message']}"] if pod.get("message") else []),
            f"IP:           {pod.get('ip') or '<none>'}",
            f"Labels:       {_pairs(pod.get('labels'))}",
            f"Annotations:  {_pairs(pod.get('annotations'))}",
            "Containers:",
        ]
        for container in pod["containers"]:
            lines += _describe_container(container)
        conditions = pod.get("conditions") or {}
        if conditions:
            lines.append("Conditions:")
            lines.append("  Type              Status")
            lines += [f"  {kind:<17} {status}" for kind, status in conditions.items()]
        lines.append("Events:")
        events = self._events_for("pod", pod["name"], pod["namespace"])
        if events:
            lines += [
                "  " + line
                for line in table(
                    ("Type", "Reason", "Age", "From", "Message"),
                    [(e["type"], e["reason"], _age(e), e.get("source", "-"), e["message"]) for e in events],
                ).splitlines()
            ]
        else:
            lines.append("  <none>")
        return "\n".join(lines)

    def get_pod_logs(
        self, name: str, namespace: str, tail: int = 50, previous: bool = False, container: str | None = None
    ) -> str:
        pod = self._pod(name, namespace)
        chosen = self._container(pod, container)
        if previous:
            lines = chosen.get("previous_logs")
            if not lines:
                raise Invalid(f'previous terminated container "{chosen["name"]}" in pod "{name}" not found')
        else:
            waiting = (chosen.get("state") or {}).get("waiting") or {}
            if pod.get("node") is None:
                raise Invalid(
                    f'pod "{name}" is Pending and not scheduled to a node: no container has started, so there are no logs'
                )
            if waiting.get("reason") in (
                "ImagePullBackOff",
                "ErrImagePull",
                "ContainerCreating",
                "CreateContainerConfigError",
            ):
                raise Invalid(
                    f'container "{chosen["name"]}" in pod "{name}" is waiting to start: {waiting["reason"]}'
                )
            lines = chosen.get("logs") or []
        if tail > 0:
            lines = lines[-tail:]
        return "\n".join(lines) if lines else "(no log lines)"

    def search_logs(
        self,
        pattern: str,
        namespace: str | None = None,
        regex: bool = False,
        ignore_case: bool = False,
        max_hits: int = 20,
    ) -> str:
        flags = re.IGNORECASE if ignore_case else 0
        try:
            compiled = re.compile(pattern if regex else re.escape(pattern), flags)
        except re.error as error:
            raise Invalid(f"invalid regular expression {pattern!r}: {error}") from None
        hits: list[str] = []
        pods_hit: set[str] = set()
        for pod in sorted(self.pods, key=lambda p: (p["namespace"], p["name"])):
            if namespace not in (None, "", pod["namespace"]):
                continue
            for container in pod["containers"]:
                for number, line in enumerate(container.get("logs") or [], start=1):
                    if compiled.search(line):
                        pods_hit.add(pod["name"])
                        hits.append(f"{pod['namespace']}/{pod['name']}:{number}: {line}")
        scope = f" in namespace {namespace}" if namespace else ""
        if not hits:
            return f"0 matches for {pattern!r}{scope}."
        shown = hits[: max(1, max_hits)]
        head = f"{len(hits)} matches in {len(pods_hit)} pods for {pattern!r}{scope}"
        if len(hits) > len(shown):
            head += f"; showing the first {len(shown)}. The pattern is broad: narrow it or the namespace."
        return head + ":\n" + "\n".join(shown)

    def delete_pod(self, name: str, namespace: str) -> str:
        pod = self._pod(name, namespace)
        self.pods.remove(pod)
        return f'pod "{name}" deleted from namespace "{namespace}"'

    def restart_pod(self, name: str, namespace: str) -> str:
        pod = self._pod(name, namespace)
        for container in pod["containers"]:
            container["restarts"] = int(container.get("restarts", 0)) + 1
        return f'pod "{name}" in namespace "{namespace}" restarted'

    # -- events and nodes -----------------------------------------------------------------

    def get_events(
        self, namespace: str | None = None, pod: str | None = None, type: str | None = None
    ) -> str:
        events = [
            e
            for e in self.events
            if namespace in (None, "", e["namespace"])
            and (not pod or e["object"] == f"pod/{pod}")
            and (not type or e["type"].lower() == type.lower())
        ]
        if not events:
            return "No events found."
        rows = [
            (e["namespace"], e.get("last_seen", "-"), e["type"], e["reason"], e["object"], e["message"])
            for e in events
        ]
        return table(("NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"), rows)

    def list_nodes(self) -> str:
        rows = []
        for node in self.nodes:
            cpu, memory = self._requested(node["name"])
            allocatable = node.get("allocatable") or node.get("capacity") or {}
            rows.append(
                (
                    node["name"],
                    node["status"],
                    ",".join(node.get("roles") or ["<none>"]),
                    node.get("age", "-"),
                    node.get("version", "-"),
                    f"{format_quantity(cpu, 'cpu')}/{format_quantity(parse_quantity(allocatable.get('cpu'), 'cpu'), 'cpu')}",
                    f"{format_quantity(memory, 'mem')}/{format_quantity(parse_quantity(allocatable.get('memory'), 'mem'), 'mem')}",
                )
            )
        return table(
            (
                "NAME",
                "STATUS",
                "ROLES",
                "AGE",
                "VERSION",
                "CPU(requested/allocatable)",
                "MEMORY(requested/allocatable)",
            ),
            rows,
        )

    def describe_node(self, name: str) -> str:
        node = next((n for n in self.nodes if n["name"] == name), None)
        if node is None:
            raise NotFound(f'nodes "{name}" not found')
        cpu, memory = self._requested(name)
        allocatable = node.get("allocatable") or {}
        lines = [
            f"Name:         {node['name']}",
            f"Roles:        {','.join(node.get('roles') or ['<none>'])}",
            f"Labels:       {_pairs(node.get('labels'))}",
            f"InternalIP:   {node.get('internal_ip', '<none>')}",
            f"Taints:       {_taints(node.get('taints'))}",
            "Conditions:",
            *[f"  {kind:<17} {status}" for kind, status in (node.get("conditions") or {}).items()],
            f"Capacity:     {_pairs(node.get('capacity'), ', ')}",
            f"Allocatable:  {_pairs(allocatable, ', ')}",
            "Allocated resources (requests):",
            f"  cpu     {format_quantity(cpu, 'cpu')} of {allocatable.get('cpu', '?')}",
            f"  memory  {format_quantity(memory, 'mem')} of {allocatable.get('memory', '?')}",
            "Non-terminated Pods:",
        ]
        on_node = [
            p for p in self.pods if p.get("node") == name and p["status"] not in ("Completed", "Succeeded")
        ]
        lines += [f"  {p['namespace']}/{p['name']}" for p in sorted(on_node, key=lambda p: p["name"])] or [
            "  <none>"
        ]
        events = self._events_for("node", name, None)
        lines.append("Events:")
        lines += [f"  {e['type']}  {e['reason']}  {e['message']}" for e in events] or ["  <none>"]
        return "\n".join(lines)

    # -- helpers ------------------------------------------------------------------------------

    def _pod(self, name: str, namespace: str) -> dict[str, Any]:
        for pod in self.pods:
            if pod["name"] == name and pod["namespace"] == namespace:
                return pod
        elsewhere = sorted(p["namespace"] for p in self.pods if p["name"] == name)
        hint = f" (it exists in namespace {', '.join(elsewhere)})" if elsewhere else ""
        raise NotFound(f'pods "{name}" not found in namespace "{namespace}"{hint}')

    @staticmethod
    def _container(pod: dict[str, Any], name: str | None) -> dict[str, Any]:
        containers = pod["containers"]
        if name is None:
            return containers[0]  # type: ignore[no-any-return]
        for container in containers:
            if container["name"] == name:
                return container  # type: ignore[no-any-return]
        names = ", ".join(c["name"] for c in containers)
        raise NotFound(f'container "{name}" is not valid for pod "{pod["name"]}": choose one of [{names}]')

    def _events_for(self, kind: str, name: str, namespace: str | None) -> list[dict[str, Any]]:
        return [
            e for e in self.events if e["object"] == f"{kind}/{name}" and namespace in (None, e["namespace"])
        ]

    def _requested(self, node: str) -> tuple[float, float]:
        cpu = memory = 0.0
        for pod in self.pods:
            if pod.get("node") != node or pod["status"] in ("Completed", "Succeeded"):
                continue
            for container in pod["containers"]:
                requests = container.get("requests") or {}
                cpu += parse_quantity(requests.get("cpu"), "cpu")
                memory += parse_quantity(requests.get("memory"), "mem")
        return cpu, memory


def _ready(pod: dict[str, Any]) -> str:
    containers = pod["containers"]
    return f"{sum(1 for c in containers if c.get('ready'))}/{len(containers)}"


def _restarts(pod: dict[str, Any]) -> int:
    return sum(int(c.get("restarts", 0)) for c in pod["containers"])


def _age(event: dict[str, Any]) -> str:
    last = event.get("last_seen", "-")
    count = event.get("count", 1)
    if count > 1 and event.get("first_seen"):
        return f"{last} (x{count} over {event['first_seen']})"
    return str(last)


def _pairs(mapping: dict[str, Any] | None, separator: str = "\n              ") -> str:
    if not mapping:
        return "<none>"
    return separator.join(f"{key}={value}" for key, value in mapping.items())


def _describe_container(container: dict[str, Any]) -> list[str]:
    lines = [f"  {container['name']}:", f"    Image:          {container['image']}"]
    lines += _state_lines("State", container.get("state") or {})
    if container.get("last_state"):
        lines += _state_lines("Last State", container["last_state"])
    lines += [
        f"    Ready:          {'True' if container.get('ready') else 'False'}",
        f"    Restart Count:  {container.get('restarts', 0)}",
    ]
    for label, key in (("Limits", "limits"), ("Requests", "requests")):
        if container.get(key):
            lines.append(f"    {label + ':':<16}{_pairs(container[key], ', ')}")
    for label, key in (("Liveness", "liveness_probe"), ("Readiness", "readiness_probe")):
        if container.get(key):
            lines.append(f"    {label + ':':<16}{container[key]}")
    env = container.get("env") or {}
    lines.append("    Environment:" + ("" if env else "    <none>"))
    for key, value in env.items():
        if isinstance(value, dict):
            value = (
                f"<set to the key '{value.get('key')}' in secret '{value.get('secret')}'>  Optional: false"
            )
        lines.append(f"      {key}:  {value}")
    return lines


def _state_lines(label: str, state: dict[str, Any]) -> list[str]:
    if not state:
        return []
    kind, detail = next(iter(state.items()))
    lines = [f"    {label + ':':<16}{kind.capitalize()}"]
    detail = detail or {}
    for key, title in (
        ("reason", "Reason"),
        ("message", "Message"),
        ("exit_code", "Exit Code"),
        ("started_at", "Started"),
        ("finished_at", "Finished"),
    ):
        if key in detail:
            lines.append(f"      {title + ':':<14}{detail[key]}")
    return lines


def _taints(taints: Any) -> str:
    """A node's taints as kubectl describe writes them (`key=value:Effect`, one after another)."""
    shown = [
        f"{t['key']}{'=' + str(t['value']) if t.get('value') else ''}:{t['effect']}"
        for t in taints or []
        if isinstance(t, dict)
    ]
    return "\n              ".join(shown) or "<none>"
