"""Build the graded incident corpus of the eval harness: one folder per incident with the mock cluster
(`cluster.json`, docs/mock-cluster.md) and the answer a correct report gives (`truth.json`).

    .venv/bin/python scripts/build_eval_corpus.py [--out DIR]     (default: k8s_agent/eval/corpus)

Each incident below is a small program over `Incident`, a builder that writes fixtures the way a
real cluster shows itself: pod names of a deployment's replica set (`ledger-api-7c9d8f6b5-q2w3e`),
the events kubelet and the scheduler emit in their own wording, log lines in each stack's format.
Nothing is random: generated names are hashes of fixed seeds and every incident has its own fixed
clock, so two runs write the same bytes. The script checks each incident as it builds it (pod and
node counts, no request over a node's allocatable, no name that gives the answer away, every
unhealthy resource in the asked scope listed in the truth) and refuses to write a corpus that fails.
The facts of the truth are checked against the mock cluster's tool output by tests/eval/test_corpus.py.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "k8s_agent" / "eval" / "corpus"
FILES = ("cluster.json", "truth.json")

ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""The characters Kubernetes uses in generated name suffixes (no vowels, no look-alikes)."""
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
EPOCH = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
HEALTHY_STATUSES = ("Running", "Completed")
NODE_CAUSES = ("node_not_ready", "node_pressure")
GIVEAWAYS = re.compile(
    r"oom|crash|broken|fail|bad|evict|taint|quota|pending|unbound|notready|missing|wrong|error|"
    r"unhealthy|pressure|backoff|unauthori[sz]|timeout|incident"
)
"""Words no pod, node, namespace or container name may hold: the name would give the answer away."""


# -- deterministic names and times ------------------------------------------------------------------------


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()


def chars(length: int, *parts: object) -> str:
    """`length` characters of the Kubernetes name alphabet, from a hash of `parts`."""
    return "".join(ALPHABET[byte % len(ALPHABET)] for byte in _digest(*parts)[:length])


def hexchars(length: int, *parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:length]


def uid(*parts: object) -> str:
    h = hexchars(32, "uid", *parts)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def number(low: int, high: int, *parts: object) -> int:
    """A whole number in [low, high], from a hash of `parts`."""
    return low + int.from_bytes(_digest("n", *parts)[:4], "big") % (high - low + 1)


def minutes(age: str) -> float:
    """Minutes in a kubectl age ("45s", "38m", "3h", "3h12m", "9d")."""
    total = 0.0
    for amount, unit in re.findall(r"(\d+)([smhd])", age):
        total += int(amount) * {"s": 1 / 60, "m": 1, "h": 60, "d": 1440}[unit]
    return total


def ago(mins: float) -> str:
    """A kubectl age for `mins` minutes."""
    if mins < 2:
        return f"{max(1, round(mins * 60))}s"
    if mins < 60:
        return f"{int(mins)}m"
    if mins < 8 * 60:
        hours, rest = divmod(int(mins), 60)
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if mins < 48 * 60:
        return f"{int(mins // 60)}h"
    return f"{int(mins // 1440)}d"


def _ms(moment: datetime) -> int:
    return (moment.second * 37 + moment.minute * 101 + moment.hour * 7) % 1000


def _clock(moment: datetime) -> str:
    return f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"


def _date(moment: datetime, sep: str = "-") -> str:
    return f"{moment.year}{sep}{moment.month:02d}{sep}{moment.day:02d}"


STAMPS: dict[str, Callable[[datetime], str]] = {
    "iso": lambda m: f"{_date(m)}T{_clock(m)}Z",
    "isoms": lambda m: f"{_date(m)}T{_clock(m)}.{_ms(m):03d}Z",
    "py": lambda m: f"{_date(m)} {_clock(m)} +0000",
    "pylog": lambda m: f"{_date(m)} {_clock(m)},{_ms(m):03d}",
    "nginx": lambda m: f"{m.day:02d}/{MONTHS[m.month - 1]}/{m.year}:{_clock(m)} +0000",
    "slash": lambda m: f"{_date(m, '/')} {_clock(m)}",
    "redis": lambda m: f"{m.day:02d} {MONTHS[m.month - 1]} {m.year} {_clock(m)}.{_ms(m):03d}",
    "pg": lambda m: f"{_date(m)} {_clock(m)}.{_ms(m):03d} UTC",
    "klog": lambda m: f"{m.month:02d}{m.day:02d} {_clock(m)}.{_ms(m):03d}{m.second * 7 % 1000:03d}",
    "commaiso": lambda m: f"{_date(m)}T{_clock(m)},{_ms(m):03d}",
    "epoch": lambda m: str(int(m.timestamp())),
}


# -- the builder -------------------------------------------------------------------------------------------

STACKS: dict[str, dict[str, Any]] = {
    # port, readiness, liveness (probe texts as `kubectl describe` writes them; {port} filled in)
    "go": {"port": 8080, "ready": "http-get http://:{port}/ready", "live": "http-get http://:{port}/healthz"},
    "zap": {"port": 8080, "ready": "http-get http://:{port}/readyz", "live": "http-get http://:{port}/livez"},
    "java": {
        "port": 8080,
        "ready": "http-get http://:{port}/actuator/health/readiness",
        "live": "http-get http://:{port}/actuator/health/liveness",
        "delay": 30,
    },
    "python": {
        "port": 8000,
        "ready": "http-get http://:{port}/healthz",
        "live": "http-get http://:{port}/healthz",
    },
    "node": {
        "port": 3000,
        "ready": "http-get http://:{port}/readyz",
        "live": "http-get http://:{port}/livez",
    },
    "nginx": {"port": 8080, "ready": "http-get http://:{port}/healthz", "live": None},
    "worker": {
        "port": None,
        "ready": None,
        "live": "exec [celery -A app inspect ping -d celery@$(HOSTNAME)]",
    },
    "redis": {"port": 6379, "ready": "exec [redis-cli ping]", "live": "tcp-socket :{port}"},
    "postgres": {
        "port": 5432,
        "ready": "exec [pg_isready -U postgres]",
        "live": "exec [pg_isready -U postgres]",
    },
    "opensearch": {"port": 9200, "ready": "tcp-socket :{port}", "live": None, "delay": 60},
    "kafka": {"port": 9092, "ready": "tcp-socket :{port}", "live": "tcp-socket :{port}", "delay": 60},
    "coredns": {"port": 53, "ready": "http-get http://:8181/ready", "live": "http-get http://:8080/health"},
    "kubeproxy": {"port": None, "ready": None, "live": None},
    "fluentbit": {"port": 2020, "ready": None, "live": "http-get http://:2020/"},
    "batch": {"port": None, "ready": None, "live": None},
}


def probe(
    template: str | None, port: int | None, delay: int = 10, timeout: int = 1, period: int = 10
) -> str | None:
    if not template:
        return None
    return f"{template.format(port=port)} delay={delay}s timeout={timeout}s period={period}s #success=1 #failure=3"


