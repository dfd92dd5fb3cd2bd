"""What redaction costs on a large result, in the shapes the real servers print a namespace's pods.

    python -m k8s_agent.bench.redaction [--pods N ...] [--rounds R]

Each pod has two containers with env entries (one under a secret name, one not) and the service
account mount every real pod has. Per shape and size it prints the whole redaction's time (the
best of R rounds, a fresh redactor each, so nothing is served from its memo), the share of it spent
reading the text as Kubernetes objects (`shapes/secrets.py`: parsing YAML or JSON and walking the
objects), and MB per second; and checks that every planted secret is gone.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Callable
from typing import Any

import yaml

from k8s_agent_harness.evidence.redact import Redactor
from k8s_agent_harness.evidence.shapes.secrets import text_targets

SECRET = "pl4nted-{n}-Zk8qW"


def pod(n: int) -> dict[str, Any]:
    containers = [
        {
            "name": name,
            "image": f"registry.example.com/{name}:v1.{n % 7}",
            "env": [
                {"name": "DB_HOST", "value": "postgres.production.svc.cluster.local"},
                {"name": "DB_PASSWORD", "value": SECRET.format(n=n)},
                {"name": "API_KEY", "valueFrom": {"secretKeyRef": {"name": "api", "key": "key"}}},
            ],
            "volumeMounts": [
                {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access"}
            ],
        }
        for name in ("app", "sidecar")
    ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"web-{n:05d}", "namespace": "production", "labels": {"app": "web"}},
        "spec": {"containers": containers, "nodeName": f"node-{n % 12}"},
        "status": {"phase": "Running", "podIP": f"10.0.{n // 250}.{n % 250}"},
    }


def shapes(pods: int) -> dict[str, str]:
    items = [pod(n) for n in range(pods)]
    listed = {"apiVersion": "v1", "kind": "List", "items": items}
    table = "NAMESPACE   NAME   READY   STATUS   RESTARTS   AGE\n" + "".join(
        f"production   web-{n:05d}   2/2   Running   0   5d\n" for n in range(pods)
    )
    return {
        "YAML (kubernetes-mcp-server)": yaml.safe_dump(listed, sort_keys=False),
        "JSON (kubectl -o json)": json.dumps(listed, indent=4),
        "table": table,
    }


def redacted(text: str) -> str:
    return Redactor().text(text)


def best(rounds: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m k8s_agent.bench.redaction", description=__doc__)
    parser.add_argument("--pods", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    print("| shape | pods | MB | redaction s | of which reading objects | MB/s | secrets left |")
    print("|---|---|---|---|---|---|---|")
    for pods in options.pods:
        for shape, text in shapes(pods).items():
            size = len(text.encode()) / 1e6
            whole = best(options.rounds, functools.partial(redacted, text))
            reading = best(options.rounds, functools.partial(text_targets, text))
            clean = Redactor().text(text)
            left = sum(SECRET.format(n=n) in clean for n in range(pods))
            print(
                f"| {shape} | {pods:,} | {size:.2f} | {whole:.3f} | {reading / whole:.0%} | "
                f"{size / whole:.1f} | {left} |"
            )


if __name__ == "__main__":
    main()