class Incident:
    """One incident: a fixture built up pod by pod, and the truth about it."""

    def __init__(
        self,
        ident: str,
        *,
        scope: str,
        question: str,
        summary: str,
        tags: list[str],
        cluster: str,
        version: str = "v1.29.6",
    ) -> None:
        self.ident = ident
        self.scope = scope
        """The namespace the question asks about, or "nodes"."""
        self.question = question
        self.summary = summary
        self.tags = tags
        self.cluster = {"name": cluster, "version": version}
        self.version = version
        self.now = EPOCH + timedelta(
            days=number(0, 75, ident, "day"), hours=number(0, 15, ident, "hour"), minutes=number(0, 59, ident)
        )
        self.nodes: list[dict[str, Any]] = []
        self.pods: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.unhealthy: list[dict[str, Any]] = []
        self.allowed: list[dict[str, Any]] = []
        self._ips: dict[str, int] = {}

    # -- time -----------------------------------------------------------------------------------------

    def at(self, mins: float) -> datetime:
        """The moment `mins` minutes before now, to the second."""
        moment = self.now - timedelta(seconds=round(mins * 60))
        return moment.replace(microsecond=0)

    def stamp(self, mins: float, lines: Iterable[str], fmt: str = "iso", step: float = 0.35) -> list[str]:
        """Log lines written from `mins` minutes ago on, `step` seconds apart; `{t}` is the timestamp."""
        start = self.at(mins)
        out = []
        for n, line in enumerate(lines):
            moment = start + timedelta(seconds=int(n * step))
            out.append(line.replace("{t}", STAMPS[fmt](moment)))
        return out

    def iso(self, mins: float) -> str:
        return STAMPS["iso"](self.at(mins))

    # -- nodes ----------------------------------------------------------------------------------------

    def node(
        self,
        name: str,
        *,
        cpu: int = 4,
        memory: int = 16,
        roles: tuple[str, ...] = ("worker",),
        labels: dict[str, str] | None = None,
        version: str | None = None,
        age: str = "41d",
        ip: str | None = None,
        pods: int = 110,
    ) -> str:
        reserved = 600 + 40 * memory  # kube-reserved and the eviction threshold, in Mi
        index = len(self.nodes)
        self.nodes.append(
            {
                "name": name,
                "status": "Ready",
                "roles": list(roles),
                "age": age,
                "version": version or self.version,
                "internal_ip": ip or f"10.0.{16 + index * 16}.{number(10, 250, self.ident, name)}",
                "capacity": {
                    "cpu": str(cpu),
                    "ephemeral-storage": "100Gi",
                    "memory": f"{memory}Gi",
                    "pods": str(pods),
                },
                "allocatable": {
                    "cpu": f"{cpu * 1000 - 80}m",
                    "ephemeral-storage": "92Gi",
                    "memory": f"{memory * 1024 - reserved}Mi",
                    "pods": str(pods),
                },
                "conditions": {
                    "Ready": "True",
                    "MemoryPressure": "False",
                    "DiskPressure": "False",
                    "PIDPressure": "False",
                },
                "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", **(labels or {})},
            }
        )
        return name

    def eks(
        self,
        count: int,
        *,
        cpu: int = 4,
        memory: int = 16,
        instance: str = "m6i.xlarge",
        region: str = "eu-west-1",
        group: str = "general",
        labels: dict[str, str] | None = None,
    ) -> list[str]:
        names = []
        for n in range(count):
            third = (17, 42, 73, 98, 121)[len(self.nodes) % 5]
            fourth = number(10, 250, self.ident, "eks", group, n)
            name = f"ip-10-0-{third}-{fourth}.{region}.compute.internal"
            names.append(
                self.node(
                    name,
                    cpu=cpu,
                    memory=memory,
                    version=f"{self.version}-eks-1552ad0",
                    ip=f"10.0.{third}.{fourth}",
                    pods=58,
                    labels={
                        "eks.amazonaws.com/nodegroup": group,
                        "node.kubernetes.io/instance-type": instance,
                        "topology.kubernetes.io/zone": f"{region}{'abc'[len(self.nodes) % 3]}",
                        **(labels or {}),
                    },
                )
            )
        return names

    def gke(
        self,
        count: int,
        *,
        cluster: str,
        pool: str = "default-pool",
        machine: str = "e2-standard-4",
        cpu: int = 4,
        memory: int = 16,
        region: str = "europe-west1",
        labels: dict[str, str] | None = None,
    ) -> list[str]:
        names = []
        for n in range(count):
            zone = "bcd"[n % 3]
            group = hexchars(8, self.ident, cluster, pool, zone)
            name = f"gke-{cluster}-{pool}-{group}-{chars(4, self.ident, pool, n)}"
            names.append(
                self.node(
                    name,
                    cpu=cpu,
                    memory=memory,
                    version=f"{self.version}-gke.1031000",
                    labels={
                        "cloud.google.com/gke-nodepool": pool,
                        "node.kubernetes.io/instance-type": machine,
                        "topology.kubernetes.io/zone": f"{region}-{zone}",
                        **(labels or {}),
                    },
                )
            )
        return names

    def aks(
        self,
        count: int,
        *,
        pool: str = "nodepool1",
        vm: str = "Standard_D4s_v5",
        cpu: int = 4,
        memory: int = 16,
        mode: str = "User",
        labels: dict[str, str] | None = None,
    ) -> list[str]:
        scale_set = number(10000000, 99999999, self.ident, pool)
        names = []
        for n in range(count):
            name = f"aks-{pool}-{scale_set}-vmss{n:06d}"
            names.append(
                self.node(
                    name,
                    cpu=cpu,
                    memory=memory,
                    pods=30,
                    labels={
                        "agentpool": pool,
                        "kubernetes.azure.com/mode": mode.lower(),
                        "node.kubernetes.io/instance-type": vm,
                        "topology.kubernetes.io/zone": f"westeurope-{n % 3 + 1}",
                        **(labels or {}),
                    },
                )
            )
        return names

    def metal(
        self, names: Iterable[str], *, cpu: int = 8, memory: int = 32, labels: dict[str, str] | None = None
    ) -> list[str]:
        """Nodes of a kubeadm cluster; a name starting `cp-` is a control-plane node."""
        out = []
        for name in names:
            control = name.startswith("cp-")
            out.append(
                self.node(
                    name,
                    cpu=4 if control else cpu,
                    memory=8 if control else memory,
                    roles=("control-plane",) if control else ("worker",),
                    ip=f"192.168.40.{11 + len(self.nodes)}",
                    labels=(
                        {"node-role.kubernetes.io/control-plane": ""}
                        if control
                        else {"node-role.kubernetes.io/worker": "", **(labels or {})}
                    ),
                )
            )
        return out

    def find_node(self, name: str) -> dict[str, Any]:
        return next(n for n in self.nodes if n["name"] == name)

    # -- pods -----------------------------------------------------------------------------------------

    def _ip(self, node: str) -> str:
        index = next(i for i, n in enumerate(self.nodes) if n["name"] == node)
        self._ips[node] = self._ips.get(node, number(3, 40, self.ident, node)) + number(
            1, 9, self.ident, node, len(self.pods)
        )
        return f"10.244.{index + 1}.{self._ips[node]}"

    def deploy(
        self,
        namespace: str,
        app: str,
        image: str,
        nodes: list[str],
        replicas: int = 1,
        *,
        kind: str = "deployment",
        stack: str = "go",
        port: int | None = None,
        cpu: str = "100m",
        memory: str = "128Mi",
        limit_memory: str | None = None,
        limit_cpu: str | None = None,
        age: str = "6d",
        env: dict[str, Any] | None = None,
        logs: list[str] | Callable[[dict[str, Any]], list[str]] | None = None,
        revision: str = "1",
        container: str | None = None,
        readiness: str | bool | None = True,
        liveness: str | bool | None = True,
        first: int = 0,
    ) -> list[dict[str, Any]]:
        """`replicas` healthy pods of a workload, spread over `nodes`; the broken ones are then made so."""
        made = []
        spec = STACKS[stack]
        port = port if port is not None else spec["port"]
        template = chars(
            10 if _digest(self.ident, app, revision)[0] % 3 else 9, self.ident, namespace, app, revision
        )
        for n in range(first, first + replicas):
            if kind == "deployment":
                name = f"{app}-{template}-{chars(5, self.ident, namespace, app, revision, n)}"
                labels = {"app.kubernetes.io/name": app, "pod-template-hash": template}
            elif kind == "statefulset":
                name = f"{app}-{n}"
                labels = {"app.kubernetes.io/name": app, "statefulset.kubernetes.io/pod-name": name}
            elif kind == "daemonset":
                name = f"{app}-{chars(5, self.ident, namespace, app, n)}"
                labels = {"k8s-app": app, "controller-revision-hash": chars(10, self.ident, app, "ds")}
            else:
                raise ValueError(kind)
            node = nodes[n % len(nodes)]
            started = minutes(age)
            container_name = container or app
            requests = {"cpu": cpu, "memory": memory}
            limits = {"memory": limit_memory or _double(memory)}
            if limit_cpu:
                limits = {"cpu": limit_cpu, **limits}
            delay = spec.get("delay", 10)
            ready_probe = (
                readiness
                if isinstance(readiness, str)
                else (probe(spec["ready"], port, delay // 2) if readiness else None)
            )
            live_probe = (
                liveness
                if isinstance(liveness, str)
                else (probe(spec["live"], port, delay, period=20) if liveness else None)
            )
            pod: dict[str, Any] = {
                "name": name,
                "namespace": namespace,
                "status": "Running",
                "phase": "Running",
                "node": node,
                "age": age,
                "ip": self._ip(node),
                "labels": labels,
                "containers": [],
            }
            version = image.rsplit(":", 1)[-1]
            body: dict[str, Any] = {
                "name": container_name,
                "image": image,
                "ready": True,
                "restarts": 0,
                "state": {"running": {"started_at": self.iso(started)}},
                "requests": requests,
                "limits": limits,
            }
            if live_probe:
                body["liveness_probe"] = live_probe
            if ready_probe:
                body["readiness_probe"] = ready_probe
            if env:
                body["env"] = dict(env)
            pod["containers"].append(body)
            if logs is None:
                body["logs"] = self.healthy_logs(stack, app, version, port, started, pod)
            elif callable(logs):
                body["logs"] = logs(pod)
            else:
                body["logs"] = list(logs)
            self.pods.append(pod)
            made.append(pod)
            if started < 60:
                self.started_events(pod, started)
        return made

    def job(
        self,
        namespace: str,
        cronjob: str,
        image: str,
        node: str,
        *,
        runs_ago: float,
        attempts: int = 1,
        failed: bool = False,
        logs: list[str] | Callable[[float], list[str]] | None = None,
        cpu: str = "500m",
        memory: str = "1Gi",
        duration: float = 4.0,
        container: str | None = None,
    ) -> list[dict[str, Any]]:
        """The pods of one run of a CronJob: `attempts` pods, all failed or the last one Completed."""
        scheduled = self.at(runs_ago).replace(second=0)
        job_name = f"{cronjob}-{int(scheduled.timestamp() // 60)}"
        made = []
        for attempt in range(attempts):
            name = f"{job_name}-{chars(5, self.ident, job_name, attempt)}"
            started = runs_ago - attempt * (duration + 0.5) - 0.1
            finished = started - duration
            succeeded = not failed and attempt == attempts - 1
            if callable(logs):
                lines = logs(started)
            elif logs is not None:
                lines = list(logs)
            else:
                lines = self.stamp(
                    started,
                    [
                        f"{{t}} INFO  {cronjob}: run started",
                        f"{{t}} INFO  {cronjob}: run finished in {int(duration * 60)}s",
                    ],
                )
            pod = {
                "name": name,
                "namespace": namespace,
                "status": "Completed" if succeeded else "Error",
                "phase": "Succeeded" if succeeded else "Failed",
                "node": node,
                "age": ago(started),
                "ip": self._ip(node),
                "labels": {"batch.kubernetes.io/job-name": job_name, "job-name": job_name},
                "containers": [
                    {
                        "name": container or cronjob,
                        "image": image,
                        "ready": False,
                        "restarts": 0,
                        "state": {
                            "terminated": {
                                "reason": "Completed" if succeeded else "Error",
                                "exit_code": 0 if succeeded else 1,
                                "started_at": self.iso(started),
                                "finished_at": self.iso(finished),
                            }
                        },
                        "requests": {"cpu": cpu, "memory": memory},
                        "limits": {"memory": _double(memory)},
                        "logs": lines,
                    }
                ],
            }
            self.pods.append(pod)
            made.append(pod)
        if runs_ago < 60 or failed:
            for pod in made:
                self.event(
                    namespace,
                    f"job/{job_name}",
                    "SuccessfulCreate",
                    f"Created pod: {pod['name']}",
                    source="job-controller",
                    last=minutes(pod["age"]),
                )
            if failed:
                self.event(
                    namespace,
                    f"job/{job_name}",
                    "BackoffLimitExceeded",
                    "Job has reached the specified backoff limit",
                    warning=True,
                    source="job-controller",
                    last=runs_ago - attempts * (duration + 0.5),
                )
                self.event(
                    namespace,
                    f"cronjob/{cronjob}",
                    "SawCompletedJob",
                    f"Saw completed job: {job_name}, status: Failed",
                    source="cronjob-controller",
                    last=runs_ago - attempts * (duration + 0.5),
                )
        return made

    def daemons(
        self, nodes: list[str], *, which: tuple[str, ...] = ("kube-proxy",)
    ) -> dict[str, list[dict[str, Any]]]:
        """kube-system daemon set pods, one per node."""
        made: dict[str, list[dict[str, Any]]] = {}
        for daemon in which:
            if daemon == "kube-proxy":
                made[daemon] = self.deploy(
                    "kube-system",
                    "kube-proxy",
                    f"registry.k8s.io/kube-proxy:{self.version}",
                    nodes,
                    len(nodes),
                    kind="daemonset",
                    stack="kubeproxy",
                    cpu="100m",
                    memory="64Mi",
                    age="41d",
                )
            elif daemon == "fluent-bit":
                made[daemon] = self.deploy(
                    "logging",
                    "fluent-bit",
                    "cr.fluentbit.io/fluent/fluent-bit:3.0.7",
                    nodes,
                    len(nodes),
                    kind="daemonset",
                    stack="fluentbit",
                    cpu="50m",
                    memory="64Mi",
                    age="27d",
                )
        return made

    def sidecar(
        self,
        pod: dict[str, Any],
        name: str,
        image: str,
        logs: list[str],
        *,
        cpu: str = "50m",
        memory: str = "64Mi",
        limit_memory: str = "128Mi",
        liveness: str | None = None,
    ) -> dict[str, Any]:
        """A second container of a pod (a log shipper, a proxy), started with the first."""
        body: dict[str, Any] = {
            "name": name,
            "image": image,
            "ready": True,
            "restarts": 0,
            "state": {"running": {"started_at": pod["containers"][0]["state"]["running"]["started_at"]}},
            "requests": {"cpu": cpu, "memory": memory},
            "limits": {"memory": limit_memory},
        }
        if liveness:
            body["liveness_probe"] = liveness
        body["logs"] = list(logs)
        pod["containers"].append(body)
        return body

    def pod(self, name: str) -> dict[str, Any]:
        return next(p for p in self.pods if p["name"] == name)

    def started_events(self, pod: dict[str, Any], since: float) -> None:
        ctr = pod["containers"][0]
        self.pod_event(
            pod,
            "Scheduled",
            f"Successfully assigned {pod['namespace']}/{pod['name']} to {pod['node']}",
            source="default-scheduler",
            last=since,
        )
        self.pod_event(pod, "Pulling", f'Pulling image "{ctr["image"]}"', last=since)
        size = number(21_000_000, 420_000_000, ctr["image"])
        took = number(800, 9000, ctr["image"], pod["name"]) / 1000
        self.pod_event(
            pod,
            "Pulled",
            f'Successfully pulled image "{ctr["image"]}" in {took:.3f}s ({took:.3f}s including waiting). Image size: {size} bytes.',
            last=since - 0.1,
        )
        self.pod_event(pod, "Created", f"Created container {ctr['name']}", last=since - 0.1)
        self.pod_event(pod, "Started", f"Started container {ctr['name']}", last=since - 0.1)

    # -- events ---------------------------------------------------------------------------------------

    def event(
        self,
        namespace: str,
        obj: str,
        reason: str,
        message: str,
        *,
        warning: bool = False,
        count: int = 1,
        first: float | None = None,
        last: float = 1.0,
        source: str = "kubelet",
    ) -> None:
        event: dict[str, Any] = {
            "namespace": namespace,
            "object": obj,
            "type": "Warning" if warning else "Normal",
            "reason": reason,
            "message": message,
            "count": count,
        }
        if count > 1:
            event["first_seen"] = ago(first if first is not None else last + 5 * count)
        event["last_seen"] = ago(last)
        event["source"] = source
        self.events.append(event)

    def pod_event(self, pod: dict[str, Any], reason: str, message: str, **kw: Any) -> None:
        self.event(pod["namespace"], f"pod/{pod['name']}", reason, message, **kw)

    def node_event(self, node: str, reason: str, message: str, **kw: Any) -> None:
        self.event("default", f"node/{node}", reason, message, **kw)

    # -- ways to be broken ----------------------------------------------------------------------------

    def crashloop(
        self,
        pod: dict[str, Any],
        lines: list[str],
        *,
        restarts: int,
        crashed: float,
        ran: float = 0.05,
        exit_code: int = 1,
        reason: str = "Error",
        running: bool = False,
        startup: list[str] | None = None,
        container: int = 0,
        status: str | None = None,
    ) -> None:
        """The container exits at start-up and kubelet backs off restarting it.

        `lines` is the log of the run that started `crashed` minutes ago and died `ran` minutes later;
        with `running`, the container has just been started again (READY 0/1, STATUS Running) and
        `startup` is its log so far.
        """
        ctr = pod["containers"][container]
        since = minutes(pod["age"])
        ctr["ready"] = False
        ctr["restarts"] = restarts
        terminated = {
            "reason": reason,
            "exit_code": exit_code,
            "started_at": self.iso(crashed),
            "finished_at": self.iso(crashed - ran),
        }
        if running:
            ctr["state"] = {"running": {"started_at": self.iso(0.4)}}
            ctr["last_state"] = {"terminated": terminated}
            ctr["logs"] = list(startup or [])
            ctr["previous_logs"] = list(lines)
            pod["status"] = status or "Running"
        else:
            ctr["state"] = {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off 5m0s restarting failed container={ctr['name']} pod={pod['name']}_{pod['namespace']}({uid(pod['name'])})",
                }
            }
            ctr["last_state"] = {"terminated": terminated}
            ctr["logs"] = list(lines)
            ctr["previous_logs"] = list(lines)
            pod["status"] = status or "CrashLoopBackOff"
        self._restart_events(pod, ctr, restarts, since, 0.4 if running else crashed)
        self.pod_event(
            pod,
            "BackOff",
            f"Back-off restarting failed container {ctr['name']} in pod {pod['name']}_{pod['namespace']}({uid(pod['name'])})",
            warning=True,
            count=max(2, restarts * 4 + 3),
            first=since - 1,
            last=0.45 if running else 0.3,
        )

    def _restart_events(
        self, pod: dict[str, Any], ctr: dict[str, Any], restarts: int, since: float, last: float
    ) -> None:
        self.events[:] = [
            e
            for e in self.events
            if not (e["object"] == f"pod/{pod['name']}" and e["reason"] in ("Created", "Started"))
        ]
        self.pod_event(
            pod,
            "Pulled",
            f'Container image "{ctr["image"]}" already present on machine',
            count=restarts,
            first=since - 0.5,
            last=last + 0.02,
        )
        self.pod_event(
            pod,
            "Created",
            f"Created container {ctr['name']}",
            count=restarts + 1,
            first=since,
            last=last,
        )
        self.pod_event(
            pod,
            "Started",
            f"Started container {ctr['name']}",
            count=restarts + 1,
            first=since,
            last=last,
        )

    def oom(
        self,
        pod: dict[str, Any],
        lines: list[str],
        *,
        restarts: int,
        crashed: float,
        ran: float = 0.5,
        running: bool = False,
        startup: list[str] | None = None,
        container: int = 0,
        status: str | None = None,
    ) -> None:
        """The container is killed for exceeding its memory limit, again and again (see `crashloop`)."""
        if status == "OOMKilled":
            ctr = pod["containers"][container]
            since = minutes(pod["age"])
            ctr.update(ready=False, restarts=restarts, logs=list(lines), previous_logs=list(lines))
            ctr["state"] = {
                "terminated": {
                    "reason": "OOMKilled",
                    "exit_code": 137,
                    "started_at": self.iso(crashed),
                    "finished_at": self.iso(crashed - ran),
                }
            }
            ctr.pop("last_state", None)
            pod["status"] = "OOMKilled"
            self._restart_events(pod, ctr, restarts, since, crashed)
            self.pod_event(
                pod,
                "BackOff",
                f"Back-off restarting failed container {ctr['name']} in pod {pod['name']}_{pod['namespace']}({uid(pod['name'])})",
                warning=True,
                count=restarts * 3,
                first=since - 2,
                last=crashed + 2,
            )
            return
        self.crashloop(
            pod,
            lines,
            restarts=restarts,
            crashed=crashed,
            ran=ran,
            exit_code=137,
            reason="OOMKilled",
            running=running,
            startup=startup,
            container=container,
            status=status,
        )

    def image_pull(
        self, pod: dict[str, Any], error: str, *, status: str = "ImagePullBackOff", tries: int = 7
    ) -> None:
        """The image cannot be pulled: `error` is what the container runtime said."""
        ctr = pod["containers"][0]
        since = minutes(pod["age"])
        image = ctr["image"]
        pod["status"] = status
        pod["phase"] = "Pending"
        ctr.update(ready=False, restarts=0, logs=[])
        message = f'Back-off pulling image "{image}"' if status == "ImagePullBackOff" else error
        ctr["state"] = {"waiting": {"reason": status, "message": message}}
        self.events[:] = [e for e in self.events if e["object"] != f"pod/{pod['name']}"]
        if since < 60:
            self.pod_event(
                pod,
                "Scheduled",
                f"Successfully assigned {pod['namespace']}/{pod['name']} to {pod['node']}",
                source="default-scheduler",
                last=since,
            )
        self.pod_event(pod, "Pulling", f'Pulling image "{image}"', count=tries, first=since, last=1.2)
        self.pod_event(
            pod,
            "Failed",
            f'Failed to pull image "{image}": {error}',
            warning=True,
            count=tries,
            first=since,
            last=1.2,
        )
        self.pod_event(pod, "Failed", "Error: ErrImagePull", warning=True, count=tries, first=since, last=1.2)
        self.pod_event(
            pod, "BackOff", f'Back-off pulling image "{image}"', count=tries * 6, first=since - 0.2, last=0.4
        )
        self.pod_event(
            pod,
            "Failed",
            "Error: ImagePullBackOff",
            warning=True,
            count=tries * 6,
            first=since - 0.2,
            last=0.4,
        )

    def unschedulable(self, pod: dict[str, Any], message: str, *, count: int | None = None) -> None:
        """The scheduler finds no node: `message` is its FailedScheduling event."""
        since = minutes(pod["age"])
        pod.update(status="Pending", phase="Pending", node=None, ip=None)
        for ctr in pod["containers"]:
            ctr.update(ready=False, restarts=0, logs=[])
            ctr.pop("state", None)
        self.events[:] = [e for e in self.events if e["object"] != f"pod/{pod['name']}"]
        tries = count or max(2, int(since / 5))
        self.pod_event(
            pod,
            "FailedScheduling",
            message,
            warning=True,
            count=tries,
            first=since,
            last=min(since, 2.5),
            source="default-scheduler",
        )

    def config_error(self, pod: dict[str, Any], message: str, *, tries: int | None = None) -> None:
        """CreateContainerConfigError: a ConfigMap or Secret the container needs is not there."""
        ctr = pod["containers"][0]
        since = minutes(pod["age"])
        pod["status"] = "CreateContainerConfigError"
        pod["phase"] = "Pending"
        ctr.update(ready=False, restarts=0, logs=[])
        ctr["state"] = {"waiting": {"reason": "CreateContainerConfigError", "message": message}}
        self.events[:] = [e for e in self.events if e["object"] != f"pod/{pod['name']}"]
        tries = tries or max(2, int(since * 1.5))
        if since < 60:
            self.pod_event(
                pod,
                "Scheduled",
                f"Successfully assigned {pod['namespace']}/{pod['name']} to {pod['node']}",
                source="default-scheduler",
                last=since,
            )
        self.pod_event(
            pod,
            "Pulled",
            f'Container image "{ctr["image"]}" already present on machine',
            count=tries,
            first=since,
            last=0.8,
        )
        self.pod_event(pod, "Failed", f"Error: {message}", warning=True, count=tries, first=since, last=0.8)

    def not_ready(
        self,
        pod: dict[str, Any],
        message: str,
        *,
        count: int | None = None,
        logs: list[str] | None = None,
        container: int = 0,
        since: float | None = None,
    ) -> None:
        """Running, but the readiness probe fails (since `since` minutes, default the pod's age): READY 0/1."""
        ctr = pod["containers"][container]
        since = since if since is not None else minutes(pod["age"])
        ctr["ready"] = False
        if logs is not None:
            ctr["logs"] = list(logs)
        self.pod_event(
            pod,
            "Unhealthy",
            message,
            warning=True,
            count=count or max(3, int(since * 6)),
            first=max(since - 0.5, 0.5),
            last=0.1,
        )

    def liveness(
        self,
        pod: dict[str, Any],
        message: str,
        *,
        restarts: int,
        exit_code: int = 137,
        logs: list[str] | None = None,
        previous_logs: list[str] | None = None,
        backoff: bool = False,
    ) -> None:
        """The liveness probe fails and kubelet kills and restarts the container."""
        ctr = pod["containers"][0]
        since = minutes(pod["age"])
        ctr["ready"] = False
        ctr["restarts"] = restarts
        ctr["last_state"] = {
            "terminated": {
                "reason": "Error",
                "exit_code": exit_code,
                "started_at": self.iso(min(since, 9.5)),
                "finished_at": self.iso(2.8),
            }
        }
        if logs is not None:
            ctr["logs"] = list(logs)
        if previous_logs is not None:
            ctr["previous_logs"] = list(previous_logs)
        if backoff:
            pod["status"] = "CrashLoopBackOff"
            ctr["state"] = {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off 2m40s restarting failed container={ctr['name']} pod={pod['name']}_{pod['namespace']}({uid(pod['name'])})",
                }
            }
        else:
            ctr["state"] = {"running": {"started_at": self.iso(1.6)}}
        self._restart_events(pod, ctr, restarts, since, 1.6)
        self.pod_event(
            pod, "Unhealthy", message, warning=True, count=restarts * 3 + 2, first=since - 1, last=0.2
        )
        self.pod_event(
            pod,
            "Killing",
            f"Container {ctr['name']} failed liveness probe, will be restarted",
            count=restarts,
            first=since - 1.5,
            last=2.8,
        )
        if backoff:
            self.pod_event(
                pod,
                "BackOff",
                f"Back-off restarting failed container {ctr['name']} in pod {pod['name']}_{pod['namespace']}({uid(pod['name'])})",
                warning=True,
                count=restarts * 2,
                first=since - 4,
                last=0.5,
            )

    def init_failure(
        self,
        pod: dict[str, Any],
        name: str,
        image: str,
        lines: list[str],
        *,
        restarts: int,
        exit_code: int = 1,
        status: str = "Init:CrashLoopBackOff",
    ) -> None:
        """An init container fails; the app container waits in PodInitializing. The fixture has no
        separate list of init containers: the init container is the pod's first container."""
        since = minutes(pod["age"])
        main = pod["containers"][0]
        main.update(ready=False, restarts=0, logs=[])
        main["state"] = {"waiting": {"reason": "PodInitializing"}}
        init: dict[str, Any] = {
            "name": name,
            "image": image,
            "ready": False,
            "restarts": restarts,
        }
        terminated = {
            "reason": "Error",
            "exit_code": exit_code,
            "started_at": self.iso(1.9),
            "finished_at": self.iso(1.8),
        }
        if status == "Init:Error":
            init["state"] = {"terminated": terminated}
        else:
            init["state"] = {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off 5m0s restarting failed container={name} pod={pod['name']}_{pod['namespace']}({uid(pod['name'])})",
                }
            }
            init["last_state"] = {"terminated": terminated}
        init["requests"] = {"cpu": "50m", "memory": "64Mi"}
        init["logs"] = list(lines)
        init["previous_logs"] = list(lines)
        pod["containers"].insert(0, init)
        pod["status"] = status
        pod["phase"] = "Pending"
        self.events[:] = [e for e in self.events if e["object"] != f"pod/{pod['name']}"]
        if since < 60:
            self.pod_event(
                pod,
                "Scheduled",
                f"Successfully assigned {pod['namespace']}/{pod['name']} to {pod['node']}",
                source="default-scheduler",
                last=since,
            )
        self._restart_events(pod, init, restarts, since, 1.9)
        self.pod_event(
            pod,
            "BackOff",
            f"Back-off restarting failed container {name} in pod {pod['name']}_{pod['namespace']}({uid(pod['name'])})",
            warning=True,
            count=restarts * 4,
            first=since - 1,
            last=0.6,
        )

    def evicted(self, pod: dict[str, Any], message: str, *, when: float, stopping: bool = True) -> None:
        """Evicted by kubelet: STATUS Evicted, phase Failed, the reason in the Evicted event."""
        pod["status"] = "Evicted"
        pod["phase"] = "Failed"
        pod["conditions"] = {
            "DisruptionTarget": "True",
            "PodScheduled": "True",
            "Initialized": "True",
            "ContainersReady": "False",
            "Ready": "False",
        }
        for ctr in pod["containers"]:
            ctr["ready"] = False
            ctr["state"] = {
                "terminated": {
                    "reason": "ContainerStatusUnknown",
                    "message": "The container could not be located when the pod was terminated",
                    "exit_code": 137,
                    "started_at": ctr.get("state", {})
                    .get("running", {})
                    .get("started_at", self.iso(when + 30)),
                    "finished_at": self.iso(when),
                }
            }
        self.pod_event(pod, "Evicted", message, warning=True, last=when)
        if stopping:
            self.pod_event(pod, "Killing", f"Stopping container {pod['containers'][0]['name']}", last=when)

    def quota_blocked(
        self, pod: dict[str, Any], quota: str, resource: str, requested: str, limited: str
    ) -> None:
        """The ResourceQuota admission refuses the pod. A refused pod is never created, and the fixture
        has no ReplicaSet to carry the event: the pod is shown Pending, unscheduled, with the
        replica set controller's FailedCreate event on it. `used` is what the namespace already holds."""
        since = minutes(pod["age"])
        namespace = pod["namespace"]
        pod.update(status="Pending", phase="Pending", node=None, ip=None)
        for ctr in pod["containers"]:
            ctr.update(ready=False, restarts=0, logs=[])
            ctr.pop("state", None)
        self.events[:] = [e for e in self.events if e["object"] != f"pod/{pod['name']}"]
        used = self._used(namespace, resource, exclude=pod["name"])
        message = (
            f'Error creating: pods "{pod["name"]}" is forbidden: exceeded quota: {quota}, requested: '
            f"{resource}={requested}, used: {resource}={used}, limited: {resource}={limited}"
        )
        self.pod_event(
            pod,
            "FailedCreate",
            message,
            warning=True,
            count=max(2, int(since / 2)),
            first=since,
            last=1.5,
            source="replicaset-controller",
        )

    def _used(self, namespace: str, resource: str, exclude: str) -> str:
        pods = [
            p
            for p in self.pods
            if p["namespace"] == namespace
            and p["name"] != exclude
            and p["status"] not in ("Completed", "Evicted", "Error")
        ]
        if resource == "pods":
            return str(len(pods))
        kind, _, what = resource.partition(".")
        total = 0.0
        for p in pods:
            for ctr in p["containers"]:
                total += quantity((ctr.get(kind) or {}).get(what), what)
        if what == "cpu":
            return f"{round(total * 1000)}m"
        mib = round(total / 2**20)
        return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"

    def node_not_ready(self, node: str, *, since: float) -> list[dict[str, Any]]:
        """The node stops posting status: conditions Unknown, its pods marked not ready. Returns its pods."""
        spec = self.find_node(node)
        spec["status"] = "NotReady"
        spec["conditions"] = dict.fromkeys(spec["conditions"], "Unknown")
        self.node_event(
            node,
            "NodeNotReady",
            f"Node {node} status is now: NodeNotReady",
            source="node-controller",
            last=since,
        )
        affected = []
        for pod in self.pods:
            if pod.get("node") == node and pod["status"] not in ("Completed",):
                for ctr in pod["containers"]:
                    ctr["ready"] = False
                self.pod_event(
                    pod,
                    "NodeNotReady",
                    "Node is not ready",
                    warning=True,
                    source="node-controller",
                    last=since - 0.1,
                )
                affected.append(pod)
        return affected

    # -- the truth ------------------------------------------------------------------------------------

    def bad(self, resource: dict[str, Any] | str, cause: str, fact: str, accept: Iterable[str] = ()) -> None:
        entry = self._ref(resource)
        entry["cause"] = cause
        if accept:
            entry["accept"] = list(accept)
        entry["fact"] = fact
        self.unhealthy.append(entry)

    def allow(self, *resources: dict[str, Any] | str) -> None:
        for resource in resources:
            self.allowed.append(self._ref(resource))

    @staticmethod
    def _ref(resource: dict[str, Any] | str) -> dict[str, Any]:
        if isinstance(resource, str):
            return {"kind": "node", "name": resource}
        return {"kind": "pod", "name": resource["name"], "namespace": resource["namespace"]}

    # -- output ---------------------------------------------------------------------------------------

    def fixture(self) -> dict[str, Any]:
        for pod in self.pods:
            if "conditions" not in pod:
                pod["conditions"] = _conditions(pod)
            elif not pod["conditions"]:
                del pod["conditions"]
        return {"cluster": self.cluster, "nodes": self.nodes, "pods": self.pods, "events": self.events}

    def truth(self) -> dict[str, Any]:
        truth: dict[str, Any] = {
            "question": self.question,
            "summary": self.summary,
            "tags": self.tags,
            "unhealthy": self.unhealthy,
        }
        if self.allowed:
            truth["allowed"] = self.allowed
        return truth

    def check(self) -> list[str]:
        """What is wrong with this incident as a graded item (empty: nothing)."""
        problems = []
        if not 4 <= len(self.pods) <= 20:
            problems.append(f"{len(self.pods)} pods (want 4 to 20)")
        if not 2 <= len(self.nodes) <= 5:
            problems.append(f"{len(self.nodes)} nodes (want 2 to 5)")
        names = [(p["namespace"], p["name"]) for p in self.pods]
        if len(set(names)) != len(names):
            problems.append("two pods share a name")
        for node in self.nodes:
            cpu = mem = 0.0
            for pod in self.pods:
                if pod.get("node") == node["name"] and pod["status"] not in ("Completed", "Succeeded"):
                    for ctr in pod["containers"]:
                        cpu += quantity((ctr.get("requests") or {}).get("cpu"), "cpu")
                        mem += quantity((ctr.get("requests") or {}).get("memory"), "memory")
            if cpu > quantity(node["allocatable"]["cpu"], "cpu") or mem > quantity(
                node["allocatable"]["memory"], "memory"
            ):
                problems.append(
                    f"node {node['name']} is asked for more than it has ({cpu:.2f} cpu, {mem / 2**30:.1f}Gi)"
                )
        words = [p["name"] for p in self.pods] + [n["name"] for n in self.nodes]
        words += [p["namespace"] for p in self.pods] + [c["name"] for p in self.pods for c in p["containers"]]
        for word in words:
            if GIVEAWAYS.search(word) or self.ident in word:
                problems.append(f"the name {word!r} gives the answer away")
        known = {("pod", p["namespace"], p["name"]) for p in self.pods} | {
            ("node", None, n["name"]) for n in self.nodes
        }
        for entry in self.unhealthy + self.allowed:
            if (entry["kind"], entry.get("namespace"), entry["name"]) not in known:
                problems.append(
                    f"the truth names {entry['kind']} {entry['name']}, which the cluster does not have"
                )
        listed = {(e["kind"], e.get("namespace"), e["name"]) for e in self.unhealthy}
        if self.scope == "nodes":
            for node in self.nodes:
                sick = node["status"] != "Ready" or any(
                    node["conditions"].get(kind) == "True"
                    for kind in ("MemoryPressure", "DiskPressure", "PIDPressure")
                )
                if sick and ("node", None, node["name"]) not in listed:
                    problems.append(f"node {node['name']} is unhealthy but not in the truth")
            for entry in self.unhealthy:
                if entry["kind"] == "pod" and entry["cause"] not in NODE_CAUSES:
                    problems.append(
                        f"a node question lists pod {entry['name']} with a cause that is not a node's"
                    )
        else:
            for pod in self.pods:
                if (
                    pod["namespace"] == self.scope
                    and is_unhealthy(pod)
                    and ("pod", pod["namespace"], pod["name"]) not in listed
                ):
                    problems.append(f"pod {pod['name']} is unhealthy but not in the truth")
            for entry in self.unhealthy:
                if entry.get("namespace") != self.scope:
                    problems.append(f"the truth lists {entry['name']}, outside the scope {self.scope}")
        for event in self.events:
            if minutes(event["last_seen"]) > 60:
                problems.append(f"an event of {event['object']} is older than the events' 1h time to live")
            if minutes(event.get("first_seen", event["last_seen"])) < minutes(event["last_seen"]):
                problems.append(f"an event of {event['object']} was first seen after it was last seen")
        for entry in self.unhealthy:
            if len(entry["fact"]) < 15 or "\n" in entry["fact"]:
                problems.append(f"the fact of {entry['name']} is not one line of 15 characters or more")
        if len({(e["kind"], e.get("namespace"), e["name"]) for e in self.unhealthy}) != len(self.unhealthy):
            problems.append("the truth lists a resource twice")
        return problems

    # -- healthy logs ---------------------------------------------------------------------------------

    def healthy_logs(
        self, stack: str, app: str, version: str, port: int | None, started: float, pod: dict[str, Any]
    ) -> list[str]:
        """A few log lines of a workload that started `started` minutes ago and is doing fine."""
        seed = (self.ident, pod["name"])
        commit = hexchars(7, app, version)
        noun = app.split("-")[0]
        late, later = (
            min(started - 0.2, 9 + number(0, 30, *seed) / 10),
            min(started - 0.3, 1 + number(0, 30, *seed, 2) / 10),
        )
        ms1, ms2 = number(3, 60, *seed, 3), number(3, 60, *seed, 4)
        peer = f"10.244.{number(1, 4, *seed, 5)}.{number(2, 250, *seed, 6)}"
        if stack == "go":
            return (
                self.stamp(
                    started,
                    [
                        f"{{t}} INFO  starting {app} {version} (commit {commit})",
                        f"{{t}} INFO  listening on :{port}",
                    ],
                )
                + self.stamp(late, [f"{{t}} INFO  GET /v1/{noun}s 200 {ms1}ms"])
                + self.stamp(later, [f"{{t}} INFO  POST /v1/{noun}s 201 {ms2}ms"])
            )
        if stack == "zap":
            return self.stamp(
                started,
                [
                    f'{{"level":"info","ts":"{{t}}","caller":"cmd/server/main.go:74","msg":"starting","service":"{app}","version":"{version}"}}',
                    f'{{"level":"info","ts":"{{t}}","caller":"httpserver/server.go:51","msg":"listening","addr":":{port}"}}',
                ],
                "isoms",
            ) + self.stamp(
                late,
                [
                    f'{{"level":"info","ts":"{{t}}","caller":"httpserver/middleware.go:38","msg":"request","method":"GET","path":"/v1/{noun}","status":200,"duration_ms":{ms1}}}'
                ],
                "isoms",
            )
        if stack == "java":
            cls = "".join(part.capitalize() for part in app.split("-")) + "Application"
            pkg = f"c.a.{noun[:6]}"
            return self.stamp(
                started,
                [
                    f"{{t}}  INFO 1 --- [{app}] [           main] {pkg}.{cls:<28}: Starting {cls} v{version} using Java 21.0.5 with PID 1",
                    f"{{t}}  INFO 1 --- [{app}] [           main] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat started on port {port} (http) with context path '/'",
                    f"{{t}}  INFO 1 --- [{app}] [           main] {pkg}.{cls:<28}: Started {cls} in {number(60, 140, *seed) / 10:.1f} seconds (process running for {number(150, 190, *seed) / 10:.1f})",
                ],
                "isoms",
                step=9,
            ) + self.stamp(
                late,
                [
                    f"{{t}}  INFO 1 --- [{app}] [nio-{port}-exec-1] o.s.web.servlet.DispatcherServlet        : Completed initialization in 2 ms"
                ],
                "isoms",
            )
        if stack == "python":
            return [
                *self.stamp(
                    started,
                    [
                        "[{t}] [1] [INFO] Starting gunicorn 22.0.0",
                        f"[{{t}}] [1] [INFO] Listening at: http://0.0.0.0:{port} (1)",
                        "[{t}] [1] [INFO] Using worker: uvicorn.workers.UvicornWorker",
                        "[{t}] [7] [INFO] Booting worker with pid: 7",
                    ],
                    "py",
                ),
                f'INFO:     {peer}:{number(30000, 60000, *seed)} - "GET /v1/{noun} HTTP/1.1" 200 OK',
                f'INFO:     {peer}:{number(30000, 60000, *seed, 9)} - "POST /v1/{noun} HTTP/1.1" 200 OK',
            ]
        if stack == "node":
            return self.stamp(
                started,
                [
                    f'{{"level":30,"time":{{t}}000,"pid":1,"hostname":"{pod["name"]}","msg":"Server listening at http://0.0.0.0:{port}"}}',
                ],
                "epoch",
            ) + self.stamp(
                late,
                [
                    f'{{"level":30,"time":{{t}}000,"pid":1,"hostname":"{pod["name"]}","reqId":"req-{chars(3, *seed)}","res":{{"statusCode":200}},"responseTime":{ms1}.4,"msg":"request completed"}}'
                ],
                "epoch",
            )
        if stack == "nginx":
            return [
                "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
                "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
                "/docker-entrypoint.sh: Configuration complete; ready for start up",
                *self.stamp(
                    late,
                    [
                        f'{peer} - - [{{t}}] "GET / HTTP/1.1" 200 {number(2000, 9000, *seed)} "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)"',
                        '10.244.0.1 - - [{t}] "GET /healthz HTTP/1.1" 200 2 "-" "kube-probe/1.29"',
                    ],
                    "nginx",
                    step=3,
                ),
            ]
        if stack == "worker":
            task = uid(*seed, "task")
            return self.stamp(
                started,
                [
                    f"[{{t}}: INFO/MainProcess] Connected to redis://redis.{pod['namespace']}.svc.cluster.local:6379/0",
                    f"[{{t}}: INFO/MainProcess] celery@{pod['name']} ready.",
                ],
                "pylog",
            ) + self.stamp(
                late,
                [
                    f"[{{t}}: INFO/MainProcess] Task {noun}.tasks.process[{task}] received",
                    f"[{{t}}: INFO/ForkPoolWorker-2] Task {noun}.tasks.process[{task}] succeeded in {ms1 / 10:.2f}s: None",
                ],
                "pylog",
                step=2,
            )
        if stack == "redis":
            return self.stamp(
                started,
                [
                    "1:C {t} * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo",
                    f"1:C {{t}} * Redis version={version.split('-')[0]}, bits=64, commit=00000000, modified=0, pid=1, just started",
                    "1:M {t} * Server initialized",
                    "1:M {t} * Ready to accept connections tcp",
                ],
                "redis",
            )
        if stack == "postgres":
            return self.stamp(
                started,
                [
                    f"{{t}} [1] LOG:  starting PostgreSQL {version.split('-')[0]} on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit",
                    f'{{t}} [1] LOG:  listening on IPv4 address "0.0.0.0", port {port}',
                    "{t} [1] LOG:  database system is ready to accept connections",
                ],
                "pg",
            ) + self.stamp(
                late,
                [
                    f"{{t}} [{number(40, 90, *seed)}] LOG:  checkpoint complete: wrote {number(40, 900, *seed)} buffers (0.{number(1, 9, *seed)}%); 0 WAL file(s) added, 0 removed, 1 recycled"
                ],
                "pg",
            )
        if stack == "opensearch":
            return self.stamp(
                started,
                [
                    f"[{{t}}][INFO ][o.o.n.Node               ] [{pod['name']}] version[{version}], pid[1], build[tar/{commit}], OS[Linux/6.1.109/amd64], JVM[Eclipse Adoptium/OpenJDK 64-Bit Server VM/21.0.4/21.0.4+7-LTS]",
                    f"[{{t}}][INFO ][o.o.n.Node               ] [{pod['name']}] started",
                ],
                "commaiso",
                step=20,
            ) + self.stamp(
                late,
                [
                    f"[{{t}}][INFO ][o.o.c.r.a.AllocationService] [{pod['name']}] Cluster health status changed from [YELLOW] to [GREEN] (reason: [shards started [[{noun}-2026.1][0]]])."
                ],
                "commaiso",
            )
        if stack == "kafka":
            broker = pod["name"].rsplit("-", 1)[-1]
            return self.stamp(
                started,
                [
                    f"[{{t}}] INFO [KafkaRaftServer nodeId={broker}] Kafka Server started (kafka.server.KafkaRaftServer)",
                ],
                "pylog",
            ) + self.stamp(
                late,
                [
                    f"[{{t}}] INFO [LocalLog partition=events-{number(0, 11, *seed)}, dir=/var/lib/kafka/data] Rolled new log segment at offset {number(10**6, 10**8, *seed)} in 2 ms. (kafka.log.LocalLog)"
                ],
                "pylog",
            )
        if stack == "coredns":
            return [
                ".:53",
                f"[INFO] plugin/reload: Running configuration SHA512 = {hexchars(64, self.ident, 'coredns')[:32]}",
                "CoreDNS-1.11.1",
                "linux/amd64, go1.20.7, ae2bbc2",
            ]
        if stack == "kubeproxy":
            return self.stamp(
                started,
                [
                    'I{t}       1 server_linux.go:69] "Using iptables proxy"',
                    'I{t}       1 server.go:1050] "Successfully retrieved node IP(s)" IPs=["'
                    + (self.find_node(pod["node"])["internal_ip"])
                    + '"]',
                    "I{t}       1 shared_informer.go:318] Caches are synced for service config",
                ],
                "klog",
            )
        if stack == "fluentbit":
            return self.stamp(
                started,
                [
                    "[{t}] [ info] [fluent bit] version=3.0.7, commit=73e72bdf9c, pid=1",
                    "[{t}] [ info] [input:tail:tail.0] initializing",
                    "[{t}] [ info] [sp] stream processor started",
                ],
                "slash",
            )
        if stack == "batch":
            return self.stamp(started, [f"{{t}} INFO  {app} {version} started"])
        raise ValueError(stack)


def _double(memory: str) -> str:
    match = re.fullmatch(r"(\d+)(Mi|Gi)", memory)
    if not match:
        return memory
    return f"{int(match[1]) * 2}{match[2]}"


def quantity(value: str | None, kind: str) -> float:
    """CPU in cores or memory in bytes (the mock cluster's reading of a quantity)."""
    if not value:
        return 0.0
    match = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", value)
    if not match:
        return 0.0
    units = {"m": 1e-3} if kind == "cpu" else {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    return float(match[1]) * units.get(match[2], 1)


def _conditions(pod: dict[str, Any]) -> dict[str, str]:
    if pod.get("node") is None:
        return {"PodScheduled": "False"}
    if pod["status"] == "Completed":
        return {"PodScheduled": "True", "Initialized": "True", "ContainersReady": "False", "Ready": "False"}
    initialized = not pod["status"].startswith("Init:")
    ready = all(c.get("ready") for c in pod["containers"])
    return {
        "PodScheduled": "True",
        "Initialized": str(initialized),
        "ContainersReady": str(ready),
        "Ready": str(ready),
    }


def is_unhealthy(pod: dict[str, Any]) -> bool:
    """The mock cluster's notion: STATUS not Running or Completed, or Running with a container not ready."""
    if pod["status"] not in HEALTHY_STATUSES:
        return True
    return pod["status"] == "Running" and not all(c.get("ready") for c in pod["containers"])


# -- the incidents --------------------------------------------------------------------------------------

INCIDENTS: list[Callable[[], Incident]] = []


def incident(build: Callable[[], Incident]) -> Callable[[], Incident]:
    INCIDENTS.append(build)
    return build


OOM_FACT = "Reason:       OOMKilled"
"""How `describe_pod` shows a container the kernel killed for its memory limit (no event says so)."""
NOT_READY_503 = "Readiness probe failed: HTTP probe failed with statuscode: 503"


# -- crash loops ---------------------------------------------------------------------------------------------


@incident
def crashloop_missing_env() -> Incident:
    inc = Incident(
        "crashloop-missing-env",
        scope="payments",
        question="Which pods in the payments namespace are unhealthy, and why?",
        summary="ledger-api exits at start-up: its deployment lost the LEDGER_DB_URL environment variable.",
        tags=["crashloop", "config", "multi-namespace"],
        cluster="prod-eu1",
    )
    nodes = inc.eks(3)
    inc.deploy(
        "payments",
        "payments-gateway",
        "registry.acme.io/payments/payments-gateway:5.2.1",
        nodes,
        2,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="9d",
    )
    inc.deploy(
        "payments",
        "fraud-scorer",
        "registry.acme.io/payments/fraud-scorer:1.14.0",
        nodes[1:],
        1,
        stack="python",
        cpu="200m",
        memory="512Mi",
        age="9d",
    )
    inc.deploy(
        "payments",
        "payout-worker",
        "registry.acme.io/payments/payout-worker:2.3.7",
        nodes,
        1,
        stack="worker",
        cpu="100m",
        memory="256Mi",
        age="4d",
    )
    ledger = inc.deploy(
        "payments",
        "ledger-api",
        "registry.acme.io/payments/ledger-api:3.8.0",
        nodes[2:],
        1,
        cpu="200m",
        memory="256Mi",
        age="38m",
        revision="22",
        env={
            "LEDGER_DB_HOST": "ledger-db.payments.svc.cluster.local",
            "LEDGER_DB_NAME": "ledger",
            "LOG_LEVEL": "info",
        },
    )[0]
    inc.crashloop(
        ledger,
        inc.stamp(
            1.6,
            [
                "{t} INFO  ledger-api v3.8.0 starting (commit 4be91c2)",
                "{t} INFO  reading configuration from environment",
                "{t} FATAL: required environment variable LEDGER_DB_URL is not set",
            ],
        ),
        restarts=11,
        crashed=1.6,
    )
    inc.deploy(
        "checkout",
        "checkout-api",
        "registry.acme.io/checkout/checkout-api:2.13.1",
        nodes,
        2,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="6d",
    )
    inc.deploy(
        "kube-system",
        "coredns",
        "registry.k8s.io/coredns/coredns:v1.11.1",
        nodes[:2],
        2,
        stack="coredns",
        cpu="100m",
        memory="70Mi",
        limit_memory="170Mi",
        age="41d",
    )
    inc.bad(
        ledger,
        "crash_config",
        "FATAL: required environment variable LEDGER_DB_URL is not set",
        accept=["crash_application"],
    )
    return inc


@incident
def crashloop_bad_flag() -> Incident:
    inc = Incident(
        "crashloop-bad-flag",
        scope="search",
        question="Is anything wrong in the search namespace?",
        summary="The new query-router release is started with a flag its binary does not know and exits; "
        "the previous replica set still serves.",
        tags=["crashloop", "config", "rollout"],
        cluster="search-prod",
    )
    nodes = inc.gke(3, cluster="search-prod")
    inc.deploy(
        "search",
        "opensearch",
        "opensearchproject/opensearch:2.17.1",
        nodes,
        3,
        kind="statefulset",
        stack="opensearch",
        cpu="1",
        memory="4Gi",
        limit_memory="4Gi",
        age="23d",
    )
    image = "europe-docker.pkg.dev/search-prod/images/query-router"
    inc.deploy(
        "search",
        "query-router",
        f"{image}:1.21.4",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="12d",
        revision="14",
    )
    new = inc.deploy(
        "search",
        "query-router",
        f"{image}:1.22.0",
        nodes[2:],
        1,
        cpu="200m",
        memory="256Mi",
        age="17m",
        revision="15",
    )[0]
    inc.crashloop(
        new,
        [
            "flag provided but not defined: -max-inflight-requests",
            "Usage of /usr/local/bin/query-router:",
            "  -listen string",
            '    \taddress to listen on (default ":8080")',
            "  -max-inflight int",
            "    \tmaximum concurrent upstream requests (default 256)",
            "  -upstream string",
            "    \tcomma-separated list of OpenSearch endpoints",
        ],
        restarts=8,
        crashed=1.4,
        exit_code=2,
    )
    inc.deploy(
        "search",
        "search-ui",
        "europe-docker.pkg.dev/search-prod/images/search-ui:3.4.2",
        nodes,
        2,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="12d",
    )
    inc.bad(
        new,
        "crash_config",
        "flag provided but not defined: -max-inflight-requests",
        accept=["crash_application"],
    )
    return inc


@incident
def crashloop_nginx_bad_directive() -> Incident:
    inc = Incident(
        "crashloop-nginx-bad-directive",
        scope="web",
        question="Customers get 502s from the storefront. Which pods in the web namespace are unhealthy, and why?",
        summary="Both storefront-proxy replicas crash at start-up: the edited nginx config has a misspelt "
        "directive (proxy_bufer_size).",
        tags=["crashloop", "config"],
        cluster="aks-web-weu",
    )
    nodes = inc.aks(3)
    proxies = inc.deploy(
        "web",
        "storefront-proxy",
        "nginx:1.27.2-alpine",
        nodes,
        2,
        stack="nginx",
        cpu="100m",
        memory="64Mi",
        age="26m",
        revision="9",
        container="nginx",
    )
    for n, pod in enumerate(proxies):
        crashed = 1.2 + n * 0.7
        inc.crashloop(
            pod,
            [
                "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
                "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
                "/docker-entrypoint.sh: Configuration complete; ready for start up",
                *inc.stamp(
                    crashed,
                    [
                        '{t} [emerg] 1#1: unknown directive "proxy_bufer_size" in /etc/nginx/conf.d/default.conf:27'
                    ],
                    "slash",
                ),
                'nginx: [emerg] unknown directive "proxy_bufer_size" in /etc/nginx/conf.d/default.conf:27',
            ],
            restarts=9 - n,
            crashed=crashed,
        )
    inc.deploy(
        "web",
        "storefront-ui",
        "acmeweb.azurecr.io/storefront-ui:8.2.0",
        nodes,
        2,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="5d",
    )
    inc.deploy(
        "web",
        "web-bff",
        "acmeweb.azurecr.io/web-bff:4.9.3",
        nodes[1:],
        2,
        stack="zap",
        cpu="150m",
        memory="192Mi",
        age="5d",
    )
    inc.deploy(
        "kube-system",
        "coredns",
        "mcr.microsoft.com/oss/kubernetes/coredns:v1.11.3-1",
        nodes[:2],
        2,
        stack="coredns",
        cpu="100m",
        memory="70Mi",
        age="33d",
    )
    for pod in proxies:
        inc.bad(
            pod,
            "crash_config",
            'unknown directive "proxy_bufer_size" in /etc/nginx/conf.d/default.conf:27',
            accept=["crash_application"],
        )
    return inc


@incident
def crashloop_yaml_config_error() -> Incident:
    inc = Incident(
        "crashloop-yaml-config-error",
        scope="checkout",
        question="Which pods in checkout are failing, and why?",
        summary="pricing-engine cannot parse its rules file (a YAML syntax error on line 14) and exits at start-up.",
        tags=["crashloop", "config", "multi-namespace"],
        cluster="shop-prod-use1",
    )
    nodes = inc.eks(3, region="us-east-1", instance="m6i.xlarge")
    inc.deploy(
        "checkout",
        "checkout-api",
        "registry.acme.io/checkout/checkout-api:2.13.1",
        nodes,
        2,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="3d",
    )
    inc.deploy(
        "checkout",
        "cart-service",
        "registry.acme.io/checkout/cart-service:4.3.0",
        nodes,
        2,
        cpu="150m",
        memory="192Mi",
        age="3d",
    )
    pricing = inc.deploy(
        "checkout",
        "pricing-engine",
        "registry.acme.io/checkout/pricing-engine:2.7.3",
        nodes[1:],
        1,
        stack="python",
        cpu="250m",
        memory="384Mi",
        age="44m",
        revision="31",
        env={"PRICING_RULES_PATH": "/etc/pricing/rules.yaml", "WORKERS": "2"},
    )[0]
    inc.crashloop(
        pricing,
        inc.stamp(
            2.3,
            [
                "[{t}] [1] [INFO] Starting gunicorn 22.0.0",
                "[{t}] [1] [INFO] Listening at: http://0.0.0.0:8000 (1)",
                "[{t}] [7] [INFO] Booting worker with pid: 7",
                "[{t}] [7] [INFO] pricing-engine 2.7.3: loading rules from /etc/pricing/rules.yaml",
                "[{t}] [7] [ERROR] Exception in worker process",
                "Traceback (most recent call last):",
                '  File "/app/pricing/app.py", line 41, in create_app',
                "    rules = load_rules(settings.rules_path)",
                '  File "/app/pricing/rules.py", line 18, in load_rules',
                "    return yaml.safe_load(fh)",
                "yaml.scanner.ScannerError: mapping values are not allowed here",
                '  in "/etc/pricing/rules.yaml", line 14, column 18',
                "[{t}] [1] [ERROR] Worker (pid:7) exited with code 3",
                "[{t}] [1] [ERROR] Shutting down: Master",
                "[{t}] [1] [ERROR] Reason: Worker failed to boot.",
            ],
            "py",
        ),
        restarts=13,
        crashed=2.3,
        exit_code=3,
    )
    # another team's namespace has its own trouble
    trainer = inc.deploy(
        "ml",
        "churn-trainer",
        "registry.acme.io/ml/churn-trainer:0.8.2",
        nodes,
        1,
        stack="python",
        cpu="6",
        memory="8Gi",
        age="2h",
    )[0]
    inc.unschedulable(
        trainer,
        "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: "
        "3 No preemption victims found for incoming pod.",
    )
    inc.bad(
        pricing,
        "crash_config",
        "yaml.scanner.ScannerError: mapping values are not allowed here",
        accept=["crash_application"],
    )
    return inc


@incident
def crashloop_running_between_restarts() -> Incident:
    inc = Incident(
        "crashloop-running-between-restarts",
        scope="ml",
        question="Some ml workloads keep restarting. Which pods in the ml namespace are unhealthy, and why?",
        summary="feature-store-api is Running but not ready: it has just been restarted again; the previous run "
        "died on a validation error in its online store config.",
        tags=["crashloop", "config", "running-not-ready", "previous-logs"],
        cluster="ml-prod",
    )
    nodes = inc.gke(3, cluster="ml-prod", machine="n2-standard-8", cpu=8, memory=32)
    feast = inc.deploy(
        "ml",
        "feature-store-api",
        "europe-docker.pkg.dev/ml-prod/serving/feature-store-api:0.41.0",
        nodes,
        1,
        stack="python",
        cpu="500m",
        memory="1Gi",
        age="52m",
        revision="6",
        env={"FEAST_REPO_PATH": "/etc/feast", "FEAST_USAGE": "False"},
    )[0]
    boot = [
        "{t} INFO feature-store-api 0.41.0 starting",
        "{t} INFO loading registry gs://acme-ml-feast/registry.db",
        "{t} INFO registry loaded: 38 feature views, 112 features",
    ]
    inc.crashloop(
        feast,
        inc.stamp(
            1.3,
            [
                *boot,
                "{t} INFO connecting to online store",
                "{t} ERROR invalid online_store section in /etc/feast/feature_store.yaml",
                "pydantic_core._pydantic_core.ValidationError: 1 validation error for RedisOnlineStoreConfig",
                "connection_string",
                "  Input should be a valid string [type=string_type, input_value=6379, input_type=int]",
            ],
            step=6,
        ),
        restarts=12,
        crashed=1.3,
        ran=0.8,
        running=True,
        startup=inc.stamp(0.4, boot, step=6),
    )
    inc.deploy(
        "ml",
        "model-gateway",
        "europe-docker.pkg.dev/ml-prod/serving/model-gateway:2.2.0",
        nodes,
        2,
        stack="zap",
        cpu="250m",
        memory="256Mi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "embedding-server",
        "europe-docker.pkg.dev/ml-prod/serving/embedding-server:1.6.1",
        nodes[1:],
        2,
        stack="python",
        cpu="2",
        memory="6Gi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "online-store",
        "redis:7.2.4",
        nodes[:1],
        1,
        kind="statefulset",
        stack="redis",
        cpu="500m",
        memory="2Gi",
        age="30d",
    )
    inc.deploy(
        "kube-system",
        "kube-dns",
        "gke.gcr.io/k8s-dns-kube-dns:1.23.0-gke.9",
        nodes[1:],
        2,
        stack="coredns",
        cpu="100m",
        memory="70Mi",
        age="30d",
    )
    inc.bad(
        feast, "crash_config", "1 validation error for RedisOnlineStoreConfig", accept=["crash_application"]
    )
    return inc


@incident
def crashloop_missing_tls_file() -> Incident:
    inc = Incident(
        "crashloop-missing-tls-file",
        scope="identity",
        question="Users cannot log in. What is wrong in the identity namespace?",
        summary="auth-gateway is configured to read its certificate from /etc/tls/tls.crt, a path that is not "
        "mounted, and exits at start-up.",
        tags=["crashloop", "config"],
        cluster="onprem-fra",
        version="v1.30.5",
    )
    nodes = inc.metal(["cp-01", "worker-01", "worker-02", "worker-03"])
    workers = nodes[1:]
    inc.deploy(
        "identity",
        "keycloak",
        "quay.io/keycloak/keycloak:25.0.6",
        workers,
        2,
        kind="statefulset",
        stack="java",
        cpu="500m",
        memory="1536Mi",
        age="19d",
    )
    inc.deploy(
        "identity",
        "keycloak-db",
        "postgres:16.4",
        workers[2:],
        1,
        kind="statefulset",
        stack="postgres",
        cpu="250m",
        memory="512Mi",
        age="19d",
    )
    gateways = inc.deploy(
        "identity",
        "auth-gateway",
        "harbor.acme.lan/identity/auth-gateway:1.12.0",
        workers,
        2,
        cpu="100m",
        memory="128Mi",
        age="21m",
        revision="12",
        env={
            "TLS_CERT_FILE": "/etc/tls/tls.crt",
            "TLS_KEY_FILE": "/etc/tls/tls.key",
            "UPSTREAM": "http://keycloak.identity.svc:8080",
        },
    )
    for n, pod in enumerate(gateways):
        inc.crashloop(
            pod,
            inc.stamp(
                0.9 + n,
                [
                    "{t} INFO  auth-gateway 1.12.0 starting",
                    "{t} INFO  upstream http://keycloak.identity.svc:8080",
                    "{t} FATAL failed to load TLS key pair: open /etc/tls/tls.crt: no such file or directory",
                ],
            ),
            restarts=8,
            crashed=0.9 + n,
        )
    inc.deploy(
        "web",
        "storefront-ui",
        "harbor.acme.lan/web/storefront-ui:8.2.0",
        workers,
        2,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="6d",
    )
    inc.daemons(workers)
    for pod in gateways:
        inc.bad(
            pod,
            "crash_config",
            "failed to load TLS key pair: open /etc/tls/tls.crt: no such file or directory",
            accept=["crash_application"],
        )
    return inc


@incident
def crashloop_nil_pointer() -> Incident:
    inc = Incident(
        "crashloop-nil-pointer",
        scope="checkout",
        question="Why is checkout down?",
        summary="cart-service 4.4.0 panics with a nil pointer dereference on the first add-to-cart request; "
        "both replicas crash-loop. checkout-api only logs the failed calls.",
        tags=["crashloop", "application", "red-herring"],
        cluster="shop-prod",
    )
    nodes = inc.gke(3, cluster="shop-prod")
    carts = inc.deploy(
        "checkout",
        "cart-service",
        "europe-docker.pkg.dev/shop-prod/apps/cart-service:4.4.0",
        nodes,
        2,
        cpu="150m",
        memory="192Mi",
        age="49m",
        revision="40",
    )
    for n, pod in enumerate(carts):
        crashed = 0.8 + n * 1.1
        inc.crashloop(
            pod,
            [
                *inc.stamp(
                    crashed + 0.4,
                    [
                        "{t} INFO  starting cart-service 4.4.0 (commit d41c0f9)",
                        "{t} INFO  loaded 1289 promotions from cache",
                        "{t} INFO  listening on :8080",
                    ],
                    step=1,
                ),
                "panic: runtime error: invalid memory address or nil pointer dereference",
                "[signal SIGSEGV: segmentation violation code=0x1 addr=0x28 pc=0xb1c2f4]",
                "",
                "goroutine 87 [running]:",
                "github.com/acme/cart/internal/pricing.(*Calculator).Apply(0x0, 0xc000412a80)",
                "\t/src/internal/pricing/calculator.go:112 +0x34",
                "github.com/acme/cart/internal/api.(*Handler).AddItem(0xc0001a2000, {0x1f3c2a0, 0xc0004f61c0}, 0xc000512b00)",
                "\t/src/internal/api/cart.go:77 +0x2b1",
            ],
            restarts=14 - n * 2,
            crashed=crashed + 0.4,
            ran=0.4,
            exit_code=2,
        )
    api = inc.deploy(
        "checkout",
        "checkout-api",
        "europe-docker.pkg.dev/shop-prod/apps/checkout-api:2.13.1",
        nodes,
        2,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="5d",
    )
    for pod in api:
        pod["containers"][0]["logs"] += inc.stamp(
            1.5,
            [
                '{"level":"warn","ts":"{t}","caller":"cart/client.go:63","msg":"cart-service unavailable, retrying",'
                '"error":"dial tcp 34.118.231.40:8080: connect: connection refused","attempt":3}',
                '{"level":"error","ts":"{t}","caller":"httpserver/middleware.go:44","msg":"request failed",'
                '"method":"POST","path":"/v1/checkout","status":502}',
            ],
            "isoms",
        )
    inc.deploy(
        "checkout",
        "checkout-web",
        "europe-docker.pkg.dev/shop-prod/apps/checkout-web:6.0.2",
        nodes,
        2,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="5d",
    )
    for pod in carts:
        inc.bad(
            pod,
            "crash_application",
            "panic: runtime error: invalid memory address or nil pointer dereference",
        )
    inc.allow(*api)
    return inc


# -- out of memory -------------------------------------------------------------------------------------------


@incident
def oomkilled_jvm_heap_over_limit() -> Incident:
    inc = Incident(
        "oomkilled-jvm-heap-over-limit",
        scope="data",
        question="The ingest pipeline is stalled. Is anything wrong in the data namespace?",
        summary="ingest-worker's JVM is given a 1536m heap inside a 1Gi memory limit; the kernel kills both "
        "replicas (OOMKilled) once the heap grows.",
        tags=["oom", "crashloop", "running-not-ready"],
        cluster="data-prod-eu1",
    )
    nodes = inc.eks(3, memory=32, instance="r6i.xlarge", group="data")
    workers = inc.deploy(
        "data",
        "ingest-worker",
        "registry.acme.io/data/ingest-worker:5.0.3",
        nodes,
        2,
        stack="java",
        cpu="500m",
        memory="768Mi",
        limit_memory="1Gi",
        age="3h",
        revision="17",
        env={
            "JAVA_TOOL_OPTIONS": "-Xms1g -Xmx1536m -XX:+UseG1GC",
            "KAFKA_BOOTSTRAP": "kafka.data.svc:9092",
            "INGEST_TOPIC": "events",
        },
    )

    def run(mins: float) -> list[str]:
        return inc.stamp(
            mins,
            [
                "{t}  INFO 1 --- [ingest-worker] [           main] c.a.ingest.IngestWorkerApplication      : Started IngestWorkerApplication in 7.9 seconds (process running for 8.6)",
                "{t}  INFO 1 --- [ingest-worker] [ntainer#0-0-C-1] o.s.k.l.KafkaMessageListenerContainer    : ingest-worker: partitions assigned: [events-0, events-1, events-2, events-3]",
                "{t}  INFO 1 --- [ingest-worker] [ntainer#0-0-C-1] c.a.ingest.dedup.DedupCache              : dedup cache warm-up: 2431118 keys loaded",
            ],
            "isoms",
            step=20,
        )

    inc.oom(workers[0], run(3.0), restarts=23, crashed=3.0, ran=1.1)
    inc.oom(
        workers[1],
        run(5.5),
        restarts=22,
        crashed=5.5,
        ran=1.1,
        running=True,
        startup=inc.stamp(
            0.4,
            [
                "{t}  INFO 1 --- [ingest-worker] [           main] c.a.ingest.IngestWorkerApplication      : Starting IngestWorkerApplication v5.0.3 using Java 21.0.5 with PID 1"
            ],
            "isoms",
        ),
    )
    inc.deploy(
        "data",
        "kafka",
        "apache/kafka:3.8.0",
        nodes,
        3,
        kind="statefulset",
        stack="kafka",
        cpu="1",
        memory="4Gi",
        limit_memory="4Gi",
        age="37d",
    )
    inc.deploy(
        "data",
        "schema-registry",
        "confluentinc/cp-schema-registry:7.7.1",
        nodes[:1],
        1,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="37d",
    )
    inc.deploy(
        "data",
        "clickhouse",
        "clickhouse/clickhouse-server:24.8",
        nodes[1:],
        2,
        kind="statefulset",
        stack="go",
        port=8123,
        cpu="1",
        memory="6Gi",
        age="37d",
    )
    for pod in workers:
        inc.bad(pod, "oom_killed", OOM_FACT)
    return inc


@incident
def oomkilled_model_server() -> Incident:
    inc = Incident(
        "oomkilled-model-server",
        scope="ml",
        question="Which pods in the ml namespace are unhealthy, and why?",
        summary="The new embedding-server image loads a larger model that does not fit its 3Gi memory limit: "
        "OOMKilled during start-up.",
        tags=["oom", "multi-namespace"],
        cluster="ml-prod",
    )
    nodes = inc.gke(3, cluster="ml-prod", machine="n2-standard-8", cpu=8, memory=32)
    server = inc.deploy(
        "ml",
        "embedding-server",
        "europe-docker.pkg.dev/ml-prod/serving/embedding-server:1.7.0",
        nodes[1:],
        1,
        stack="python",
        cpu="2",
        memory="3Gi",
        limit_memory="3Gi",
        age="34m",
        revision="12",
        env={"MODEL_ID": "intfloat/multilingual-e5-large", "TORCH_NUM_THREADS": "2"},
    )[0]
    inc.oom(
        server,
        inc.stamp(
            1.6,
            [
                "[{t}] [1] [INFO] Starting gunicorn 22.0.0",
                "[{t}] [7] [INFO] Booting worker with pid: 7",
                "[{t}] [7] [INFO] loading model intfloat/multilingual-e5-large (560M parameters) on cpu",
                "[{t}] [7] [INFO] tokenizer loaded",
            ],
            "py",
            step=4,
        ),
        restarts=6,
        crashed=1.6,
        ran=0.4,
        status="OOMKilled",
    )
    inc.deploy(
        "ml",
        "model-gateway",
        "europe-docker.pkg.dev/ml-prod/serving/model-gateway:2.2.0",
        nodes,
        2,
        stack="zap",
        cpu="250m",
        memory="256Mi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "ranker",
        "europe-docker.pkg.dev/ml-prod/serving/ranker:3.0.1",
        nodes,
        2,
        stack="python",
        cpu="1",
        memory="2Gi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "mlflow",
        "ghcr.io/mlflow/mlflow:v2.16.2",
        nodes[:1],
        1,
        stack="python",
        port=5000,
        cpu="250m",
        memory="1Gi",
        age="40d",
    )
    other = inc.deploy(
        "data",
        "etl-scheduler",
        "europe-docker.pkg.dev/ml-prod/data/etl-scheduler:1.3.0",
        nodes,
        1,
        stack="python",
        age="15m",
    )[0]
    inc.image_pull(
        other,
        "rpc error: code = NotFound desc = failed to pull and unpack image "
        '"europe-docker.pkg.dev/ml-prod/data/etl-scheduler:1.3.0": failed to resolve reference '
        '"europe-docker.pkg.dev/ml-prod/data/etl-scheduler:1.3.0": '
        "europe-docker.pkg.dev/ml-prod/data/etl-scheduler:1.3.0: not found",
    )
    inc.bad(server, "oom_killed", OOM_FACT)
    return inc


@incident
def oomkilled_log_sidecar() -> Incident:
    inc = Incident(
        "oomkilled-log-sidecar",
        scope="web",
        question="Can you check the health of the web namespace?",
        summary="The fluent-bit sidecar of one storefront-ssr pod buffers the chunks Elasticsearch refuses and "
        "is OOMKilled again and again; the pod runs with 1/2 containers ready.",
        tags=["oom", "sidecar", "running-not-ready"],
        cluster="aks-web-weu",
    )
    nodes = inc.aks(3)
    ssr = inc.deploy(
        "web",
        "storefront-ssr",
        "acmeweb.azurecr.io/storefront-ssr:12.4.0",
        nodes,
        2,
        stack="node",
        cpu="300m",
        memory="512Mi",
        age="2d",
    )
    for pod in ssr:
        inc.sidecar(
            pod,
            "log-shipper",
            "cr.fluentbit.io/fluent/fluent-bit:3.0.7",
            inc.stamp(
                2800,
                [
                    "[{t}] [ info] [fluent bit] version=3.0.7, commit=73e72bdf9c, pid=1",
                    "[{t}] [ info] [output:es:es.0] worker #0 started",
                ],
                "slash",
            ),
            memory="32Mi",
            limit_memory="64Mi",
        )
    sick = ssr[1]
    inc.oom(
        sick,
        inc.stamp(
            6.0,
            [
                "[{t}] [ info] [fluent bit] version=3.0.7, commit=73e72bdf9c, pid=1",
                "[{t}] [ warn] [engine] failed to flush chunk '1-1764475918.412.flb', retry in 9 seconds: task_id=3, "
                "input=tail.0 > output=es.0 (out_id=0)",
                "[{t}] [error] [output:es:es.0] HTTP status=429 URI=/_bulk, response: es_rejected_execution_exception",
                "[{t}] [ warn] [input] tail.0 paused (mem buf overlimit)",
            ],
            "slash",
            step=60,
        ),
        restarts=17,
        crashed=6.0,
        ran=4.9,
        running=True,
        container=1,
        startup=inc.stamp(
            0.4, ["[{t}] [ info] [fluent bit] version=3.0.7, commit=73e72bdf9c, pid=1"], "slash"
        ),
    )
    inc.deploy(
        "web",
        "web-bff",
        "acmeweb.azurecr.io/web-bff:4.9.3",
        nodes,
        2,
        stack="zap",
        cpu="150m",
        memory="192Mi",
        age="5d",
    )
    inc.deploy(
        "web",
        "assets-cdn-origin",
        "nginx:1.27.2-alpine",
        nodes[2:],
        1,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="12d",
    )
    inc.bad(sick, "oom_killed", OOM_FACT)
    return inc


# -- image pulls ---------------------------------------------------------------------------------------------


def not_found(image: str) -> str:
    """containerd's error for a tag (or repository) the registry does not have."""
    return (
        f'rpc error: code = NotFound desc = failed to pull and unpack image "{image}": failed to resolve '
        f'reference "{image}": {image}: not found'
    )


@incident
def image_tag_not_found() -> Incident:
    inc = Incident(
        "image-tag-not-found",
        scope="checkout",
        question="The checkout-api rollout has been stuck for twenty minutes. What is wrong in the checkout namespace?",
        summary="The new checkout-api pod asks for tag 2.14.0, which was never pushed (the CI job failed); the old "
        "replicas keep serving.",
        tags=["image", "rollout"],
        cluster="shop-prod",
    )
    nodes = inc.gke(3, cluster="shop-prod")
    image = "europe-docker.pkg.dev/shop-prod/apps/checkout-api"
    inc.deploy(
        "checkout",
        "checkout-api",
        f"{image}:2.13.1",
        nodes,
        3,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="5d",
        revision="27",
    )
    new = inc.deploy(
        "checkout",
        "checkout-api",
        f"{image}:2.14.0",
        nodes[1:],
        1,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="22m",
        revision="28",
    )[0]
    inc.image_pull(new, not_found(f"{image}:2.14.0"))
    inc.deploy(
        "checkout",
        "cart-service",
        "europe-docker.pkg.dev/shop-prod/apps/cart-service:4.3.0",
        nodes,
        2,
        cpu="150m",
        memory="192Mi",
        age="5d",
    )
    inc.deploy(
        "checkout",
        "checkout-web",
        "europe-docker.pkg.dev/shop-prod/apps/checkout-web:6.0.2",
        nodes,
        2,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="5d",
    )
    inc.bad(new, "image_not_found", f"{image}:2.14.0: not found")
    return inc


@incident
def image_unauthorized_private_registry() -> Incident:
    inc = Incident(
        "image-unauthorized-private-registry",
        scope="payments",
        question="Which pods in the payments namespace are unhealthy, and why?",
        summary="settlement-worker pulls from the private Harbor project without an imagePullSecret: the "
        "registry answers 401 Unauthorized.",
        tags=["image", "auth"],
        cluster="prod-eu1",
    )
    nodes = inc.eks(3)
    image = "harbor.acme.io/payments/settlement-worker:1.9.2"
    worker = inc.deploy(
        "payments",
        "settlement-worker",
        image,
        nodes[1:],
        1,
        stack="worker",
        cpu="200m",
        memory="384Mi",
        age="41m",
    )[0]
    inc.image_pull(
        worker,
        (
            f'failed to pull and unpack image "{image}": failed to resolve reference "{image}": unexpected status '
            "from HEAD request to https://harbor.acme.io/v2/payments/settlement-worker/manifests/1.9.2: 401 Unauthorized"
        ),
        tries=9,
    )
    inc.deploy(
        "payments",
        "payments-gateway",
        "harbor.acme.io/payments/payments-gateway:5.2.1",
        nodes,
        2,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="9d",
    )
    inc.deploy(
        "payments",
        "ledger-api",
        "harbor.acme.io/payments/ledger-api:3.7.4",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.deploy(
        "payments",
        "redis",
        "redis:7.2.4",
        nodes[:1],
        1,
        kind="statefulset",
        stack="redis",
        cpu="100m",
        memory="256Mi",
        age="30d",
    )
    inc.bad(worker, "image_unauthorized", "payments/settlement-worker/manifests/1.9.2: 401 Unauthorized")
    return inc


@incident
def image_pull_access_denied() -> Incident:
    inc = Incident(
        "image-pull-access-denied",
        scope="data",
        question="Is anything wrong in the data namespace?",
        summary="lineage-api's image is in a private Docker Hub repository and the pod has no pull secret: "
        "pull access denied.",
        tags=["image", "auth"],
        cluster="data-prod-eu1",
    )
    nodes = inc.eks(2, memory=32, instance="r6i.xlarge", group="data")
    lineage = inc.deploy(
        "data",
        "lineage-api",
        "acmecorp/lineage-api:2026.11.2",
        nodes,
        1,
        stack="python",
        cpu="200m",
        memory="512Mi",
        age="16m",
    )[0]
    ref = "docker.io/acmecorp/lineage-api:2026.11.2"
    inc.image_pull(
        lineage,
        (
            f'rpc error: code = Unknown desc = failed to pull and unpack image "{ref}": failed to resolve reference '
            f'"{ref}": pull access denied, repository does not exist or may require authorization: server message: '
            "insufficient_scope: authorization failed"
        ),
        tries=5,
    )
    inc.deploy(
        "data",
        "airflow-webserver",
        "apache/airflow:2.10.2",
        nodes,
        1,
        stack="python",
        port=8080,
        cpu="500m",
        memory="2Gi",
        age="12d",
    )
    inc.deploy(
        "data",
        "airflow-scheduler",
        "apache/airflow:2.10.2",
        nodes[1:],
        1,
        stack="python",
        port=8974,
        cpu="500m",
        memory="2Gi",
        age="12d",
        readiness=False,
    )
    inc.deploy(
        "data",
        "airflow-db",
        "postgres:16.4",
        nodes[:1],
        1,
        kind="statefulset",
        stack="postgres",
        cpu="250m",
        memory="1Gi",
        age="40d",
    )
    inc.deploy(
        "data",
        "minio",
        "quay.io/minio/minio:RELEASE.2024-10-13T13-34-11Z",
        nodes,
        2,
        kind="statefulset",
        stack="go",
        port=9000,
        cpu="250m",
        memory="1Gi",
        age="40d",
    )
    inc.bad(
        lineage,
        "image_unauthorized",
        "pull access denied, repository does not exist or may require authorization",
        accept=["image_not_found"],
    )
    return inc


@incident
def image_registry_timeout() -> Incident:
    inc = Incident(
        "image-registry-timeout",
        scope="search",
        question="The new indexer never came up. Which pods in the search namespace are unhealthy, and why?",
        summary="The nodes cannot reach the internal Harbor registry (dial tcp 10.20.0.15:443: i/o timeout), so "
        "neither indexer pod can pull its image.",
        tags=["image", "network"],
        cluster="onprem-ams",
        version="v1.29.9",
    )
    nodes = inc.metal(["cp-01", "node-01", "node-02", "node-03"])
    workers = nodes[1:]
    image = "harbor.internal.acme.io/search/indexer:4.2.0"
    indexers = inc.deploy(
        "search", "indexer", image, workers[1:], 2, stack="java", cpu="500m", memory="1Gi", age="28m"
    )
    for pod in indexers:
        inc.image_pull(
            pod,
            (
                f'rpc error: code = DeadlineExceeded desc = failed to pull and unpack image "{image}": failed to resolve '
                f'reference "{image}": failed to do request: Head '
                '"https://harbor.internal.acme.io/v2/search/indexer/manifests/4.2.0": dial tcp 10.20.0.15:443: i/o timeout'
            ),
            tries=6,
        )
    inc.deploy(
        "search",
        "solr",
        "solr:9.7.0",
        workers,
        3,
        kind="statefulset",
        stack="java",
        port=8983,
        cpu="1",
        memory="4Gi",
        age="60d",
    )
    inc.deploy(
        "search",
        "search-api",
        "harbor.internal.acme.io/search/search-api:2.8.1",
        workers,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.daemons(workers)
    for pod in indexers:
        inc.bad(pod, "image_pull_failed", "dial tcp 10.20.0.15:443: i/o timeout")
    return inc


@incident
def image_pull_rate_limited() -> Incident:
    inc = Incident(
        "image-pull-rate-limited",
        scope="web",
        question="Is anything wrong in the web namespace?",
        summary="fragment-cache pulls redis anonymously from Docker Hub and hits the pull rate limit (429).",
        tags=["image", "rate-limit"],
        cluster="k3s-edge",
        version="v1.30.6+k3s1",
    )
    nodes = inc.metal(["edge-01", "edge-02", "edge-03"], cpu=4, memory=16)
    cache = inc.deploy(
        "web",
        "fragment-cache",
        "redis:7.2.4-alpine",
        nodes[2:],
        1,
        stack="redis",
        cpu="100m",
        memory="256Mi",
        age="11m",
    )[0]
    inc.image_pull(
        cache,
        (
            'failed to pull and unpack image "docker.io/library/redis:7.2.4-alpine": failed to copy: httpReadSeeker: '
            "failed open: unexpected status code https://registry-1.docker.io/v2/library/redis/manifests/"
            "sha256:c35af3bbcef51a62c8bae5a9a563c6f1b60d7ebaea4cb5a3ccbcc157580ae098: 429 Too Many Requests - Server "
            "message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by "
            "authenticating and upgrading: https://www.docker.com/increase-rate-limit"
        ),
        status="ErrImagePull",
        tries=4,
    )
    inc.deploy(
        "web",
        "storefront-ui",
        "ghcr.io/acme/storefront-ui:8.2.0",
        nodes,
        2,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="4d",
    )
    inc.deploy(
        "web",
        "web-bff",
        "ghcr.io/acme/web-bff:4.9.3",
        nodes,
        2,
        stack="zap",
        cpu="150m",
        memory="192Mi",
        age="4d",
    )
    inc.deploy(
        "kube-system",
        "traefik",
        "rancher/mirrored-library-traefik:2.11.10",
        nodes[:1],
        1,
        stack="go",
        cpu="100m",
        memory="128Mi",
        age="52d",
    )
    inc.bad(cache, "image_pull_failed", "toomanyrequests: You have reached your pull rate limit")
    return inc


@incident
def image_registry_dns_typo() -> Incident:
    inc = Incident(
        "image-registry-dns-typo",
        scope="ml",
        question="Why has the batch scorer not started in ml?",
        summary="batch-scorer's image names the registry registy.acme.io (a typo): the name does not resolve.",
        tags=["image", "dns"],
        cluster="ml-prod-use1",
    )
    nodes = inc.eks(3, region="us-east-1", cpu=8, memory=32, instance="m6i.2xlarge", group="ml")
    image = "registy.acme.io/ml/batch-scorer:0.9.1"
    scorer = inc.deploy(
        "ml", "batch-scorer", image, nodes[:1], 1, stack="python", cpu="1", memory="2Gi", age="35m"
    )[0]
    inc.image_pull(
        scorer,
        (
            f'rpc error: code = Unknown desc = failed to pull and unpack image "{image}": failed to resolve reference '
            f'"{image}": failed to do request: Head "https://registy.acme.io/v2/ml/batch-scorer/manifests/0.9.1": '
            "dial tcp: lookup registy.acme.io on 10.0.0.2:53: no such host"
        ),
        tries=8,
    )
    inc.deploy(
        "ml",
        "model-gateway",
        "registry.acme.io/ml/model-gateway:2.2.0",
        nodes,
        2,
        stack="zap",
        cpu="250m",
        memory="256Mi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "ranker",
        "registry.acme.io/ml/ranker:3.0.1",
        nodes,
        2,
        stack="python",
        cpu="1",
        memory="2Gi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "jupyterhub",
        "quay.io/jupyterhub/k8s-hub:3.3.8",
        nodes[2:],
        1,
        stack="python",
        port=8081,
        cpu="200m",
        memory="512Mi",
        age="21d",
    )
    inc.bad(
        scorer,
        "image_pull_failed",
        "dial tcp: lookup registy.acme.io on 10.0.0.2:53: no such host",
        accept=["image_not_found"],
    )
    return inc


# -- scheduling ------------------------------------------------------------------------------------------------


def scheduler(total: int, parts: str, preemption: str) -> str:
    """The kube-scheduler's FailedScheduling message."""
    return f"0/{total} nodes are available: {parts}. preemption: 0/{total} nodes are available: {preemption}."


NO_VICTIMS = "{n} No preemption victims found for incoming pod"
NOT_HELPFUL = "{n} Preemption is not helpful for scheduling"


@incident
def pending_insufficient_cpu() -> Incident:
    inc = Incident(
        "pending-insufficient-cpu",
        scope="data",
        question="Two new pods in the data namespace never started. Why?",
        summary="risk-aggregator asks for 2500m CPU per replica; no node has that much allocatable.",
        tags=["pending", "scheduling", "resources"],
        cluster="data-staging",
    )
    nodes = inc.eks(3, cpu=2, memory=8, instance="m6i.large", group="data")
    aggregators = inc.deploy(
        "data",
        "risk-aggregator",
        "registry.acme.io/data/risk-aggregator:1.0.0",
        nodes,
        2,
        stack="java",
        cpu="2500m",
        memory="2Gi",
        age="47m",
    )
    message = scheduler(3, "3 Insufficient cpu", NO_VICTIMS.format(n=3))
    for pod in aggregators:
        inc.unschedulable(pod, message)
    inc.deploy(
        "data",
        "airflow-webserver",
        "apache/airflow:2.10.2",
        nodes[:1],
        1,
        stack="python",
        port=8080,
        cpu="500m",
        memory="1536Mi",
        age="12d",
    )
    inc.deploy(
        "data",
        "airflow-scheduler",
        "apache/airflow:2.10.2",
        nodes[1:],
        1,
        stack="python",
        port=8974,
        cpu="500m",
        memory="1536Mi",
        age="12d",
        readiness=False,
    )
    inc.deploy(
        "data",
        "airflow-db",
        "postgres:16.4",
        nodes[2:],
        1,
        kind="statefulset",
        stack="postgres",
        cpu="500m",
        memory="1Gi",
        age="40d",
    )
    inc.deploy(
        "data",
        "dbt-docs",
        "registry.acme.io/data/dbt-docs:2026.11.1",
        nodes[:2],
        2,
        stack="nginx",
        cpu="100m",
        memory="64Mi",
        age="6d",
    )
    inc.daemons(nodes)
    for pod in aggregators:
        inc.bad(pod, "insufficient_resources", "0/3 nodes are available: 3 Insufficient cpu.")
    return inc


@incident
def pending_insufficient_memory() -> Incident:
    inc = Incident(
        "pending-insufficient-memory",
        scope="ml",
        question="Is anything wrong in the ml namespace?",
        summary="llm-reranker requests 36Gi of memory; the workers have about 30Gi allocatable and the control "
        "plane is tainted.",
        tags=["pending", "scheduling", "resources"],
        cluster="onprem-gpu",
        version="v1.29.9",
    )
    nodes = inc.metal(["cp-01", "worker-01", "worker-02", "worker-03"], cpu=16, memory=32)
    workers = nodes[1:]
    reranker = inc.deploy(
        "ml",
        "llm-reranker",
        "harbor.acme.lan/ml/llm-reranker:0.3.0",
        workers,
        1,
        stack="python",
        cpu="4",
        memory="36Gi",
        age="2h",
    )[0]
    inc.unschedulable(
        reranker,
        scheduler(
            4,
            "1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 Insufficient memory",
            "1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod",
        ),
        count=31,
    )
    inc.deploy(
        "ml",
        "ranker",
        "harbor.acme.lan/ml/ranker:3.0.1",
        workers,
        3,
        stack="python",
        cpu="2",
        memory="8Gi",
        age="18d",
    )
    inc.deploy(
        "ml",
        "model-gateway",
        "harbor.acme.lan/ml/model-gateway:2.2.0",
        workers,
        2,
        stack="zap",
        cpu="250m",
        memory="256Mi",
        age="18d",
    )
    inc.deploy(
        "ml",
        "mlflow",
        "ghcr.io/mlflow/mlflow:v2.16.2",
        workers[2:],
        1,
        stack="python",
        port=5000,
        cpu="250m",
        memory="1Gi",
        age="40d",
    )
    inc.daemons(nodes)
    inc.bad(reranker, "insufficient_resources", "3 Insufficient memory")
    return inc


@incident
def pending_node_selector() -> Incident:
    inc = Incident(
        "pending-node-selector",
        scope="ml",
        question="The ml team's new deployment never started. What is wrong in the ml namespace?",
        summary="vision-inference selects nodes of a GPU node pool that does not exist in this cluster.",
        tags=["pending", "scheduling", "node-selector"],
        cluster="ml-prod",
    )
    nodes = inc.gke(3, cluster="ml-prod", machine="n2-standard-8", cpu=8, memory=32)
    vision = inc.deploy(
        "ml",
        "vision-inference",
        "europe-docker.pkg.dev/ml-prod/serving/vision-inference:1.0.2",
        nodes,
        2,
        stack="python",
        cpu="2",
        memory="8Gi",
        age="1h",
    )
    for pod in vision:
        inc.unschedulable(
            pod, scheduler(3, "3 node(s) didn't match Pod's node affinity/selector", NOT_HELPFUL.format(n=3))
        )
    inc.deploy(
        "ml",
        "model-gateway",
        "europe-docker.pkg.dev/ml-prod/serving/model-gateway:2.2.0",
        nodes,
        2,
        stack="zap",
        cpu="250m",
        memory="256Mi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "embedding-server",
        "europe-docker.pkg.dev/ml-prod/serving/embedding-server:1.6.1",
        nodes[1:],
        2,
        stack="python",
        cpu="2",
        memory="6Gi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "online-store",
        "redis:7.2.4",
        nodes[:1],
        1,
        kind="statefulset",
        stack="redis",
        cpu="500m",
        memory="2Gi",
        age="30d",
    )
    for pod in vision:
        inc.bad(pod, "node_selector_mismatch", "3 node(s) didn't match Pod's node affinity/selector")
    return inc


@incident
def pending_anti_affinity() -> Incident:
    inc = Incident(
        "pending-anti-affinity",
        scope="search",
        question="We scaled OpenSearch from three to four replicas an hour ago. Is everything in the search namespace healthy?",
        summary="opensearch-3 cannot be placed: the StatefulSet requires one pod per node (anti-affinity) and the "
        "cluster has three nodes.",
        tags=["pending", "scheduling", "affinity"],
        cluster="search-prod-use1",
    )
    nodes = inc.eks(3, region="us-east-1", cpu=8, memory=32, instance="m6i.2xlarge", group="search")
    opensearch = inc.deploy(
        "search",
        "opensearch",
        "opensearchproject/opensearch:2.17.1",
        nodes,
        4,
        kind="statefulset",
        stack="opensearch",
        cpu="2",
        memory="8Gi",
        limit_memory="8Gi",
        age="23d",
    )
    fourth = opensearch[3]
    fourth["age"] = "63m"
    inc.unschedulable(
        fourth, scheduler(3, "3 node(s) didn't match pod anti-affinity rules", NO_VICTIMS.format(n=3))
    )
    inc.deploy(
        "search",
        "search-api",
        "registry.acme.io/search/search-api:2.8.1",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.deploy(
        "search",
        "opensearch-dashboards",
        "opensearchproject/opensearch-dashboards:2.17.1",
        nodes[1:],
        1,
        stack="node",
        port=5601,
        cpu="200m",
        memory="512Mi",
        age="23d",
    )
    inc.bad(
        fourth,
        "node_selector_mismatch",
        "3 node(s) didn't match pod anti-affinity rules",
        accept=["unschedulable"],
    )
    return inc


@incident
def pending_untolerated_taint() -> Incident:
    inc = Incident(
        "pending-untolerated-taint",
        scope="data",
        question="Which pods in the data namespace are unhealthy, and why?",
        summary="The data cluster's nodes are all tainted dedicated=data:NoSchedule and the new report-builder "
        "has no toleration.",
        tags=["pending", "scheduling", "taint"],
        cluster="data-prod",
    )
    nodes = inc.gke(
        3,
        cluster="data-prod",
        pool="data-pool",
        machine="n2-highmem-4",
        cpu=4,
        memory=32,
        labels={"dedicated": "data"},
    )
    builders = inc.deploy(
        "data",
        "report-builder",
        "europe-docker.pkg.dev/data-prod/apps/report-builder:1.2.0",
        nodes,
        1,
        stack="python",
        cpu="500m",
        memory="1Gi",
        age="26m",
    )
    inc.unschedulable(
        builders[0],
        scheduler(3, "3 node(s) had untolerated taint {dedicated: data}", NOT_HELPFUL.format(n=3)),
    )
    inc.deploy(
        "data",
        "kafka",
        "apache/kafka:3.8.0",
        nodes,
        3,
        kind="statefulset",
        stack="kafka",
        cpu="1",
        memory="6Gi",
        limit_memory="6Gi",
        age="37d",
    )
    inc.deploy(
        "data",
        "trino-coordinator",
        "trinodb/trino:460",
        nodes[:1],
        1,
        stack="java",
        cpu="1",
        memory="4Gi",
        age="12d",
    )
    inc.deploy(
        "data",
        "trino-worker",
        "trinodb/trino:460",
        nodes[1:],
        2,
        stack="java",
        cpu="1",
        memory="8Gi",
        age="12d",
    )
    inc.bad(builders[0], "untolerated_taint", "3 node(s) had untolerated taint {dedicated: data}")
    return inc


@incident
def pending_unbound_pvc() -> Incident:
    inc = Incident(
        "pending-unbound-pvc",
        scope="data",
        question="Is anything wrong in the data namespace?",
        summary="timescaledb-0 waits for its PersistentVolumeClaim, which names a storage class (gp3-encrypted) "
        "that does not exist.",
        tags=["pending", "storage"],
        cluster="data-prod-eu1",
    )
    nodes = inc.eks(3, memory=32, instance="r6i.xlarge", group="data")
    tsdb = inc.deploy(
        "data",
        "timescaledb",
        "timescale/timescaledb-ha:pg16.4-ts2.17.0",
        nodes,
        1,
        kind="statefulset",
        stack="postgres",
        cpu="1",
        memory="4Gi",
        age="18m",
    )[0]
    inc.unschedulable(
        tsdb, scheduler(3, "pod has unbound immediate PersistentVolumeClaims", NOT_HELPFUL.format(n=3))
    )
    inc.event(
        "data",
        "persistentvolumeclaim/storage-timescaledb-0",
        "ProvisioningFailed",
        'storageclass.storage.k8s.io "gp3-encrypted" not found',
        warning=True,
        count=74,
        first=18,
        last=0.3,
        source="persistentvolume-controller",
    )
    inc.deploy(
        "data",
        "metrics-writer",
        "registry.acme.io/data/metrics-writer:0.9.0",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="6d",
    )
    inc.deploy(
        "data",
        "kafka",
        "apache/kafka:3.8.0",
        nodes,
        3,
        kind="statefulset",
        stack="kafka",
        cpu="1",
        memory="4Gi",
        limit_memory="4Gi",
        age="37d",
    )
    inc.deploy(
        "data",
        "grafana",
        "grafana/grafana:11.2.2",
        nodes[1:],
        1,
        stack="go",
        port=3000,
        cpu="100m",
        memory="256Mi",
        age="37d",
    )
    inc.bad(tsdb, "unbound_volume", "pod has unbound immediate PersistentVolumeClaims")
    return inc


# -- quota ---------------------------------------------------------------------------------------------------


@incident
def quota_exceeded_memory() -> Incident:
    inc = Incident(
        "quota-exceeded-memory",
        scope="web",
        question="We scaled image-resizer up but the new replica never appeared. What is wrong in the web namespace?",
        summary="The web namespace's ResourceQuota (requests.memory=8Gi) is used up: the new image-resizer pod is "
        "refused at admission.",
        tags=["quota", "pending"],
        cluster="prod-eu1",
    )
    nodes = inc.eks(3)
    inc.deploy(
        "web",
        "storefront-ui",
        "registry.acme.io/web/storefront-ui:8.2.0",
        nodes,
        3,
        stack="node",
        cpu="200m",
        memory="1280Mi",
        age="5d",
    )
    inc.deploy(
        "web",
        "web-bff",
        "registry.acme.io/web/web-bff:4.9.3",
        nodes,
        2,
        stack="zap",
        cpu="150m",
        memory="1Gi",
        age="5d",
    )
    resizers = inc.deploy(
        "web",
        "image-resizer",
        "registry.acme.io/web/image-resizer:2.0.4",
        nodes,
        3,
        stack="go",
        cpu="250m",
        memory="1Gi",
        age="5d",
    )
    resizers[2]["age"] = "14m"
    inc.quota_blocked(resizers[2], "web-compute", "requests.memory", "1Gi", "8Gi")
    inc.deploy(
        "kube-system",
        "coredns",
        "registry.k8s.io/coredns/coredns:v1.11.1",
        nodes[:2],
        2,
        stack="coredns",
        cpu="100m",
        memory="70Mi",
        limit_memory="170Mi",
        age="41d",
    )
    inc.bad(resizers[2], "quota_exceeded", "exceeded quota: web-compute, requested: requests.memory=1Gi")
    return inc


@incident
def quota_exceeded_pod_count() -> Incident:
    inc = Incident(
        "quota-exceeded-pod-count",
        scope="checkout",
        question="Is anything wrong in the checkout namespace?",
        summary="The checkout namespace may hold 8 pods (ResourceQuota pod-count) and holds 8: the new "
        "order-router pod is refused.",
        tags=["quota", "pending", "multi-namespace"],
        cluster="shop-prod-use1",
    )
    nodes = inc.eks(3, region="us-east-1")
    inc.deploy(
        "checkout",
        "checkout-api",
        "registry.acme.io/checkout/checkout-api:2.13.1",
        nodes,
        3,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="3d",
    )
    inc.deploy(
        "checkout",
        "cart-service",
        "registry.acme.io/checkout/cart-service:4.3.0",
        nodes,
        2,
        cpu="150m",
        memory="192Mi",
        age="3d",
    )
    inc.deploy(
        "checkout",
        "checkout-web",
        "registry.acme.io/checkout/checkout-web:6.0.2",
        nodes,
        2,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="3d",
    )
    inc.deploy(
        "checkout",
        "order-router",
        "registry.acme.io/checkout/order-router:1.4.0",
        nodes,
        1,
        cpu="100m",
        memory="128Mi",
        age="3d",
        revision="7",
    )
    router = inc.deploy(
        "checkout",
        "order-router",
        "registry.acme.io/checkout/order-router:1.5.0",
        nodes,
        1,
        cpu="100m",
        memory="128Mi",
        age="9m",
        revision="8",
    )[0]
    inc.quota_blocked(router, "pod-count", "pods", "1", "8")
    broken = inc.deploy(
        "payments",
        "ledger-api",
        "registry.acme.io/payments/ledger-api:3.8.0",
        nodes[1:],
        1,
        cpu="200m",
        memory="256Mi",
        age="2h",
    )[0]
    inc.crashloop(
        broken,
        inc.stamp(
            2.0,
            [
                "{t} INFO  ledger-api v3.8.0 starting (commit 4be91c2)",
                "{t} FATAL: required environment variable LEDGER_DB_URL is not set",
            ],
        ),
        restarts=25,
        crashed=2.0,
    )
    inc.bad(
        router,
        "quota_exceeded",
        "exceeded quota: pod-count, requested: pods=1, used: pods=8, limited: pods=8",
    )
    return inc


# -- missing configuration references --------------------------------------------------------------------------


@incident
def config_missing_configmap() -> Incident:
    inc = Incident(
        "config-missing-configmap",
        scope="checkout",
        question="Which pods in the checkout namespace are unhealthy, and why?",
        summary="promo-service reads its environment from the ConfigMap promo-service-config, which was not "
        "created in this namespace.",
        tags=["config", "create-container-config-error"],
        cluster="shop-prod",
    )
    nodes = inc.gke(3, cluster="shop-prod")
    promo = inc.deploy(
        "checkout",
        "promo-service",
        "europe-docker.pkg.dev/shop-prod/apps/promo-service:1.0.0",
        nodes,
        2,
        stack="node",
        cpu="100m",
        memory="192Mi",
        age="31m",
    )
    for pod in promo:
        inc.config_error(pod, 'configmap "promo-service-config" not found')
    inc.deploy(
        "checkout",
        "checkout-api",
        "europe-docker.pkg.dev/shop-prod/apps/checkout-api:2.13.1",
        nodes,
        2,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="5d",
    )
    inc.deploy(
        "checkout",
        "cart-service",
        "europe-docker.pkg.dev/shop-prod/apps/cart-service:4.3.0",
        nodes,
        2,
        cpu="150m",
        memory="192Mi",
        age="5d",
    )
    inc.deploy(
        "checkout",
        "checkout-web",
        "europe-docker.pkg.dev/shop-prod/apps/checkout-web:6.0.2",
        nodes[1:],
        1,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="5d",
    )
    for pod in promo:
        inc.bad(pod, "missing_config_reference", 'configmap "promo-service-config" not found')
    return inc


@incident
def config_missing_secret_key() -> Incident:
    inc = Incident(
        "config-missing-secret-key",
        scope="payments",
        question="Did last night's deploy break anything in payments?",
        summary="card-vault's STRIPE_API_KEY comes from the Secret stripe-credentials, which has no such key "
        "(it was renamed).",
        tags=["config", "secret", "create-container-config-error"],
        cluster="prod-eu1",
    )
    nodes = inc.eks(3)
    vault = inc.deploy(
        "payments",
        "card-vault",
        "registry.acme.io/payments/card-vault:3.1.0",
        nodes[1:],
        1,
        stack="java",
        cpu="250m",
        memory="512Mi",
        age="7h",
        env={
            "STRIPE_API_KEY": {"secret": "stripe-credentials", "key": "STRIPE_API_KEY"},
            "VAULT_ADDR": "https://vault.acme.internal:8200",
        },
    )[0]
    inc.config_error(
        vault, "couldn't find key STRIPE_API_KEY in Secret payments/stripe-credentials", tries=401
    )
    inc.deploy(
        "payments",
        "payments-gateway",
        "registry.acme.io/payments/payments-gateway:5.2.1",
        nodes,
        2,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="9d",
    )
    inc.deploy(
        "payments",
        "ledger-api",
        "registry.acme.io/payments/ledger-api:3.7.4",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.deploy(
        "payments",
        "payout-worker",
        "registry.acme.io/payments/payout-worker:2.3.7",
        nodes,
        1,
        stack="worker",
        cpu="100m",
        memory="256Mi",
        age="4d",
    )
    inc.bad(
        vault,
        "missing_config_reference",
        "couldn't find key STRIPE_API_KEY in Secret payments/stripe-credentials",
    )
    return inc


@incident
def config_missing_secret() -> Incident:
    inc = Incident(
        "config-missing-secret",
        scope="search",
        question="Search results are empty since this morning. What is broken in the search namespace?",
        summary="search-api's new replica set needs the Secret opensearch-admin-credentials, which does not exist "
        "in the search namespace.",
        tags=["config", "secret", "create-container-config-error", "multi-namespace"],
        cluster="search-prod",
    )
    nodes = inc.gke(3, cluster="search-prod")
    api = inc.deploy(
        "search",
        "search-api",
        "europe-docker.pkg.dev/search-prod/images/search-api:2.9.0",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="3h",
        env={
            "OPENSEARCH_URL": "https://opensearch.search.svc:9200",
            "OPENSEARCH_PASSWORD": {"secret": "opensearch-admin-credentials", "key": "password"},
        },
    )
    for pod in api:
        inc.config_error(pod, 'secret "opensearch-admin-credentials" not found', tries=820)
    inc.deploy(
        "search",
        "opensearch",
        "opensearchproject/opensearch:2.17.1",
        nodes,
        3,
        kind="statefulset",
        stack="opensearch",
        cpu="1",
        memory="4Gi",
        limit_memory="4Gi",
        age="23d",
    )
    inc.deploy(
        "search",
        "search-ui",
        "europe-docker.pkg.dev/search-prod/images/search-ui:3.4.2",
        nodes,
        2,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="12d",
    )
    elsewhere = inc.deploy(
        "web",
        "storefront-ui",
        "europe-docker.pkg.dev/search-prod/images/storefront-ui:8.3.0",
        nodes,
        1,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="25m",
    )[0]
    inc.not_ready(
        elsewhere,
        f'Readiness probe failed: Get "http://{elsewhere["ip"]}:3000/readyz": context deadline '
        "exceeded (Client.Timeout exceeded while awaiting headers)",
    )
    for pod in api:
        inc.bad(pod, "missing_config_reference", 'secret "opensearch-admin-credentials" not found')
    return inc


# -- probes --------------------------------------------------------------------------------------------------


@incident
def readiness_wrong_port() -> Incident:
    inc = Incident(
        "readiness-wrong-port",
        scope="web",
        question="The storefront returns 503 for every request. Which pods in web are unhealthy, and why?",
        summary="The new storefront-ui chart probes readiness on port 8081 but the server listens on 3000: both "
        "pods run and never become ready.",
        tags=["probe", "readiness", "running-not-ready"],
        cluster="aks-web-weu",
    )
    nodes = inc.aks(3)
    probe_text = "http-get http://:8081/readyz delay=5s timeout=1s period=10s #success=1 #failure=3"
    ui = inc.deploy(
        "web",
        "storefront-ui",
        "acmeweb.azurecr.io/storefront-ui:8.3.0",
        nodes,
        2,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="19m",
        revision="44",
        readiness=probe_text,
    )
    for pod in ui:
        inc.not_ready(
            pod,
            f'Readiness probe failed: Get "http://{pod["ip"]}:8081/readyz": dial tcp {pod["ip"]}:8081: '
            "connect: connection refused",
        )
    inc.deploy(
        "web",
        "web-bff",
        "acmeweb.azurecr.io/web-bff:4.9.3",
        nodes,
        2,
        stack="zap",
        cpu="150m",
        memory="192Mi",
        age="5d",
    )
    inc.deploy(
        "web",
        "storefront-proxy",
        "nginx:1.27.2-alpine",
        nodes,
        2,
        stack="nginx",
        cpu="100m",
        memory="64Mi",
        age="5d",
        container="nginx",
    )
    for pod in ui:
        inc.bad(pod, "readiness_probe_failure", f"dial tcp {pod['ip']}:8081: connect: connection refused")
    return inc


@incident
def readiness_wrong_path() -> Incident:
    inc = Incident(
        "readiness-wrong-path",
        scope="search",
        question="Is anything wrong in the search namespace?",
        summary="autocomplete 3.0 moved its readiness endpoint to /health/ready; the probe still asks /readyz and "
        "gets 404, so the pod is never ready.",
        tags=["probe", "readiness", "running-not-ready"],
        cluster="search-prod-use1",
    )
    nodes = inc.eks(3, region="us-east-1", cpu=8, memory=32, instance="m6i.2xlarge", group="search")
    complete = inc.deploy(
        "search",
        "autocomplete",
        "registry.acme.io/search/autocomplete:3.0.0",
        nodes[1:],
        1,
        stack="zap",
        cpu="300m",
        memory="512Mi",
        age="24m",
        revision="18",
    )[0]
    ip = complete["ip"]
    inc.not_ready(
        complete,
        "Readiness probe failed: HTTP probe failed with statuscode: 404",
        logs=inc.stamp(
            24,
            [
                '{"level":"info","ts":"{t}","caller":"cmd/server/main.go:74","msg":"starting","service":"autocomplete","version":"3.0.0"}',
                '{"level":"info","ts":"{t}","caller":"suggest/index.go:112","msg":"suggestion index loaded","terms":1840221}',
                '{"level":"info","ts":"{t}","caller":"httpserver/server.go:51","msg":"listening","addr":":8080","health":"/health/ready"}',
            ],
            "isoms",
            step=3,
        )
        + inc.stamp(
            0.4,
            [
                f'{{"level":"info","ts":"{{t}}","caller":"httpserver/middleware.go:38","msg":"request","method":"GET","path":"/readyz","status":404,"remote":"{ip.rsplit(".", 1)[0]}.1:51234","user_agent":"kube-probe/1.29"}}',
            ],
            "isoms",
        ),
    )
    inc.deploy(
        "search",
        "opensearch",
        "opensearchproject/opensearch:2.17.1",
        nodes,
        3,
        kind="statefulset",
        stack="opensearch",
        cpu="2",
        memory="8Gi",
        limit_memory="8Gi",
        age="23d",
    )
    inc.deploy(
        "search",
        "search-api",
        "registry.acme.io/search/search-api:2.8.1",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.bad(
        complete, "readiness_probe_failure", "Readiness probe failed: HTTP probe failed with statuscode: 404"
    )
    return inc


@incident
def liveness_timeout_restarts() -> Incident:
    inc = Incident(
        "liveness-timeout-restarts",
        scope="checkout",
        question="inventory-sync keeps restarting. Which pods in checkout are unhealthy, and why?",
        summary="inventory-sync's liveness probe (timeout 1s) times out during long GC pauses and kubelet kills "
        "the container every few minutes.",
        tags=["probe", "liveness", "restarts", "running-not-ready"],
        cluster="shop-prod-use1",
    )
    nodes = inc.eks(3, region="us-east-1")
    sync = inc.deploy(
        "checkout",
        "inventory-sync",
        "registry.acme.io/checkout/inventory-sync:6.2.0",
        nodes[1:],
        1,
        stack="java",
        cpu="500m",
        memory="1Gi",
        age="5h",
        revision="12",
    )[0]
    ip = sync["ip"]
    inc.liveness(
        sync,
        f'Liveness probe failed: Get "http://{ip}:8080/actuator/health/liveness": context deadline '
        "exceeded (Client.Timeout exceeded while awaiting headers)",
        restarts=19,
        exit_code=143,
        logs=inc.stamp(
            1.6,
            [
                "{t}  INFO 1 --- [inventory-sync] [           main] c.a.inv.InventorySyncApplication        : Starting InventorySyncApplication v6.2.0 using Java 21.0.5 with PID 1",
            ],
            "isoms",
        ),
        previous_logs=inc.stamp(
            9.5,
            [
                "{t}  INFO 1 --- [inventory-sync] [           main] c.a.inv.InventorySyncApplication        : Started InventorySyncApplication in 11.2 seconds (process running for 12.0)",
                "{t}  INFO 1 --- [inventory-sync] [   scheduling-1] c.a.inv.sync.FullSync                   : full sync started: 412 warehouses",
                "{t}  WARN 1 --- [inventory-sync] [   scheduling-1] c.a.inv.sync.FullSync                   : GC pause 4.1s (G1 Evacuation Pause), heap 1013M/1024M",
                "{t}  WARN 1 --- [inventory-sync] [   scheduling-1] c.a.inv.sync.FullSync                   : GC pause 6.8s (G1 Full GC), heap 1019M/1024M",
                "{t}  INFO 1 --- [inventory-sync] [ionShutdownHook] o.s.b.w.e.tomcat.GracefulShutdown        : Commencing graceful shutdown. Waiting for active requests to complete",
            ],
            "isoms",
            step=80,
        ),
    )
    inc.deploy(
        "checkout",
        "checkout-api",
        "registry.acme.io/checkout/checkout-api:2.13.1",
        nodes,
        2,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="3d",
    )
    inc.deploy(
        "checkout",
        "cart-service",
        "registry.acme.io/checkout/cart-service:4.3.0",
        nodes,
        2,
        cpu="150m",
        memory="192Mi",
        age="3d",
    )
    inc.bad(
        sync, "liveness_probe_failure", "Container inventory-sync failed liveness probe, will be restarted"
    )
    return inc


@incident
def liveness_crashloop() -> Incident:
    inc = Incident(
        "liveness-crashloop",
        scope="data",
        question="Which pods in the data namespace are unhealthy, and why?",
        summary="stream-processor's consumer loop stalls; its liveness endpoint answers 500, kubelet restarts it "
        "until it backs off.",
        tags=["probe", "liveness", "crashloop"],
        cluster="data-prod",
    )
    nodes = inc.gke(3, cluster="data-prod", pool="data-pool", machine="n2-highmem-4", cpu=4, memory=32)
    proc = inc.deploy(
        "data",
        "stream-processor",
        "europe-docker.pkg.dev/data-prod/apps/stream-processor:2.5.1",
        nodes,
        1,
        stack="zap",
        cpu="500m",
        memory="1Gi",
        age="2h",
        revision="9",
    )[0]
    lines = inc.stamp(
        3.2,
        [
            '{"level":"info","ts":"{t}","caller":"consumer/loop.go:58","msg":"partitions assigned","topic":"clickstream","partitions":[6,7,8]}',
            '{"level":"warn","ts":"{t}","caller":"consumer/loop.go:141","msg":"commit stalled","partition":7,"lag":182211}',
            '{"level":"error","ts":"{t}","caller":"health/health.go:40","msg":"liveness: consumer loop stalled for 94s","partition":7}',
        ],
        "isoms",
        step=50,
    )
    inc.liveness(
        proc,
        "Liveness probe failed: HTTP probe failed with statuscode: 500",
        restarts=11,
        logs=lines,
        previous_logs=lines,
        backoff=True,
    )
    inc.deploy(
        "data",
        "kafka",
        "apache/kafka:3.8.0",
        nodes,
        3,
        kind="statefulset",
        stack="kafka",
        cpu="1",
        memory="6Gi",
        limit_memory="6Gi",
        age="37d",
    )
    inc.deploy(
        "data",
        "clickhouse",
        "clickhouse/clickhouse-server:24.8",
        nodes[1:],
        2,
        kind="statefulset",
        stack="go",
        port=8123,
        cpu="1",
        memory="8Gi",
        age="37d",
    )
    inc.deploy(
        "data",
        "schema-registry",
        "confluentinc/cp-schema-registry:7.7.1",
        nodes[:1],
        1,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="37d",
    )
    inc.bad(
        proc,
        "liveness_probe_failure",
        "Liveness probe failed: HTTP probe failed with statuscode: 500",
        accept=["crash_application"],
    )
    return inc


# -- init containers, jobs, eviction ----------------------------------------------------------------------------


@incident
def init_migration_crashloop() -> Incident:
    inc = Incident(
        "init-migration-crashloop",
        scope="payments",
        question="billing-api has not come back after the release. What is wrong in the payments namespace?",
        summary="billing-api's db-migrate init container fails: the migration creates an index that already "
        "exists, so the app container never starts.",
        tags=["init", "migration"],
        cluster="prod-eu1",
    )
    nodes = inc.eks(3)
    image = "registry.acme.io/payments/billing-api:7.1.0"
    billing = inc.deploy(
        "payments",
        "billing-api",
        image,
        nodes,
        1,
        stack="java",
        cpu="300m",
        memory="768Mi",
        age="36m",
        revision="19",
        env={"DB_HOST": "billing-db.payments.svc.cluster.local"},
    )[0]
    inc.init_failure(
        billing,
        "db-migrate",
        image,
        inc.stamp(
            1.9,
            [
                "{t} INFO  migrate: current version 20261103_1",
                "{t} INFO  migrate: applying 20261128_1_add_invoice_customer_index.up.sql",
                "{t} ERROR migrate: migration 20261128_1_add_invoice_customer_index.up.sql failed: ERROR: relation "
                '"invoices_customer_id_idx" already exists (SQLSTATE 42P07)',
                "{t} FATAL migrate: database is dirty at version 20261128_1; fix it and force the version",
            ],
        ),
        restarts=10,
    )
    inc.deploy(
        "payments",
        "billing-db",
        "postgres:16.4",
        nodes[2:],
        1,
        kind="statefulset",
        stack="postgres",
        cpu="500m",
        memory="2Gi",
        age="30d",
    )
    inc.deploy(
        "payments",
        "payments-gateway",
        "registry.acme.io/payments/payments-gateway:5.2.1",
        nodes,
        2,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="9d",
    )
    inc.deploy(
        "payments",
        "ledger-api",
        "registry.acme.io/payments/ledger-api:3.7.4",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.bad(
        billing,
        "init_container_failure",
        'relation "invoices_customer_id_idx" already exists (SQLSTATE 42P07)',
    )
    return inc


@incident
def init_model_download_error() -> Incident:
    inc = Incident(
        "init-model-download-error",
        scope="ml",
        question="Is anything wrong in the ml namespace?",
        summary="recommender's fetch-model init container downloads a model artifact that does not exist (404).",
        tags=["init"],
        cluster="ml-prod-use1",
    )
    nodes = inc.eks(3, region="us-east-1", cpu=8, memory=32, instance="m6i.2xlarge", group="ml")
    rec = inc.deploy(
        "ml",
        "recommender",
        "registry.acme.io/ml/recommender:4.0.0",
        nodes[1:],
        1,
        stack="python",
        cpu="1",
        memory="3Gi",
        age="12m",
        revision="5",
    )[0]
    inc.init_failure(
        rec,
        "fetch-model",
        "curlimages/curl:8.10.1",
        [
            "+ curl -fsSL -o /models/model.tar.gz https://models.acme.io/recommender/2026-11-27/model.tar.gz",
            "curl: (22) The requested URL returned error: 404",
        ],
        restarts=4,
        exit_code=22,
        status="Init:Error",
    )
    inc.deploy(
        "ml",
        "model-gateway",
        "registry.acme.io/ml/model-gateway:2.2.0",
        nodes,
        2,
        stack="zap",
        cpu="250m",
        memory="256Mi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "ranker",
        "registry.acme.io/ml/ranker:3.0.1",
        nodes,
        2,
        stack="python",
        cpu="1",
        memory="2Gi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "feature-store-api",
        "registry.acme.io/ml/feature-store-api:0.40.2",
        nodes[:1],
        1,
        stack="python",
        cpu="500m",
        memory="1Gi",
        age="8d",
    )
    inc.bad(rec, "init_container_failure", "curl: (22) The requested URL returned error: 404")
    return inc


@incident
def job_backoff_limit() -> Incident:
    inc = Incident(
        "job-backoff-limit",
        scope="data",
        question="Last night's ETL did not produce a report. Is anything wrong in the data namespace?",
        summary="Both attempts of tonight's nightly-etl job failed on an unknown currency (KeyError: 'HRK'); the "
        "job reached its backoff limit. Earlier runs completed.",
        tags=["job", "red-herring"],
        cluster="data-prod-eu1",
    )
    nodes = inc.eks(3, memory=32, instance="r6i.xlarge", group="data")
    image = "registry.acme.io/data/nightly-etl:3.2.0"
    for days in (2, 1):
        inc.job("data", "nightly-etl", image, nodes[days], runs_ago=days * 1440 + 55, duration=6)

    def failed(started: float) -> list[str]:
        return inc.stamp(
            started,
            [
                "{t} INFO  nightly-etl 3.2.0: exporting orders for the previous day",
                "{t} INFO  reading partition s3://acme-datalake/raw/orders/ (41 files)",
                "Traceback (most recent call last):",
                '  File "/app/etl/run.py", line 88, in <module>',
                "    main()",
                '  File "/app/etl/run.py", line 71, in main',
                "    frame = normalise(read_partition(day))",
                '  File "/app/etl/transform.py", line 142, in normalise',
                '    frame["amount_eur"] = frame["amount"] * rates[frame["currency"]]',
                "KeyError: 'HRK'",
            ],
            step=30,
        )

    runs = inc.job(
        "data", "nightly-etl", image, nodes[0], runs_ago=55, attempts=2, failed=True, logs=failed, duration=6
    )
    inc.deploy(
        "data",
        "airflow-webserver",
        "apache/airflow:2.10.2",
        nodes[1:],
        1,
        stack="python",
        port=8080,
        cpu="500m",
        memory="2Gi",
        age="12d",
    )
    inc.deploy(
        "data",
        "metabase",
        "metabase/metabase:v0.50.28",
        nodes[2:],
        1,
        stack="java",
        port=3000,
        cpu="500m",
        memory="2Gi",
        age="12d",
    )
    inc.deploy(
        "data",
        "warehouse-proxy",
        "registry.acme.io/data/warehouse-proxy:1.1.0",
        nodes,
        2,
        cpu="100m",
        memory="128Mi",
        age="12d",
    )
    for pod in runs:
        inc.bad(
            pod,
            "job_backoff_limit",
            "Job has reached the specified backoff limit",
            accept=["crash_application"],
        )
    return inc


@incident
def evicted_ephemeral_storage() -> Incident:
    inc = Incident(
        "evicted-ephemeral-storage",
        scope="search",
        question="Which pods in the search namespace are unhealthy, and why?",
        summary="log-indexer writes its spill files to the container's filesystem and is evicted for exceeding "
        "its 2Gi ephemeral-storage limit; the current replica runs for now.",
        tags=["eviction", "storage"],
        cluster="search-prod",
    )
    nodes = inc.gke(3, cluster="search-prod")
    indexers = inc.deploy(
        "search",
        "log-indexer",
        "europe-docker.pkg.dev/search-prod/images/log-indexer:1.8.0",
        nodes,
        3,
        cpu="250m",
        memory="512Mi",
        age="2h",
        revision="3",
    )
    spill = [
        "{t} INFO  log-indexer 1.8.0 listening on :8080",
        "{t} INFO  merge: spilling segment batch to /var/tmp/spill (1.2 GiB)",
        "{t} WARN  merge: spill directory at 1.9 GiB",
    ]
    inc.evicted(
        indexers[0], 'Container log-indexer exceeded its local ephemeral storage limit "2Gi". ', when=52
    )
    indexers[0]["containers"][0]["logs"] = inc.stamp(120, spill, step=1900)
    indexers[1]["age"] = "52m"
    inc.evicted(
        indexers[1], "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. ", when=21
    )
    indexers[1]["containers"][0]["logs"] = inc.stamp(52, spill, step=800)
    indexers[2]["age"] = "21m"
    indexers[2]["containers"][0]["logs"] = inc.stamp(21, spill[:2], step=500)
    inc.deploy(
        "search",
        "opensearch",
        "opensearchproject/opensearch:2.17.1",
        nodes,
        3,
        kind="statefulset",
        stack="opensearch",
        cpu="1",
        memory="4Gi",
        limit_memory="4Gi",
        age="23d",
    )
    inc.deploy(
        "search",
        "search-api",
        "europe-docker.pkg.dev/search-prod/images/search-api:2.8.1",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.bad(indexers[0], "evicted", 'Container log-indexer exceeded its local ephemeral storage limit "2Gi"')
    inc.bad(
        indexers[1], "evicted", "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi"
    )
    inc.allow(indexers[2])
    return inc


# -- nodes -----------------------------------------------------------------------------------------------------

NODE_QUESTION = "Are any nodes unhealthy, and which pods are affected?"


@incident
def node_not_ready() -> Incident:
    inc = Incident(
        "node-not-ready",
        scope="nodes",
        question=NODE_QUESTION,
        summary="One worker stopped posting status four minutes ago (NotReady, conditions Unknown); the pods on it "
        "are marked not ready.",
        tags=["node", "not-ready"],
        cluster="prod-eu1",
    )
    nodes = inc.eks(3)
    inc.daemons(nodes)
    inc.deploy(
        "checkout",
        "checkout-api",
        "registry.acme.io/checkout/checkout-api:2.13.1",
        nodes,
        3,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="6d",
    )
    inc.deploy(
        "payments",
        "payments-gateway",
        "registry.acme.io/payments/payments-gateway:5.2.1",
        nodes[:2],
        2,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="9d",
    )
    inc.deploy(
        "search",
        "search-api",
        "registry.acme.io/search/search-api:2.8.1",
        nodes[1:],
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.deploy(
        "kube-system",
        "coredns",
        "registry.k8s.io/coredns/coredns:v1.11.1",
        nodes[:2],
        2,
        stack="coredns",
        cpu="100m",
        memory="70Mi",
        limit_memory="170Mi",
        age="41d",
    )
    lost = nodes[2]
    affected = inc.node_not_ready(lost, since=3.8)
    inc.bad(lost, "node_not_ready", f"Node {lost} status is now: NodeNotReady")
    for pod in affected:
        inc.bad(pod, "node_not_ready", "Node is not ready")
    return inc


def disk_eviction(container: str, used_ki: int) -> str:
    return (
        f"The node was low on resource: ephemeral-storage. Threshold quantity: 10737418240, available: "
        f"{9_800_000 + used_ki % 700_000}Ki. Container {container} was using {used_ki}Ki, request is 0, has larger "
        "consumption of ephemeral-storage. "
    )


@incident
def node_disk_pressure() -> Incident:
    inc = Incident(
        "node-disk-pressure",
        scope="nodes",
        question="Is every node healthy? If not, which pods does it affect?",
        summary="One node's disk filled up (DiskPressure True, image GC cannot free anything); kubelet evicted the "
        "two pods using the most ephemeral storage.",
        tags=["node", "pressure", "eviction"],
        cluster="shop-prod",
    )
    nodes = inc.gke(3, cluster="shop-prod")
    full = nodes[1]
    builders = inc.deploy(
        "ci",
        "image-builder",
        "gcr.io/kaniko-project/executor:v1.23.2",
        [full],
        1,
        stack="batch",
        cpu="500m",
        memory="1Gi",
        age="55m",
        container="kaniko",
        logs=[
            "INFO[0000] Retrieving image manifest node:20-bookworm",
            "INFO[0001] Retrieving image node:20-bookworm from registry index.docker.io",
            "INFO[0004] Built cross stage deps: map[0:[/app/dist]]",
            "INFO[0041] Unpacking rootfs as cmd RUN npm ci requires it.",
            "INFO[0388] RUN npm ci",
            "INFO[0388] Taking snapshot of full filesystem...",
        ],
    )
    caches = inc.deploy(
        "web",
        "render-cache",
        "europe-docker.pkg.dev/shop-prod/apps/render-cache:2.1.0",
        [full],
        1,
        cpu="100m",
        memory="256Mi",
        age="3d",
    )
    inc.deploy(
        "checkout",
        "checkout-api",
        "europe-docker.pkg.dev/shop-prod/apps/checkout-api:2.13.1",
        nodes,
        3,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="5d",
    )
    inc.deploy(
        "web",
        "storefront-ui",
        "europe-docker.pkg.dev/shop-prod/apps/storefront-ui:8.2.0",
        [nodes[1], nodes[2]],
        2,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="5d",
    )
    inc.deploy(
        "kube-system",
        "kube-dns",
        "gke.gcr.io/k8s-dns-kube-dns:1.23.0-gke.9",
        [nodes[0], nodes[2]],
        2,
        stack="coredns",
        cpu="100m",
        memory="70Mi",
        age="30d",
    )
    inc.find_node(full)["conditions"]["DiskPressure"] = "True"
    inc.node_event(full, "NodeHasDiskPressure", f"Node {full} status is now: NodeHasDiskPressure", last=16)
    inc.node_event(
        full,
        "EvictionThresholdMet",
        "Attempting to reclaim ephemeral-storage",
        warning=True,
        count=6,
        first=16,
        last=2,
    )
    inc.node_event(
        full,
        "ImageGCFailed",
        "Failed to garbage collect required amount of images. Attempted to free "
        "8431838208 bytes, but only found 0 bytes eligible to free.",
        warning=True,
        count=3,
        first=15,
        last=4,
    )
    inc.evicted(builders[0], disk_eviction("kaniko", 41_204_112), when=14)
    inc.evicted(caches[0], disk_eviction("render-cache", 9_733_380), when=9)
    inc.bad(full, "node_pressure", f"Node {full} status is now: NodeHasDiskPressure")
    for pod in (builders[0], caches[0]):
        inc.bad(pod, "node_pressure", "The node was low on resource: ephemeral-storage", accept=["evicted"])
    inc.allow(*(p for p in inc.pods if p.get("node") == full and p["status"] == "Running"))
    return inc


@incident
def node_memory_pressure() -> Incident:
    inc = Incident(
        "node-memory-pressure",
        scope="nodes",
        question="Are any of the nodes in trouble, and which pods are affected?",
        summary="worker-03 is under memory pressure: kubelet evicted pdf-renderer (5Gi used, 256Mi requested) and "
        "thumbnailer.",
        tags=["node", "pressure", "eviction"],
        cluster="onprem-fra",
        version="v1.30.5",
    )
    nodes = inc.metal(["cp-01", "worker-01", "worker-02", "worker-03"], cpu=8, memory=16)
    workers = nodes[1:]
    hot = workers[2]
    inc.daemons(workers)
    renderer = inc.deploy(
        "reports",
        "pdf-renderer",
        "harbor.acme.lan/reports/pdf-renderer:3.3.0",
        [hot],
        1,
        stack="node",
        cpu="200m",
        memory="256Mi",
        limit_memory="8Gi",
        age="4d",
    )[0]
    thumbs = inc.deploy(
        "media",
        "thumbnailer",
        "harbor.acme.lan/media/thumbnailer:1.9.4",
        [hot],
        1,
        stack="python",
        cpu="200m",
        memory="128Mi",
        limit_memory="4Gi",
        age="4d",
    )[0]
    inc.deploy(
        "web",
        "storefront-ui",
        "harbor.acme.lan/web/storefront-ui:8.2.0",
        workers,
        3,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="6d",
    )
    inc.deploy(
        "identity",
        "keycloak",
        "quay.io/keycloak/keycloak:25.0.6",
        workers[:2],
        2,
        kind="statefulset",
        stack="java",
        cpu="500m",
        memory="1536Mi",
        age="19d",
    )
    inc.find_node(hot)["conditions"]["MemoryPressure"] = "True"
    inc.node_event(
        hot, "NodeHasInsufficientMemory", f"Node {hot} status is now: NodeHasInsufficientMemory", last=12
    )
    inc.node_event(
        hot, "EvictionThresholdMet", "Attempting to reclaim memory", warning=True, count=4, first=12, last=3
    )
    inc.evicted(
        renderer,
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 71204Ki. "
        "Container pdf-renderer was using 5213440Ki, request is 256Mi, has larger consumption of memory. ",
        when=11,
    )
    inc.evicted(
        thumbs,
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 88112Ki. "
        "Container thumbnailer was using 1187304Ki, request is 128Mi, has larger consumption of memory. ",
        when=7,
    )
    inc.bad(hot, "node_pressure", f"Node {hot} status is now: NodeHasInsufficientMemory")
    inc.bad(renderer, "node_pressure", "The node was low on resource: memory", accept=["evicted"])
    inc.bad(thumbs, "node_pressure", "The node was low on resource: memory", accept=["evicted"])
    inc.allow(*(p for p in inc.pods if p.get("node") == hot and p["status"] == "Running"))
    return inc


@incident
def nodes_healthy_after_reboot() -> Incident:
    inc = Incident(
        "nodes-healthy-after-reboot",
        scope="nodes",
        question=NODE_QUESTION,
        summary="All nodes are Ready with no pressure. worker-02 was rebooted 48 minutes ago; its pods restarted "
        "once and are ready again.",
        tags=["node", "healthy", "red-herring"],
        cluster="onprem-ams",
        version="v1.29.9",
    )
    nodes = inc.metal(["cp-01", "node-01", "node-02", "node-03"], cpu=8, memory=32)
    workers = nodes[1:]
    rebooted = workers[1]
    inc.daemons(workers)
    inc.deploy(
        "search",
        "solr",
        "solr:9.7.0",
        workers,
        3,
        kind="statefulset",
        stack="java",
        port=8983,
        cpu="1",
        memory="4Gi",
        age="60d",
    )
    inc.deploy(
        "search",
        "search-api",
        "harbor.internal.acme.io/search/search-api:2.8.1",
        workers,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.deploy(
        "web",
        "storefront-ui",
        "harbor.internal.acme.io/web/storefront-ui:8.2.0",
        workers,
        3,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="6d",
    )
    inc.job(
        "batch",
        "index-compactor",
        "harbor.internal.acme.io/search/index-compactor:1.0.3",
        workers[2],
        runs_ago=40,
        duration=3,
    )
    boot = uid(inc.ident, "boot")
    inc.node_event(
        rebooted,
        "NodeNotReady",
        f"Node {rebooted} status is now: NodeNotReady",
        source="node-controller",
        last=50,
    )
    inc.node_event(rebooted, "Starting", "Starting kubelet.", last=48)
    inc.node_event(
        rebooted, "Rebooted", f"Node {rebooted} has been rebooted, boot id: {boot}", warning=True, last=48
    )
    inc.node_event(rebooted, "NodeReady", f"Node {rebooted} status is now: NodeReady", last=47)
    inc.allow(rebooted)
    for pod in inc.pods:
        if pod.get("node") == rebooted and pod["status"] == "Running":
            ctr = pod["containers"][0]
            ctr["restarts"] = 1
            ctr["last_state"] = {
                "terminated": {
                    "reason": "Unknown",
                    "exit_code": 255,
                    "started_at": inc.iso(minutes(pod["age"])),
                    "finished_at": inc.iso(50),
                }
            }
            ctr["state"] = {"running": {"started_at": inc.iso(46.5)}}
            inc.pod_event(
                pod, "SandboxChanged", "Pod sandbox changed, it will be killed and re-created.", last=47
            )
            inc.allow(pod)
    return inc


@incident
def pods_on_notready_node() -> Incident:
    inc = Incident(
        "pods-on-notready-node",
        scope="search",
        question="Why is search down?",
        summary="Every search pod runs on the dedicated node search-01, which went NotReady five minutes ago; the "
        "pods themselves are fine.",
        tags=["node", "not-ready", "root-cause-outside-scope"],
        cluster="onprem-ams",
        version="v1.29.9",
    )
    nodes = inc.metal(["cp-01", "app-01", "app-02"], cpu=8, memory=32)
    search = inc.node(
        "search-01",
        cpu=16,
        memory=64,
        ip="192.168.40.31",
        labels={"node-role.kubernetes.io/worker": "", "acme.io/pool": "search"},
    )
    apps = nodes[1:]
    inc.daemons([*apps, search])
    pods = inc.deploy(
        "search",
        "opensearch",
        "opensearchproject/opensearch:2.17.1",
        [search],
        2,
        kind="statefulset",
        stack="opensearch",
        cpu="2",
        memory="8Gi",
        limit_memory="8Gi",
        age="23d",
    )
    pods += inc.deploy(
        "search",
        "search-api",
        "harbor.internal.acme.io/search/search-api:2.8.1",
        [search],
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    pods += inc.deploy(
        "search",
        "autocomplete",
        "harbor.internal.acme.io/search/autocomplete:2.9.4",
        [search],
        1,
        stack="zap",
        cpu="300m",
        memory="512Mi",
        age="9d",
    )
    inc.deploy(
        "web",
        "storefront-ui",
        "harbor.internal.acme.io/web/storefront-ui:8.2.0",
        apps,
        2,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="6d",
    )
    inc.node_not_ready(search, since=5.2)
    for pod in pods:
        inc.bad(pod, "node_not_ready", "Node is not ready")
    inc.allow(search)
    return inc


# -- cascades --------------------------------------------------------------------------------------------------


@incident
def cascade_postgres_config() -> Incident:
    inc = Incident(
        "cascade-postgres-config",
        scope="payments",
        question="Which pods in the payments namespace are unhealthy, and why?",
        summary="payments-db crash-loops on a typo in postgresql.conf (max_connections = 500o); ledger-api and "
        "billing-api run but are not ready because they cannot reach it.",
        tags=["cascade", "dependency", "crashloop", "config", "running-not-ready"],
        cluster="prod-eu1",
    )
    nodes = inc.eks(3)
    db = inc.deploy(
        "payments",
        "payments-db",
        "postgres:16.4",
        nodes[2:],
        1,
        kind="statefulset",
        stack="postgres",
        cpu="500m",
        memory="2Gi",
        age="33m",
    )[0]
    inc.crashloop(
        db,
        inc.stamp(
            1.1,
            [
                '{t} [1] LOG:  invalid value for parameter "max_connections": "500o"',
                '{t} [1] FATAL:  configuration file "/etc/postgresql/postgresql.conf" contains errors',
            ],
            "pg",
        ),
        restarts=10,
        crashed=1.1,
    )
    refused = "dial tcp 172.20.41.7:5432: connect: connection refused"
    ledgers = inc.deploy(
        "payments",
        "ledger-api",
        "registry.acme.io/payments/ledger-api:3.7.4",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    for pod in ledgers:
        inc.not_ready(
            pod,
            NOT_READY_503,
            since=32,
            logs=inc.stamp(
                13000,
                [
                    "{t} INFO  ledger-api v3.7.4 starting (commit 81ac0e2)",
                    "{t} INFO  listening on :8080",
                ],
            )
            + inc.stamp(
                1.4,
                [
                    f"{{t}} WARN  db: ping payments-db.payments.svc.cluster.local:5432 failed: {refused}; retrying in 5s",
                    "{t} WARN  GET /ready -> 503: database not reachable",
                ],
                step=5,
            ),
        )
    billing = inc.deploy(
        "payments",
        "billing-api",
        "registry.acme.io/payments/billing-api:7.0.2",
        nodes[1:],
        1,
        stack="java",
        cpu="300m",
        memory="768Mi",
        age="9d",
    )[0]
    inc.not_ready(
        billing,
        "Readiness probe failed: HTTP probe failed with statuscode: 503",
        since=31,
        logs=inc.stamp(
            2.2,
            [
                "{t}  WARN 1 --- [billing-api] [nio-8080-exec-7] o.s.b.a.jdbc.DataSourceHealthIndicator   : DataSource health check failed",
                "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection",
                "Caused by: org.postgresql.util.PSQLException: Connection to payments-db.payments.svc.cluster.local:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.",
            ],
            "isoms",
        ),
    )
    gateway = inc.deploy(
        "payments",
        "payments-gateway",
        "registry.acme.io/payments/payments-gateway:5.2.1",
        nodes,
        2,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="9d",
    )
    for pod in gateway:
        pod["containers"][0]["logs"] += inc.stamp(
            0.9,
            [
                "{t}  WARN 1 --- [payments-gateway] [nio-8080-exec-3] c.a.p.client.LedgerClient                : ledger-api returned 503 for POST /v1/entries; queued for retry",
            ],
            "isoms",
        )
    inc.bad(
        db,
        "crash_config",
        'configuration file "/etc/postgresql/postgresql.conf" contains errors',
        accept=["crash_application"],
    )
    for pod in ledgers:
        inc.bad(pod, "dependency_down", refused)
    inc.bad(billing, "dependency_down", "Connection to payments-db.payments.svc.cluster.local:5432 refused")
    inc.allow(*gateway)
    return inc


@incident
def cascade_config_server_oom() -> Incident:
    inc = Incident(
        "cascade-config-server-oom",
        scope="checkout",
        question="Why is checkout down?",
        summary="config-server is OOMKilled in a loop (heap larger than its limit); checkout-api and order-router, "
        "restarted by this morning's rollout, cannot fetch their configuration and stay not ready.",
        tags=["cascade", "dependency", "oom", "running-not-ready"],
        cluster="shop-prod",
    )
    nodes = inc.gke(3, cluster="shop-prod")
    config = inc.deploy(
        "checkout",
        "config-server",
        "europe-docker.pkg.dev/shop-prod/apps/config-server:4.1.3",
        nodes[:1],
        1,
        stack="java",
        port=8888,
        cpu="250m",
        memory="384Mi",
        limit_memory="512Mi",
        age="27m",
        env={"JAVA_TOOL_OPTIONS": "-Xmx768m", "SPRING_PROFILES_ACTIVE": "git"},
    )[0]
    inc.oom(
        config,
        inc.stamp(
            2.6,
            [
                "{t}  INFO 1 --- [config-server] [           main] c.a.config.ConfigServerApplication       : Starting ConfigServerApplication v4.1.3 using Java 21.0.5 with PID 1",
                "{t}  INFO 1 --- [config-server] [           main] o.s.c.c.s.e.JGitEnvironmentRepository    : Cloning https://git.acme.io/platform/config-repo.git into /tmp/config-repo",
            ],
            "isoms",
            step=20,
        ),
        restarts=8,
        crashed=2.6,
        ran=0.7,
    )
    refused = "dial tcp 34.118.229.14:8888: connect: connection refused"
    dependents = inc.deploy(
        "checkout",
        "checkout-api",
        "europe-docker.pkg.dev/shop-prod/apps/checkout-api:2.14.1",
        nodes,
        2,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="21m",
        revision="29",
    )
    dependents += inc.deploy(
        "checkout",
        "order-router",
        "europe-docker.pkg.dev/shop-prod/apps/order-router:1.5.0",
        nodes[1:],
        1,
        cpu="100m",
        memory="128Mi",
        age="21m",
        revision="8",
    )
    for pod in dependents:
        app = pod["name"].rsplit("-", 2)[0]
        inc.not_ready(
            pod,
            NOT_READY_503,
            since=20.5,
            logs=inc.stamp(
                21,
                [
                    f'{{"level":"info","ts":"{{t}}","caller":"cmd/server/main.go:74","msg":"starting","service":"{app}"}}',
                ],
                "isoms",
            )
            + inc.stamp(
                0.7,
                [
                    f'{{"level":"error","ts":"{{t}}","caller":"config/client.go:88","msg":"config fetch failed, retrying in 10s",'
                    f'"url":"http://config-server.checkout.svc:8888/{app}/prod","error":"{refused}"}}',
                ],
                "isoms",
            ),
        )
    inc.deploy(
        "checkout",
        "cart-service",
        "europe-docker.pkg.dev/shop-prod/apps/cart-service:4.3.0",
        nodes,
        2,
        cpu="150m",
        memory="192Mi",
        age="5d",
    )
    inc.deploy(
        "checkout",
        "checkout-web",
        "europe-docker.pkg.dev/shop-prod/apps/checkout-web:6.0.2",
        nodes[1:],
        1,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="5d",
    )
    inc.bad(config, "oom_killed", OOM_FACT)
    for pod in dependents:
        inc.bad(pod, "dependency_down", refused)
    return inc


@incident
def cascade_redis_unbound_pvc() -> Incident:
    inc = Incident(
        "cascade-redis-unbound-pvc",
        scope="web",
        question="Nobody can log in to the shop. What is wrong in the web namespace?",
        summary="session-store-0 (redis) is Pending: its recreated PersistentVolumeClaim has no storage class and "
        "binds to nothing; storefront-ui cannot reach redis and is not ready.",
        tags=["cascade", "dependency", "storage", "running-not-ready"],
        cluster="aks-web-weu",
    )
    nodes = inc.aks(3)
    redis = inc.deploy(
        "web",
        "session-store",
        "redis:7.2.4",
        nodes,
        1,
        kind="statefulset",
        stack="redis",
        cpu="250m",
        memory="1Gi",
        age="24m",
    )[0]
    inc.unschedulable(
        redis, scheduler(3, "pod has unbound immediate PersistentVolumeClaims", NOT_HELPFUL.format(n=3))
    )
    inc.event(
        "web",
        "persistentvolumeclaim/data-session-store-0",
        "FailedBinding",
        "no persistent volumes available for this claim and no storage class is set",
        count=98,
        first=24,
        last=0.2,
        source="persistentvolume-controller",
    )
    ui = inc.deploy(
        "web",
        "storefront-ui",
        "acmeweb.azurecr.io/storefront-ui:8.2.0",
        nodes,
        2,
        stack="node",
        cpu="200m",
        memory="256Mi",
        age="5d",
    )
    refused = "Error: connect ECONNREFUSED 10.0.118.23:6379"
    for pod in ui:
        inc.not_ready(
            pod,
            NOT_READY_503,
            since=23,
            logs=inc.stamp(
                1.1,
                [
                    f"[ioredis] Unhandled error event: {refused}",
                    "    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16)",
                    f'{{"level":50,"time":{{t}}000,"pid":1,"hostname":"{pod["name"]}","msg":"readiness: session store unavailable"}}',
                ],
                "epoch",
            ),
        )
    inc.deploy(
        "web",
        "web-bff",
        "acmeweb.azurecr.io/web-bff:4.9.3",
        nodes,
        2,
        stack="zap",
        cpu="150m",
        memory="192Mi",
        age="5d",
    )
    inc.deploy(
        "web",
        "storefront-proxy",
        "nginx:1.27.2-alpine",
        nodes[1:],
        2,
        stack="nginx",
        cpu="100m",
        memory="64Mi",
        age="5d",
        container="nginx",
    )
    inc.bad(redis, "unbound_volume", "pod has unbound immediate PersistentVolumeClaims")
    for pod in ui:
        inc.bad(pod, "dependency_down", "connect ECONNREFUSED 10.0.118.23:6379")
    return inc


# -- nothing wrong in the asked scope ----------------------------------------------------------------------------


@incident
def healthy_noisy_logs() -> Incident:
    inc = Incident(
        "healthy-noisy-logs",
        scope="payments",
        question="The payments logs are full of errors. Is anything actually wrong in the payments namespace?",
        summary="Nothing is wrong in payments: the ERROR and WARN lines are retried calls that then succeed, "
        "ledger-api's restarts are three days old, the settlement jobs completed. (web has its own problem.)",
        tags=["healthy", "red-herring", "multi-namespace"],
        cluster="prod-eu1",
    )
    nodes = inc.eks(3)
    gateways = inc.deploy(
        "payments",
        "payments-gateway",
        "registry.acme.io/payments/payments-gateway:5.2.1",
        nodes,
        2,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="9d",
    )
    for pod in gateways:
        pod["containers"][0]["logs"] += inc.stamp(
            4.2,
            [
                "{t} ERROR 1 --- [payments-gateway] [nio-8080-exec-9] c.a.p.client.FraudClient                 : fraud-scorer call timed out after 800ms (attempt 1/3); retrying",
                "{t}  INFO 1 --- [payments-gateway] [nio-8080-exec-9] c.a.p.api.AuthorisationController        : payment pay_8f1c2a authorised in 1.31s",
            ],
            "isoms",
        )
    scorer = inc.deploy(
        "payments",
        "fraud-scorer",
        "registry.acme.io/payments/fraud-scorer:1.14.0",
        nodes[1:],
        1,
        stack="python",
        cpu="200m",
        memory="512Mi",
        age="9d",
    )[0]
    scorer["containers"][0]["logs"] += inc.stamp(
        6.0,
        [
            "[{t}] [7] [WARNING] model drift score 0.31 above threshold 0.25 (feature: merchant_category)",
        ],
        "py",
    )
    worker = inc.deploy(
        "payments",
        "payout-worker",
        "registry.acme.io/payments/payout-worker:2.3.7",
        nodes,
        1,
        stack="worker",
        cpu="100m",
        memory="256Mi",
        age="4d",
    )[0]
    task = uid(inc.ident, "payout")
    worker["containers"][0]["logs"] += inc.stamp(
        3.0,
        [
            f"[{{t}}: ERROR/ForkPoolWorker-1] Task payouts.tasks.send_payout[{task}] raised unexpected: "
            "ConnectionResetError(104, 'Connection reset by peer')",
            f"[{{t}}: INFO/ForkPoolWorker-1] Task payouts.tasks.send_payout[{task}] retry: Retry in 30s",
        ],
        "pylog",
    ) + inc.stamp(
        2.4,
        [
            f"[{{t}}: INFO/ForkPoolWorker-2] Task payouts.tasks.send_payout[{task}] succeeded in 0.92s: None",
        ],
        "pylog",
    )
    ledgers = inc.deploy(
        "payments",
        "ledger-api",
        "registry.acme.io/payments/ledger-api:3.7.4",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    recovered = ledgers[0]
    recovered["containers"][0]["restarts"] = 2
    recovered["containers"][0]["last_state"] = {
        "terminated": {
            "reason": "Error",
            "exit_code": 1,
            "started_at": inc.iso(4400),
            "finished_at": inc.iso(4330),
        }
    }
    recovered["containers"][0]["state"] = {"running": {"started_at": inc.iso(4329)}}
    recovered["containers"][0]["logs"] = inc.stamp(
        4329,
        [
            "{t} INFO  ledger-api v3.7.4 starting (commit 81ac0e2)",
            "{t} WARN  db: ping failed: context deadline exceeded; retrying in 5s",
            "{t} INFO  db: connected to ledger-db.payments.svc.cluster.local:5432",
            "{t} INFO  listening on :8080",
        ],
        step=3,
    ) + inc.stamp(2.0, ["{t} INFO  POST /v1/entries 201 9ms"])
    for days in (2, 1):
        inc.job(
            "payments",
            "settlement-report",
            "registry.acme.io/payments/settlement-report:1.4.0",
            nodes[days],
            runs_ago=days * 1440 - 300,
            duration=3,
        )
    crashing = inc.deploy(
        "web",
        "storefront-ssr",
        "registry.acme.io/web/storefront-ssr:12.5.0",
        nodes[:1],
        1,
        stack="node",
        cpu="300m",
        memory="512Mi",
        age="18m",
    )[0]
    inc.crashloop(
        crashing,
        inc.stamp(
            0.8,
            [
                '{"level":60,"time":{t}000,"pid":1,"msg":"Cannot find module \'/app/dist/server.js\'"}',
            ],
            "epoch",
        ),
        restarts=7,
        crashed=0.8,
    )
    inc.allow(recovered)
    return inc


@incident
def healthy_other_namespaces_broken() -> Incident:
    inc = Incident(
        "healthy-other-namespaces-broken",
        scope="search",
        question="Are the pods in the search namespace healthy?",
        summary="Everything in search is healthy; the broken pods are in ml and data, which the question does not "
        "ask about.",
        tags=["healthy", "multi-namespace"],
        cluster="search-prod",
    )
    nodes = inc.gke(3, cluster="search-prod", machine="e2-standard-8", cpu=8, memory=32)
    inc.deploy(
        "search",
        "opensearch",
        "opensearchproject/opensearch:2.17.1",
        nodes,
        3,
        kind="statefulset",
        stack="opensearch",
        cpu="1",
        memory="4Gi",
        limit_memory="4Gi",
        age="23d",
    )
    inc.deploy(
        "search",
        "search-api",
        "europe-docker.pkg.dev/search-prod/images/search-api:2.8.1",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.deploy(
        "search",
        "autocomplete",
        "europe-docker.pkg.dev/search-prod/images/autocomplete:2.9.4",
        nodes[1:],
        1,
        stack="zap",
        cpu="300m",
        memory="512Mi",
        age="9d",
    )
    inc.deploy(
        "search",
        "search-ui",
        "europe-docker.pkg.dev/search-prod/images/search-ui:3.4.2",
        nodes,
        2,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="12d",
    )
    image = "europe-docker.pkg.dev/search-prod/ml/query-embedder:0.2.0"
    embedder = inc.deploy(
        "ml", "query-embedder", image, nodes[2:], 1, stack="python", cpu="1", memory="2Gi", age="40m"
    )[0]
    inc.image_pull(embedder, not_found(image))
    loader = inc.deploy(
        "data",
        "catalog-loader",
        "europe-docker.pkg.dev/search-prod/data/catalog-loader:5.0.0",
        nodes,
        1,
        stack="python",
        cpu="12",
        memory="4Gi",
        age="55m",
    )[0]
    inc.unschedulable(loader, scheduler(3, "3 Insufficient cpu", NO_VICTIMS.format(n=3)))
    return inc


@incident
def healthy_completed_jobs() -> Incident:
    inc = Incident(
        "healthy-completed-jobs",
        scope="data",
        question="Is anything wrong in the data namespace?",
        summary="Nothing is wrong: the Completed pods are finished CronJob runs (one retried once) and kafka-1's "
        "restarts are two days old.",
        tags=["healthy", "red-herring", "job"],
        cluster="data-prod-eu1",
    )
    nodes = inc.eks(3, memory=32, instance="r6i.xlarge", group="data")
    image = "registry.acme.io/data/nightly-etl:3.2.0"
    runs = []
    for days in (3, 2, 1):
        runs += inc.job("data", "nightly-etl", image, nodes[days % 3], runs_ago=days * 1440 - 420, duration=6)
    retried = runs[-1]["containers"][0]
    retried["restarts"] = 1
    retried["last_state"] = {
        "terminated": {
            "reason": "Error",
            "exit_code": 1,
            "started_at": inc.iso(1040),
            "finished_at": inc.iso(1038),
        }
    }
    inc.job(
        "data",
        "compact-partitions",
        "registry.acme.io/data/compactor:0.7.1",
        nodes[0],
        runs_ago=28,
        duration=4,
    )
    kafka = inc.deploy(
        "data",
        "kafka",
        "apache/kafka:3.8.0",
        nodes,
        3,
        kind="statefulset",
        stack="kafka",
        cpu="1",
        memory="4Gi",
        limit_memory="6Gi",
        age="37d",
    )
    broker = kafka[1]["containers"][0]
    broker["restarts"] = 3
    broker["last_state"] = {
        "terminated": {
            "reason": "OOMKilled",
            "exit_code": 137,
            "started_at": inc.iso(3100),
            "finished_at": inc.iso(2950),
        }
    }
    broker["state"] = {"running": {"started_at": inc.iso(2949)}}
    inc.deploy(
        "data",
        "schema-registry",
        "confluentinc/cp-schema-registry:7.7.1",
        nodes[:1],
        1,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="37d",
    )
    inc.deploy(
        "data",
        "airflow-webserver",
        "apache/airflow:2.10.2",
        nodes[1:],
        1,
        stack="python",
        port=8080,
        cpu="500m",
        memory="2Gi",
        age="12d",
    )
    inc.allow(kafka[1])
    return inc


@incident
def healthy_recovered_after_deploy() -> Incident:
    inc = Incident(
        "healthy-recovered-after-deploy",
        scope="ml",
        question="We deployed to ml half an hour ago. Is everything OK there?",
        summary="ml is healthy: model-gateway failed readiness while warming up and has been ready for 20 minutes; "
        "the WARN and ERROR lines are harmless. (data has a pod that cannot be scheduled.)",
        tags=["healthy", "red-herring", "rollout", "multi-namespace"],
        cluster="ml-prod",
    )
    nodes = inc.gke(3, cluster="ml-prod", machine="n2-standard-8", cpu=8, memory=32)
    gateways = inc.deploy(
        "ml",
        "model-gateway",
        "europe-docker.pkg.dev/ml-prod/serving/model-gateway:2.3.0",
        nodes,
        2,
        stack="zap",
        cpu="250m",
        memory="256Mi",
        age="29m",
        revision="11",
    )
    for pod in gateways:
        inc.pod_event(pod, "Unhealthy", NOT_READY_503, warning=True, count=4, first=28.5, last=24)
        pod["containers"][0]["logs"] = inc.stamp(
            29,
            [
                '{"level":"info","ts":"{t}","caller":"cmd/server/main.go:74","msg":"starting","service":"model-gateway","version":"2.3.0"}',
                '{"level":"warn","ts":"{t}","caller":"models/registry.go:97","msg":"model cache cold, warming up","models":14}',
            ],
            "isoms",
        ) + inc.stamp(
            24,
            [
                '{"level":"info","ts":"{t}","caller":"models/registry.go:121","msg":"model cache warm","models":14,"took":"4m52s"}',
            ],
            "isoms",
        )
    server = inc.deploy(
        "ml",
        "embedding-server",
        "europe-docker.pkg.dev/ml-prod/serving/embedding-server:1.6.1",
        nodes[1:],
        2,
        stack="python",
        cpu="2",
        memory="6Gi",
        age="8d",
    )
    for pod in server:
        pod["containers"][0]["logs"].insert(
            4, "[{}] [7] [WARNING] CUDA not available; running on CPU".format(STAMPS["py"](inc.at(11520)))
        )
    ranker = inc.deploy(
        "ml",
        "ranker",
        "europe-docker.pkg.dev/ml-prod/serving/ranker:3.0.1",
        nodes,
        1,
        stack="python",
        cpu="1",
        memory="2Gi",
        age="8d",
    )[0]
    ranker["containers"][0]["logs"] += inc.stamp(
        7,
        [
            "[{t}] [7] [ERROR] failed to refresh feature flags from http://flagd.platform.svc:8013: context deadline "
            "exceeded; keeping cached flags",
        ],
        "py",
    )
    inc.deploy(
        "ml",
        "mlflow",
        "ghcr.io/mlflow/mlflow:v2.16.2",
        nodes[:1],
        1,
        stack="python",
        port=5000,
        cpu="250m",
        memory="1Gi",
        age="40d",
    )
    stuck = inc.deploy(
        "data",
        "report-builder",
        "europe-docker.pkg.dev/ml-prod/data/report-builder:1.2.0",
        nodes,
        1,
        stack="python",
        cpu="500m",
        memory="1Gi",
        age="3h",
    )[0]
    inc.unschedulable(
        stuck, scheduler(3, "3 node(s) didn't match Pod's node affinity/selector", NOT_HELPFUL.format(n=3))
    )
    inc.allow(*gateways)
    return inc


# -- two or three problems at once ---------------------------------------------------------------------------------


@incident
def multi_oom_and_image_tag() -> Incident:
    inc = Incident(
        "multi-oom-and-image-tag",
        scope="ml",
        question="Which pods in the ml namespace are unhealthy, and why?",
        summary="Two problems in ml: embedding-indexer is OOMKilled (2Gi limit) and notebook-proxy asks for an "
        "image tag that does not exist. data has a problem of its own.",
        tags=["multi-problem", "oom", "image", "multi-namespace"],
        cluster="ml-prod",
    )
    nodes = inc.gke(3, cluster="ml-prod", machine="n2-standard-8", cpu=8, memory=32)
    indexer = inc.deploy(
        "ml",
        "embedding-indexer",
        "europe-docker.pkg.dev/ml-prod/batch/embedding-indexer:0.5.2",
        nodes[1:],
        1,
        stack="python",
        cpu="1",
        memory="1Gi",
        limit_memory="2Gi",
        age="1h",
    )[0]
    inc.oom(
        indexer,
        inc.stamp(
            2.5,
            [
                "[{t}] [1] [INFO] embedding-indexer 0.5.2: indexing catalogue snapshot 2026-11-29 (1.8M documents)",
                "[{t}] [1] [INFO] building HNSW index in memory (dim=768, M=32)",
                "[{t}] [1] [INFO] 400000/1800000 vectors added",
            ],
            "py",
            step=30,
        ),
        restarts=9,
        crashed=2.5,
        ran=1.5,
    )
    image = "europe-docker.pkg.dev/ml-prod/tools/notebook-proxy:2.0.0-rc.1"
    proxy = inc.deploy(
        "ml", "notebook-proxy", image, nodes[:1], 1, stack="node", cpu="100m", memory="128Mi", age="26m"
    )[0]
    inc.image_pull(proxy, not_found(image))
    inc.deploy(
        "ml",
        "model-gateway",
        "europe-docker.pkg.dev/ml-prod/serving/model-gateway:2.2.0",
        nodes,
        2,
        stack="zap",
        cpu="250m",
        memory="256Mi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "ranker",
        "europe-docker.pkg.dev/ml-prod/serving/ranker:3.0.1",
        nodes,
        2,
        stack="python",
        cpu="1",
        memory="2Gi",
        age="8d",
    )
    inc.deploy(
        "ml",
        "online-store",
        "redis:7.2.4",
        nodes[2:],
        1,
        kind="statefulset",
        stack="redis",
        cpu="500m",
        memory="2Gi",
        age="30d",
    )
    other = inc.deploy(
        "data",
        "lineage-api",
        "europe-docker.pkg.dev/ml-prod/data/lineage-api:2026.11.2",
        nodes,
        1,
        stack="python",
        cpu="200m",
        memory="512Mi",
        age="2h",
    )[0]
    inc.config_error(other, 'secret "lineage-db-credentials" not found', tries=190)
    inc.bad(indexer, "oom_killed", OOM_FACT)
    inc.bad(proxy, "image_not_found", f"{image}: not found")
    return inc


@incident
def multi_crash_configmap_cpu() -> Incident:
    inc = Incident(
        "multi-crash-configmap-cpu",
        scope="checkout",
        question="Why is checkout down?",
        summary="Three unrelated problems in checkout: tax-service crashes on a missing TAX_PROVIDER_URL, "
        "promo-engine's ConfigMap promo-rules does not exist, and checkout-worker asks for more CPU than any node has.",
        tags=["multi-problem", "crashloop", "config", "pending"],
        cluster="shop-prod-use1",
    )
    nodes = inc.eks(3, region="us-east-1")
    tax = inc.deploy(
        "checkout",
        "tax-service",
        "registry.acme.io/checkout/tax-service:3.0.0",
        nodes[1:],
        1,
        stack="python",
        cpu="200m",
        memory="256Mi",
        age="42m",
        env={"TAX_REGION": "us"},
    )[0]
    inc.crashloop(
        tax,
        inc.stamp(
            1.7,
            [
                "[{t}] [1] [INFO] Starting gunicorn 22.0.0",
                "[{t}] [7] [INFO] Booting worker with pid: 7",
                "[{t}] [7] [ERROR] Exception in worker process",
                "Traceback (most recent call last):",
                '  File "/app/tax/settings.py", line 12, in <module>',
                '    PROVIDER_URL = os.environ["TAX_PROVIDER_URL"]',
                '  File "<frozen os>", line 714, in __getitem__',
                "KeyError: 'TAX_PROVIDER_URL'",
                "[{t}] [1] [ERROR] Reason: Worker failed to boot.",
            ],
            "py",
        ),
        restarts=12,
        crashed=1.7,
        exit_code=3,
    )
    promo = inc.deploy(
        "checkout",
        "promo-engine",
        "registry.acme.io/checkout/promo-engine:1.1.0",
        nodes,
        1,
        stack="node",
        cpu="100m",
        memory="192Mi",
        age="42m",
    )[0]
    inc.config_error(promo, 'configmap "promo-rules" not found')
    worker = inc.deploy(
        "checkout",
        "checkout-worker",
        "registry.acme.io/checkout/checkout-worker:2.0.0",
        nodes,
        1,
        stack="worker",
        cpu="4",
        memory="2Gi",
        age="42m",
    )[0]
    inc.unschedulable(worker, scheduler(3, "3 Insufficient cpu", NO_VICTIMS.format(n=3)))
    inc.deploy(
        "checkout",
        "checkout-api",
        "registry.acme.io/checkout/checkout-api:2.13.1",
        nodes,
        2,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="3d",
    )
    inc.deploy(
        "checkout",
        "cart-service",
        "registry.acme.io/checkout/cart-service:4.3.0",
        nodes,
        2,
        cpu="150m",
        memory="192Mi",
        age="3d",
    )
    inc.deploy(
        "checkout",
        "checkout-web",
        "registry.acme.io/checkout/checkout-web:6.0.2",
        nodes,
        2,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="3d",
    )
    inc.bad(tax, "crash_config", "KeyError: 'TAX_PROVIDER_URL'", accept=["crash_application"])
    inc.bad(promo, "missing_config_reference", 'configmap "promo-rules" not found')
    inc.bad(worker, "insufficient_resources", "0/3 nodes are available: 3 Insufficient cpu.")
    return inc


@incident
def multi_secret_readiness_job() -> Incident:
    inc = Incident(
        "multi-secret-readiness-job",
        scope="payments",
        question="Did last night's changes break anything in payments?",
        summary="Three problems in payments: card-tokenizer's Secret vault-approle is missing, fx-rates' readiness "
        "probe times out (1s) on a 1.4s health check, and the settlement-report job failed twice on S3 AccessDenied.",
        tags=["multi-problem", "secret", "probe", "job", "running-not-ready"],
        cluster="aks-pay-weu",
    )
    nodes = inc.aks(3, pool="paypool")
    tokenizer = inc.deploy(
        "payments",
        "card-tokenizer",
        "acmepay.azurecr.io/card-tokenizer:2.2.0",
        nodes,
        1,
        stack="java",
        cpu="250m",
        memory="512Mi",
        age="9h",
        env={"VAULT_ROLE_ID": {"secret": "vault-approle", "key": "role_id"}},
    )[0]
    inc.config_error(tokenizer, 'secret "vault-approle" not found', tries=470)
    fx = inc.deploy(
        "payments",
        "fx-rates",
        "acmepay.azurecr.io/fx-rates:1.6.0",
        nodes[1:],
        1,
        cpu="100m",
        memory="128Mi",
        age="9h",
        readiness="http-get http://:8080/health/ready delay=5s timeout=1s period=10s #success=1 #failure=3",
    )[0]
    inc.not_ready(
        fx,
        f'Readiness probe failed: Get "http://{fx["ip"]}:8080/health/ready": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)",
        since=540,
        count=3240,
        logs=inc.stamp(
            540,
            [
                "{t} INFO  fx-rates 1.6.0 listening on :8080",
                "{t} INFO  health: ready check now includes database and provider round trips",
            ],
        )
        + inc.stamp(0.5, ["{t} WARN  GET /health/ready took 1432ms (db 611ms, provider 806ms)"]),
    )

    def denied(started: float) -> list[str]:
        return inc.stamp(
            started,
            [
                "{t} INFO  settlement-report: building report for the previous business day",
                "{t} INFO  uploading settlement-report.csv to s3://acme-settlements/reports/",
                "botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the PutObject "
                "operation: Access Denied",
            ],
            step=40,
        )

    failed = inc.job(
        "payments",
        "settlement-report",
        "acmepay.azurecr.io/settlement-report:1.5.0",
        nodes[2],
        runs_ago=50,
        attempts=2,
        failed=True,
        logs=denied,
        duration=3,
    )
    inc.deploy(
        "payments",
        "payments-gateway",
        "acmepay.azurecr.io/payments-gateway:5.2.1",
        nodes,
        2,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="9d",
    )
    inc.deploy(
        "payments",
        "ledger-api",
        "acmepay.azurecr.io/ledger-api:3.7.4",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="9d",
    )
    inc.bad(tokenizer, "missing_config_reference", 'secret "vault-approle" not found')
    inc.bad(
        fx,
        "readiness_probe_failure",
        f'Readiness probe failed: Get "http://{fx["ip"]}:8080/health/ready": context deadline exceeded',
    )
    for pod in failed:
        inc.bad(
            pod,
            "job_backoff_limit",
            "Job has reached the specified backoff limit",
            accept=["crash_application"],
        )
    return inc


@incident
def multi_taint_and_pvc() -> Incident:
    inc = Incident(
        "multi-taint-and-pvc",
        scope="data",
        question="What needs fixing in the data namespace?",
        summary="Two problems in data: spark-history tolerates neither the system pool's CriticalAddonsOnly taint "
        "nor the spot pool's; zookeeper-2's claim names a storage class that does not exist (a typo).",
        tags=["multi-problem", "pending", "taint", "storage"],
        cluster="aks-data-weu",
    )
    system = inc.aks(1, pool="system", mode="System")
    spot = inc.aks(
        2,
        pool="spot",
        vm="Standard_E4s_v5",
        memory=32,
        labels={"kubernetes.azure.com/scalesetpriority": "spot"},
    )
    history = inc.deploy(
        "data",
        "spark-history",
        "apache/spark:3.5.3",
        spot,
        1,
        stack="java",
        port=18080,
        cpu="500m",
        memory="1Gi",
        age="34m",
    )[0]
    inc.unschedulable(
        history,
        scheduler(
            3,
            "1 node(s) had untolerated taint {CriticalAddonsOnly: true}, 2 node(s) had untolerated taint "
            "{kubernetes.azure.com/scalesetpriority: spot}",
            NOT_HELPFUL.format(n=3),
        ),
    )
    zk = inc.deploy(
        "data",
        "zookeeper",
        "zookeeper:3.9.2",
        spot,
        3,
        kind="statefulset",
        stack="java",
        port=2181,
        cpu="250m",
        memory="1Gi",
        age="15d",
        readiness="exec [zkServer.sh status] delay=10s timeout=5s period=10s #success=1 #failure=3",
    )
    zk[2]["age"] = "48m"
    inc.unschedulable(
        zk[2], scheduler(3, "pod has unbound immediate PersistentVolumeClaims", NOT_HELPFUL.format(n=3))
    )
    inc.event(
        "data",
        "persistentvolumeclaim/data-zookeeper-2",
        "ProvisioningFailed",
        'storageclass.storage.k8s.io "managed-csi-premuim" not found',
        warning=True,
        count=190,
        first=48,
        last=0.4,
        source="persistentvolume-controller",
    )
    inc.deploy(
        "data",
        "kafka",
        "apache/kafka:3.8.0",
        spot,
        2,
        kind="statefulset",
        stack="kafka",
        cpu="1",
        memory="4Gi",
        limit_memory="6Gi",
        age="15d",
    )
    inc.deploy(
        "kube-system",
        "coredns",
        "mcr.microsoft.com/oss/kubernetes/coredns:v1.11.3-1",
        system,
        2,
        stack="coredns",
        cpu="100m",
        memory="70Mi",
        age="33d",
    )
    inc.deploy(
        "kube-system",
        "metrics-server",
        "mcr.microsoft.com/oss/kubernetes/metrics-server:v0.7.2",
        system,
        1,
        stack="go",
        port=4443,
        cpu="50m",
        memory="64Mi",
        age="33d",
    )
    inc.bad(history, "untolerated_taint", "1 node(s) had untolerated taint {CriticalAddonsOnly: true}")
    inc.bad(zk[2], "unbound_volume", "pod has unbound immediate PersistentVolumeClaims")
    return inc


@incident
def multi_liveness_evicted_quota() -> Incident:
    inc = Incident(
        "multi-liveness-evicted-quota",
        scope="web",
        question="Give me a health report for the web namespace.",
        summary="Three problems in web: media-proxy is killed by its liveness probe (deadlock), a thumbnail-worker "
        "pod was evicted for ephemeral storage, and the CPU quota refuses the new pdf-export pod.",
        tags=["multi-problem", "probe", "eviction", "quota", "running-not-ready"],
        cluster="onprem-fra",
        version="v1.30.5",
    )
    nodes = inc.metal(["cp-01", "worker-01", "worker-02", "worker-03"], cpu=8, memory=32)
    workers = nodes[1:]
    media = inc.deploy(
        "web",
        "media-proxy",
        "harbor.acme.lan/web/media-proxy:1.3.2",
        workers[:1],
        1,
        cpu="200m",
        memory="256Mi",
        age="6h",
    )[0]
    inc.liveness(
        media,
        f'Liveness probe failed: Get "http://{media["ip"]}:8080/healthz": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)",
        restarts=14,
        logs=inc.stamp(
            1.5,
            [
                "{t} INFO  media-proxy 1.3.2 listening on :8080",
            ],
        ),
        previous_logs=inc.stamp(
            9.0,
            [
                "{t} INFO  media-proxy 1.3.2 listening on :8080",
                "{t} WARN  upstream pool: all 64 connections busy, waiting",
                "{t} WARN  upstream pool: waited 30s for a connection (goroutines: 4109)",
            ],
            step=120,
        ),
    )
    thumbs = inc.deploy(
        "web",
        "thumbnail-worker",
        "harbor.acme.lan/web/thumbnail-worker:2.0.1",
        workers[1:],
        2,
        stack="python",
        cpu="250m",
        memory="512Mi",
        age="3d",
    )
    thumbs[0]["age"] = "50m"
    inc.evicted(
        thumbs[0], 'Container thumbnail-worker exceeded its local ephemeral storage limit "1Gi". ', when=17
    )
    thumbs[1]["age"] = "17m"
    inc.deploy(
        "web",
        "storefront-ui",
        "harbor.acme.lan/web/storefront-ui:8.2.0",
        workers,
        3,
        stack="node",
        cpu="600m",
        memory="256Mi",
        age="6d",
    )
    export = inc.deploy(
        "web",
        "pdf-export",
        "harbor.acme.lan/web/pdf-export:0.9.0",
        workers,
        1,
        stack="node",
        cpu="1",
        memory="512Mi",
        age="22m",
    )[0]
    inc.quota_blocked(export, "web-cpu", "requests.cpu", "1", "3")
    inc.bad(media, "liveness_probe_failure", "Container media-proxy failed liveness probe, will be restarted")
    inc.bad(
        thumbs[0], "evicted", 'Container thumbnail-worker exceeded its local ephemeral storage limit "1Gi"'
    )
    inc.bad(export, "quota_exceeded", "exceeded quota: web-cpu, requested: requests.cpu=1")
    inc.allow(thumbs[1])
    return inc


# -- writing ------------------------------------------------------------------------------------------------------


def build() -> list[Incident]:
    """Every incident, checked; SystemExit naming what is wrong when one fails its checks."""
    incidents = [make() for make in INCIDENTS]
    problems = []
    ids = [inc.ident for inc in incidents]
    if len(set(ids)) != len(ids):
        problems.append("two incidents share an id")
    for inc in incidents:
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", inc.ident):
            problems.append(f"{inc.ident}: the id is not kebab-case")
        problems += [f"{inc.ident}: {problem}" for problem in inc.check()]
    if problems:
        raise SystemExit("the corpus has problems:\n  " + "\n  ".join(problems))
    return incidents


def dump(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def write(out: Path, incidents: list[Incident]) -> None:
    """(Re)write the corpus under `out`; folders of incidents that no longer exist are removed."""
    out.mkdir(parents=True, exist_ok=True)
    current = {inc.ident for inc in incidents}
    for folder in sorted(out.iterdir()):
        if (
            folder.is_dir()
            and folder.name not in current
            and {p.name for p in folder.iterdir()} <= set(FILES)
        ):
            shutil.rmtree(folder)
    for inc in incidents:
        folder = out / inc.ident
        folder.mkdir(exist_ok=True)
        (folder / "cluster.json").write_text(dump(inc.fixture()), encoding="utf-8")
        (folder / "truth.json").write_text(dump(inc.truth()), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"the corpus folder (default: {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)
    incidents = build()
    write(args.out, incidents)
    resources = sum(len(inc.unhealthy) for inc in incidents)
    print(f"wrote {len(incidents)} incidents ({resources} unhealthy resources) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
