"""Build the held-out incident corpus of the eval harness: incidents written apart from the main corpus
(k8s_agent/eval/corpus) and from the offline model's rules, to measure a model tuned on the main corpus
out of sample. Same formats: one folder per incident with `cluster.json` and `truth.json`.

    .venv/bin/python scripts/build_holdout_corpus.py [--out DIR]     (default: k8s_agent/eval/holdout)

The builder (`Incident`: pod names of replica sets, kubelet and scheduler events, fixed clocks) and its
checks are imported from scripts/build_eval_corpus.py; the incidents here use other namespaces, other
questions, other log styles (JSON logs, Go panics, Python tracebacks, Java stack traces) and other
combinations. Deterministic: two runs write the same bytes. tests/eval/test_corpus.py checks the output.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any


def _load_builder() -> ModuleType:
    path = Path(__file__).resolve().parent / "build_eval_corpus.py"
    spec = importlib.util.spec_from_file_location("build_eval_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_eval_corpus", module)
    spec.loader.exec_module(module)
    return module


corpus = _load_builder()
Incident = corpus.Incident
OOM_FACT: str = corpus.OOM_FACT
NOT_READY_503: str = corpus.NOT_READY_503
NO_VICTIMS: str = corpus.NO_VICTIMS
NOT_HELPFUL: str = corpus.NOT_HELPFUL
scheduler = corpus.scheduler
not_found = corpus.not_found
uid = corpus.uid

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "k8s_agent" / "eval" / "holdout"

INCIDENTS: list[Callable[[], Any]] = []


def incident(build: Callable[[], Any]) -> Callable[[], Any]:
    INCIDENTS.append(build)
    return build


# -- a crash loop on a file the mounted secret does not have ---------------------------------------------


@incident
def crashloop_secret_file_absent() -> Any:
    inc = Incident(
        "crashloop-secret-file-absent",
        scope="identity",
        question="Something is off with identity since the last deploy, can you check?",
        summary="token-service 4.0.0 reads its signing key from /etc/token-service/keys/signing.pem, but the "
        "mounted secret only holds tls.key: the new pod exits at start-up, the old replicas still serve.",
        tags=["crashloop", "config", "secret", "rollout", "json-logs"],
        cluster="auth-prod-weu",
    )
    nodes = inc.aks(3, pool="apps")
    image = "acmeauth.azurecr.io/identity/token-service"
    inc.deploy(
        "identity",
        "token-service",
        f"{image}:3.9.2",
        nodes,
        2,
        stack="zap",
        cpu="150m",
        memory="192Mi",
        age="8d",
        revision="11",
    )
    new = inc.deploy(
        "identity",
        "token-service",
        f"{image}:4.0.0",
        nodes[2:],
        1,
        stack="zap",
        cpu="150m",
        memory="192Mi",
        age="26m",
        revision="12",
    )[0]
    inc.crashloop(
        new,
        inc.stamp(
            1.3,
            [
                '{"level":"info","ts":"{t}","caller":"cmd/token-service/main.go:58","msg":"starting","service":"token-service","version":"4.0.0"}',
                '{"level":"info","ts":"{t}","caller":"keys/loader.go:41","msg":"loading signing keys","dir":"/etc/token-service/keys"}',
                '{"level":"fatal","ts":"{t}","caller":"cmd/token-service/main.go:77","msg":"cannot load signing key","error":"open /etc/token-service/keys/signing.pem: no such file or directory","stacktrace":"main.main\\n\\t/src/cmd/token-service/main.go:77\\nruntime.main\\n\\t/usr/local/go/src/runtime/proc.go:271"}',
            ],
            "isoms",
            step=0.2,
        ),
        restarts=9,
        crashed=1.3,
    )
    inc.deploy(
        "identity",
        "user-directory",
        "acmeauth.azurecr.io/identity/user-directory:2.4.1",
        nodes,
        2,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="8d",
    )
    inc.deploy(
        "identity",
        "login-ui",
        "acmeauth.azurecr.io/identity/login-ui:7.1.0",
        nodes,
        2,
        stack="nginx",
        cpu="50m",
        memory="64Mi",
        age="8d",
    )
    inc.deploy(
        "identity",
        "session-store",
        "redis:7.2.5",
        nodes[1:2],
        1,
        kind="statefulset",
        stack="redis",
        cpu="100m",
        memory="256Mi",
        age="34d",
    )
    inc.bad(
        new,
        "crash_config",
        "open /etc/token-service/keys/signing.pem: no such file or directory",
        accept=["crash_application", "missing_config_reference"],
    )
    return inc


# -- an OOMKilled batch worker -----------------------------------------------------------------------------


@incident
def oomkilled_rollup_worker() -> Any:
    inc = Incident(
        "oomkilled-rollup-worker",
        scope="analytics-prod",
        question="Daily rollups in analytics-prod are hours behind. What is going on?",
        summary="Both rollup-worker replicas are killed for exceeding their 3Gi memory limit while pivoting "
        "a large tenant's day of events; the rest of analytics-prod is fine.",
        tags=["oom", "worker", "python"],
        cluster="analytics-prod",
    )
    nodes = inc.gke(3, cluster="analytics-prod", machine="n2-highmem-4", memory=32, region="us-central1")
    day = inc.at(1440).date().isoformat()

    def run(mins: float, task: str) -> list[str]:
        return inc.stamp(
            mins,
            [
                f"[{{t}}: INFO/MainProcess] Task rollups.tasks.build_daily[{task}] received",
                f"[{{t}}: INFO/ForkPoolWorker-1] build_daily: tenant=northwind day={day} loading 418 parquet files from gs://analytics-prod-lake/events/",
                "[{t}: INFO/ForkPoolWorker-1] build_daily: frame loaded, 61204881 rows, 2.61 GiB resident",
                "[{t}: WARNING/ForkPoolWorker-1] build_daily: pivoting on session_id, 61204881 rows x 37 columns",
            ],
            "pylog",
            step=9,
        )

    workers = inc.deploy(
        "analytics-prod",
        "rollup-worker",
        "us-docker.pkg.dev/analytics-prod/images/rollup-worker:2026.12.2",
        nodes,
        2,
        stack="worker",
        cpu="500m",
        memory="1536Mi",
        limit_memory="3Gi",
        age="2h40m",
        revision="31",
    )
    first, second = workers
    task1, task2 = uid(inc.ident, "task", 1), uid(inc.ident, "task", 2)
    inc.oom(
        first,
        run(3.2, task1),
        restarts=6,
        crashed=3.2,
        ran=0.9,
        running=True,
        startup=inc.stamp(
            0.4,
            [
                "[{t}: INFO/MainProcess] Connected to redis://redis.analytics-prod.svc.cluster.local:6379/0",
                f"[{{t}}: INFO/MainProcess] celery@{first['name']} ready.",
                f"[{{t}}: INFO/MainProcess] Task rollups.tasks.build_daily[{task1}] received",
            ],
            "pylog",
            step=2,
        ),
    )
    inc.oom(second, run(2.1, task2), restarts=7, crashed=2.1, ran=0.8)
    inc.deploy(
        "analytics-prod",
        "event-collector",
        "us-docker.pkg.dev/analytics-prod/images/event-collector:1.18.3",
        nodes,
        3,
        cpu="200m",
        memory="256Mi",
        age="6d",
    )
    inc.deploy(
        "analytics-prod",
        "query-api",
        "us-docker.pkg.dev/analytics-prod/images/query-api:4.2.0",
        nodes,
        2,
        stack="java",
        cpu="500m",
        memory="1536Mi",
        age="6d",
    )
    inc.deploy(
        "analytics-prod",
        "superset",
        "apache/superset:4.0.2",
        nodes[1:2],
        1,
        stack="python",
        port=8088,
        cpu="300m",
        memory="1Gi",
        age="19d",
    )
    inc.deploy(
        "analytics-prod",
        "redis",
        "redis:7.2.5",
        nodes[2:],
        1,
        kind="statefulset",
        stack="redis",
        cpu="100m",
        memory="512Mi",
        age="19d",
    )
    for pod in workers:
        inc.bad(pod, "oom_killed", OOM_FACT)
    return inc


# -- an image pulled from a misspelt registry host ---------------------------------------------------------


@incident
def image_registry_host_misspelt() -> Any:
    inc = Incident(
        "image-registry-host-misspelt",
        scope="ops",
        question="The new alert-router in ops never came up. What's wrong?",
        summary="The alert-router 2.6.0 rollout names the registry habor.corp.example.net instead of "
        "harbor.corp.example.net; the host does not resolve and the pull fails. The old replicas serve.",
        tags=["image", "dns", "rollout", "bare-metal"],
        cluster="ops-dc1",
    )
    nodes = inc.metal(["cp-01", "wrk-01", "wrk-02", "wrk-03"])
    workers = nodes[1:]
    inc.deploy(
        "ops",
        "alert-router",
        "harbor.corp.example.net/platform/alert-router:2.5.3",
        workers,
        2,
        cpu="100m",
        memory="128Mi",
        age="15d",
        revision="8",
    )
    image = "habor.corp.example.net/platform/alert-router:2.6.0"
    new = inc.deploy(
        "ops", "alert-router", image, workers[2:], 1, cpu="100m", memory="128Mi", age="19m", revision="9"
    )[0]
    inc.image_pull(
        new,
        (
            f'rpc error: code = Unknown desc = failed to pull and unpack image "{image}": failed to resolve reference '
            f'"{image}": failed to do request: Head "https://habor.corp.example.net/v2/platform/alert-router/manifests/2.6.0": '
            "dial tcp: lookup habor.corp.example.net on 192.168.40.2:53: no such host"
        ),
        status="ErrImagePull",
        tries=6,
    )
    inc.deploy(
        "ops",
        "prometheus",
        "quay.io/prometheus/prometheus:v2.54.1",
        workers[:1],
        1,
        kind="statefulset",
        port=9090,
        cpu="500m",
        memory="2Gi",
        age="15d",
    )
    inc.deploy(
        "ops",
        "grafana",
        "grafana/grafana:11.2.0",
        workers[1:2],
        1,
        port=3000,
        cpu="100m",
        memory="256Mi",
        age="15d",
    )
    inc.daemons(workers, which=("fluent-bit",))
    inc.bad(
        new,
        "image_pull_failed",
        "lookup habor.corp.example.net on 192.168.40.2:53: no such host",
        accept=["image_not_found"],
    )
    return inc


# -- pending for a GPU ---------------------------------------------------------------------------------------


@incident
def pending_gpu_capacity() -> Any:
    inc = Incident(
        "pending-gpu-capacity",
        scope="vision",
        question="Why won't the new detector pods in vision start?",
        summary="detector asks for one nvidia.com/gpu per replica; the only GPU node's single GPU is taken by "
        "embedder, so both replicas stay Pending.",
        tags=["pending", "scheduling", "gpu"],
        cluster="vision-prod-usw2",
    )
    general = inc.eks(2, region="us-west-2", group="general")
    gpu = inc.eks(
        1,
        region="us-west-2",
        group="gpu",
        instance="g5.xlarge",
        labels={"nvidia.com/gpu.present": "true"},
    )
    node = inc.find_node(gpu[0])
    node["capacity"]["nvidia.com/gpu"] = "1"
    node["allocatable"]["nvidia.com/gpu"] = "1"
    embedder = inc.deploy(
        "vision",
        "embedder",
        "123456789012.dkr.ecr.us-west-2.amazonaws.com/vision/embedder:0.14.0",
        gpu,
        1,
        stack="python",
        cpu="2",
        memory="8Gi",
        limit_memory="12Gi",
        age="11d",
    )[0]
    detectors = inc.deploy(
        "vision",
        "detector",
        "123456789012.dkr.ecr.us-west-2.amazonaws.com/vision/detector:1.0.0",
        gpu,
        2,
        stack="python",
        cpu="1",
        memory="6Gi",
        limit_memory="10Gi",
        age="41m",
    )
    for pod in [embedder, *detectors]:
        pod["containers"][0]["requests"]["nvidia.com/gpu"] = "1"
        pod["containers"][0]["limits"]["nvidia.com/gpu"] = "1"
    message = scheduler(
        3,
        "3 Insufficient nvidia.com/gpu",
        "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling",
    )
    for pod in detectors:
        inc.unschedulable(pod, message)
    inc.deploy(
        "vision",
        "vision-api",
        "123456789012.dkr.ecr.us-west-2.amazonaws.com/vision/vision-api:3.3.1",
        general,
        2,
        stack="zap",
        cpu="200m",
        memory="256Mi",
        age="11d",
    )
    inc.deploy(
        "vision",
        "label-studio",
        "heartexlabs/label-studio:1.13.1",
        general[1:],
        1,
        stack="python",
        port=8080,
        cpu="250m",
        memory="1Gi",
        age="30d",
    )
    inc.deploy(
        "kube-system",
        "nvidia-device-plugin-daemonset",
        "nvcr.io/nvidia/k8s-device-plugin:v0.16.2",
        gpu,
        1,
        kind="daemonset",
        stack="batch",
        container="nvidia-device-plugin-ctr",
        cpu="50m",
        memory="64Mi",
        age="11d",
        logs=inc.stamp(
            15840,
            [
                "I{t}       1 main.go:279] Retrieving plugins.",
                "I{t}       1 factory.go:104] Detected NVML platform: found NVML library",
                "I{t}       1 server.go:216] Starting GRPC server for 'nvidia.com/gpu'",
                "I{t}       1 server.go:147] Starting to serve 'nvidia.com/gpu' on /var/lib/kubelet/device-plugins/nvidia-gpu.sock",
                "I{t}       1 server.go:154] Registered device plugin for 'nvidia.com/gpu' with Kubelet",
            ],
            "klog",
        ),
    )
    inc.daemons(general + gpu)
    for pod in detectors:
        inc.bad(pod, "insufficient_resources", "3 Insufficient nvidia.com/gpu")
    return inc


# -- a dependency down, and the services that need it not ready --------------------------------------------


@incident
def cascade_redis_aof_corrupt() -> Any:
    inc = Incident(
        "cascade-redis-aof-corrupt",
        scope="billing",
        question="What's broken in billing right now?",
        summary="billing-cache (Redis) crash-loops on a corrupt append-only file after its node was drained; "
        "invoice-api and usage-meter run but are not ready because they cannot reach it.",
        tags=["cascade", "dependency", "crashloop", "running-not-ready", "java-stacktrace"],
        cluster="billing-prod",
    )
    nodes = inc.eks(3, region="us-east-2", group="billing")
    cache = inc.deploy(
        "billing",
        "billing-cache",
        "redis:7.2.5",
        nodes[1:2],
        1,
        kind="statefulset",
        stack="redis",
        cpu="200m",
        memory="1Gi",
        age="26m",
    )[0]
    inc.crashloop(
        cache,
        inc.stamp(
            0.9,
            [
                "1:C {t} * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo",
                "1:C {t} * Redis version=7.2.5, bits=64, commit=00000000, modified=0, pid=1, just started",
                "1:C {t} * Configuration loaded",
                "1:M {t} * monotonic clock: POSIX clock_gettime",
                "1:M {t} * Running mode=standalone, port=6379.",
                "1:M {t} * Server initialized",
                "1:M {t} * Reading RDB base file on AOF loading...",
                "1:M {t} * Loading RDB produced by version 7.2.5",
                "1:M {t} * RDB is base AOF",
                "1:M {t} # Bad file format reading the append only file appendonly.aof.41.incr.aof, make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>",
            ],
            "redis",
            step=0.1,
        ),
        restarts=9,
        crashed=0.9,
    )
    address = "billing-cache.billing.svc.cluster.local/172.20.63.118:6379"
    invoices = inc.deploy(
        "billing",
        "invoice-api",
        "registry.billing.example.com/billing/invoice-api:6.4.2",
        nodes,
        2,
        stack="java",
        cpu="300m",
        memory="1Gi",
        age="12d",
    )
    for pod in invoices:
        inc.not_ready(
            pod,
            NOT_READY_503,
            since=24,
            logs=pod["containers"][0]["logs"]
            + inc.stamp(
                1.2,
                [
                    "{t} ERROR 1 --- [invoice-api] [nio-8080-exec-4] o.s.b.a.data.redis.RedisHealthIndicator  : Redis health check failed",
                    "org.springframework.data.redis.RedisConnectionFailureException: Unable to connect to Redis",
                    "\tat org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory$ExceptionTranslatingConnectionProvider.translateException(LettuceConnectionFactory.java:1805)",
                    "\tat org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory$ExceptionTranslatingConnectionProvider.getConnection(LettuceConnectionFactory.java:1736)",
                    "\tat org.springframework.boot.actuate.data.redis.RedisHealthIndicator.doHealthCheck(RedisHealthIndicator.java:56)",
                    f"Caused by: io.lettuce.core.RedisConnectionException: Unable to connect to {address}",
                    "\tat io.lettuce.core.RedisConnectionException.create(RedisConnectionException.java:78)",
                    "\t... 48 common frames omitted",
                    f"Caused by: io.netty.channel.AbstractChannel$AnnotatedConnectException: Connection refused: {address}",
                ],
                "isoms",
            ),
        )
    refused = "dial tcp 172.20.63.118:6379: connect: connection refused"
    meter = inc.deploy(
        "billing",
        "usage-meter",
        "registry.billing.example.com/billing/usage-meter:2.9.0",
        nodes[2:],
        1,
        stack="zap",
        cpu="150m",
        memory="192Mi",
        age="12d",
    )[0]
    inc.not_ready(
        meter,
        NOT_READY_503,
        since=25,
        logs=meter["containers"][0]["logs"]
        + inc.stamp(
            1.5,
            [
                f'{{"level":"error","ts":"{{t}}","caller":"store/redis.go:88","msg":"redis ping","addr":"billing-cache.billing.svc.cluster.local:6379","error":"{refused}"}}',
                '{"level":"warn","ts":"{t}","caller":"httpserver/health.go:31","msg":"readyz","status":503,"failing":["redis"]}',
            ],
            "isoms",
            step=4,
        ),
    )
    inc.deploy(
        "billing",
        "billing-web",
        "registry.billing.example.com/billing/billing-web:9.1.0",
        nodes,
        2,
        stack="node",
        cpu="100m",
        memory="256Mi",
        age="12d",
    )
    inc.deploy(
        "billing",
        "stripe-webhooks",
        "registry.billing.example.com/billing/stripe-webhooks:1.7.3",
        nodes[:1],
        1,
        stack="python",
        cpu="100m",
        memory="256Mi",
        age="12d",
    )
    inc.bad(
        cache,
        "crash_application",
        "Bad file format reading the append only file appendonly.aof.41.incr.aof",
        accept=["crash_config"],
    )
    for pod in invoices:
        inc.bad(pod, "dependency_down", f"Unable to connect to {address}")
    inc.bad(meter, "dependency_down", refused)
    return inc


# -- a liveness failure --------------------------------------------------------------------------------------


@incident
def liveness_fd_exhaustion() -> Any:
    inc = Incident(
        "liveness-fd-exhaustion",
        scope="edge",
        question="Users report 502s from edge. Why?",
        summary="Two edge-gateway replicas leak connections until accept fails with 'too many open files'; "
        "their liveness probe then times out and kubelet restarts them, and the ingress answers 502 meanwhile.",
        tags=["liveness", "restarts", "go"],
        cluster="edge-prod",
    )
    nodes = inc.gke(3, cluster="edge-prod", region="us-central1")
    gateways = inc.deploy(
        "edge",
        "edge-gateway",
        "us-docker.pkg.dev/edge-prod/images/edge-gateway:1.31.0",
        nodes,
        3,
        cpu="300m",
        memory="256Mi",
        age="5h",
        revision="44",
    )
    sick = gateways[:2]
    for restarts, pod in zip((3, 2), sick, strict=True):
        ip = pod["ip"]
        leak = inc.stamp(
            14,
            [
                "{t} edge-gateway 1.31.0 (commit 5d01e7a) listening on :8080",
                "{t} upstream pool quotes-backend: 64 idle, 0 in use",
            ],
            "slash",
        ) + inc.stamp(
            3.6,
            [
                "{t} proxy: dial tcp 10.244.2.41:9000: socket: too many open files",
                "{t} http: Accept error: accept tcp [::]:8080: accept4: too many open files; retrying in 1s",
                "{t} http: Accept error: accept tcp [::]:8080: accept4: too many open files; retrying in 1s",
            ],
            "slash",
            step=6,
        )
        inc.liveness(
            pod,
            f'Liveness probe failed: Get "http://{ip}:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            restarts=restarts,
            logs=inc.stamp(1.6, ["{t} edge-gateway 1.31.0 (commit 5d01e7a) listening on :8080"], "slash"),
            previous_logs=leak,
        )
    upstreams = [pod["ip"] for pod in sick]
    controller = inc.deploy(
        "ingress-nginx",
        "ingress-nginx-controller",
        "registry.k8s.io/ingress-nginx/controller:v1.11.2",
        nodes[:2],
        2,
        stack="nginx",
        container="controller",
        port=80,
        cpu="100m",
        memory="90Mi",
        age="22d",
    )
    for n, pod in enumerate(controller):
        error = f'{{t}} [error] 31#31: *{88412 + n * 977} connect() failed (111: Connection refused) while connecting to upstream, client: 203.0.113.{7 + n}, server: api.edge.example.com, request: "GET /v2/quotes HTTP/2.0", upstream: "http://{upstreams[n]}:8080/v2/quotes", host: "api.edge.example.com"'
        access = f'203.0.113.{7 + n} - - [{{t}}] "GET /v2/quotes HTTP/2.0" 502 150 "-" "okhttp/4.12.0" 41 0.001 [edge-edge-gateway-8080] [] {upstreams[n]}:8080 0 0.001 502 {uid(inc.ident, n)[:32].replace("-", "")}'
        pod["containers"][0]["logs"] = inc.stamp(3.1 + n, [error], "slash") + inc.stamp(
            3.1 + n, [access], "nginx"
        )
    inc.deploy(
        "edge",
        "geo-lookup",
        "us-docker.pkg.dev/edge-prod/images/geo-lookup:0.8.4",
        nodes,
        2,
        stack="python",
        cpu="100m",
        memory="256Mi",
        age="9d",
    )
    inc.deploy(
        "edge",
        "rate-limiter",
        "envoyproxy/ratelimit:3e085e5b",
        nodes[1:],
        1,
        cpu="50m",
        memory="64Mi",
        age="9d",
    )
    for pod in sick:
        inc.bad(
            pod, "liveness_probe_failure", "Container edge-gateway failed liveness probe, will be restarted"
        )
    inc.allow(gateways[2])
    return inc


# -- an init container failing on a migration --------------------------------------------------------------


@incident
def init_alembic_migration() -> Any:
    inc = Incident(
        "init-alembic-migration",
        scope="crm",
        question="crm-api has been stuck since the release went out. Can you take a look?",
        summary="crm-api 5.3.0's alembic-upgrade init container fails: the migration updates a column "
        "(contacts.owner_id) that no earlier migration created, so the app container never starts.",
        tags=["init", "migration", "python-traceback"],
        cluster="crm-prod",
    )
    nodes = inc.aks(3, pool="crm")
    image = "acmecrm.azurecr.io/crm/crm-api"
    inc.deploy(
        "crm",
        "crm-api",
        f"{image}:5.2.4",
        nodes,
        2,
        stack="python",
        cpu="250m",
        memory="512Mi",
        age="7d",
        revision="40",
    )
    new = inc.deploy(
        "crm",
        "crm-api",
        f"{image}:5.3.0",
        nodes[1:2],
        1,
        stack="python",
        cpu="250m",
        memory="512Mi",
        age="33m",
        revision="41",
    )[0]
    error = 'column "owner_id" of relation "contacts" does not exist'
    inc.init_failure(
        new,
        "alembic-upgrade",
        f"{image}:5.3.0",
        [
            "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.",
            "INFO  [alembic.runtime.migration] Will assume transactional DDL.",
            "INFO  [alembic.runtime.migration] Running upgrade 7f3c2a91d0b4 -> 9a1e5d03c6f2, backfill contact owner",
            "Traceback (most recent call last):",
            '  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/base.py", line 1967, in _exec_single_context',
            "    self.dialect.do_execute(",
            '  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/default.py", line 924, in do_execute',
            "    cursor.execute(statement, parameters)",
            f"psycopg2.errors.UndefinedColumn: {error}",
            "LINE 1: UPDATE contacts SET owner_id=accounts.owner_id FROM accounts WHERE ...",
            "                            ^",
            "The above exception was the direct cause of the following exception:",
            "Traceback (most recent call last):",
            '  File "/usr/local/bin/alembic", line 8, in <module>',
            "    sys.exit(main())",
            '  File "/app/migrations/versions/9a1e5d03c6f2_backfill_contact_owner.py", line 21, in upgrade',
            '    op.execute("UPDATE contacts SET owner_id=accounts.owner_id FROM accounts WHERE contacts.account_id=accounts.id")',
            f"sqlalchemy.exc.ProgrammingError: (psycopg2.errors.UndefinedColumn) {error}",
        ],
        restarts=8,
    )
    inc.deploy(
        "crm",
        "crm-db",
        "postgres:16.4",
        nodes[2:],
        1,
        kind="statefulset",
        stack="postgres",
        cpu="500m",
        memory="2Gi",
        age="61d",
    )
    inc.deploy(
        "crm",
        "crm-web",
        "acmecrm.azurecr.io/crm/crm-web:12.0.1",
        nodes,
        2,
        stack="node",
        cpu="100m",
        memory="256Mi",
        age="7d",
    )
    inc.deploy(
        "crm",
        "crm-worker",
        f"{image}:5.2.4",
        nodes[:1],
        1,
        stack="worker",
        cpu="200m",
        memory="512Mi",
        age="7d",
    )
    inc.bad(new, "init_container_failure", error)
    return inc


# -- a CronJob run that reached its backoff limit ------------------------------------------------------------


@incident
def cronjob_export_denied() -> Any:
    inc = Incident(
        "cronjob-export-denied",
        scope="reporting",
        question="This morning's finance export is missing. Did something go wrong in reporting?",
        summary="All three attempts of today's ledger-export run fail writing to S3 (403 Access Denied); the job "
        "reached its backoff limit. The runs of the two days before completed.",
        tags=["job", "java-stacktrace"],
        cluster="reporting-prod",
    )
    nodes = inc.eks(3, group="batch", instance="c6i.xlarge")
    image = "registry.reports.example.org/reporting/ledger-export:3.0.1"
    for days in (2, 1):
        inc.job("reporting", "ledger-export", image, nodes[days], runs_ago=days * 1440 + 50, duration=1)
    run_date = inc.at(50).date().isoformat()

    def denied(started: float) -> list[str]:
        request = uid(inc.ident, started)[:16].upper()
        return inc.stamp(
            started,
            [
                f"{{t}}  INFO 1 --- [ledger-export] [           main] o.s.b.c.l.support.TaskExecutorJobLauncher : Job: [SimpleJob: [name=ledgerExportJob]] launched with the following parameters: [{{'run.date':'{run_date}'}}]",
                "{t}  INFO 1 --- [ledger-export] [           main] o.s.batch.core.job.SimpleStepHandler     : Executing step: [exportLedgerStep]",
                "{t} ERROR 1 --- [ledger-export] [           main] o.s.batch.core.step.AbstractStep         : Encountered an error executing step exportLedgerStep in job ledgerExportJob",
                f"software.amazon.awssdk.services.s3.model.S3Exception: Access Denied (Service: S3, Status Code: 403, Request ID: {request})",
                "\tat software.amazon.awssdk.services.s3.model.S3Exception$BuilderImpl.build(S3Exception.java:104)",
                "\tat com.acme.reporting.export.S3LedgerWriter.write(S3LedgerWriter.java:61)",
                "\tat org.springframework.batch.core.step.item.SimpleChunkProcessor.writeItems(SimpleChunkProcessor.java:203)",
                f"{{t}}  INFO 1 --- [ledger-export] [           main] o.s.b.c.l.support.TaskExecutorJobLauncher : Job: [SimpleJob: [name=ledgerExportJob]] completed with the following parameters: [{{'run.date':'{run_date}'}}] and the following status: [FAILED] in 41s203ms",
            ],
            "isoms",
            step=10,
        )

    runs = inc.job(
        "reporting",
        "ledger-export",
        image,
        nodes[0],
        runs_ago=50,
        attempts=3,
        failed=True,
        logs=denied,
        duration=1,
    )
    inc.deploy(
        "reporting",
        "report-api",
        "registry.reports.example.org/reporting/report-api:1.12.0",
        nodes,
        2,
        cpu="150m",
        memory="192Mi",
        age="16d",
    )
    inc.deploy(
        "reporting",
        "pdf-renderer",
        "registry.reports.example.org/reporting/pdf-renderer:4.1.2",
        nodes[1:],
        1,
        stack="node",
        cpu="250m",
        memory="512Mi",
        age="16d",
    )
    inc.deploy(
        "reporting",
        "superset",
        "apache/superset:4.0.2",
        nodes[2:],
        1,
        stack="python",
        port=8088,
        cpu="300m",
        memory="1Gi",
        age="16d",
    )
    for pod in runs:
        inc.bad(
            pod,
            "job_backoff_limit",
            "Job has reached the specified backoff limit",
            accept=["crash_application"],
        )
    return inc


# -- a node NotReady -----------------------------------------------------------------------------------------


@incident
def node_stopped_reporting() -> Any:
    inc = Incident(
        "node-stopped-reporting",
        scope="nodes",
        question="The dashboard shows one node missing. Which node is it, and what runs on it?",
        summary="wrk-a2 stopped posting status three minutes ago (NotReady, every condition Unknown); the pods "
        "on it are marked not ready. The other nodes are fine.",
        tags=["node", "not-ready", "bare-metal", "multi-namespace"],
        cluster="dc2-prod",
    )
    nodes = inc.metal(["cp-01", "wrk-a1", "wrk-a2", "wrk-a3"])
    workers = nodes[1:]
    inc.daemons(nodes)
    inc.deploy(
        "identity",
        "user-directory",
        "harbor.dc2.example.net/identity/user-directory:2.4.1",
        workers,
        3,
        stack="java",
        cpu="250m",
        memory="768Mi",
        age="13d",
    )
    inc.deploy(
        "billing",
        "usage-meter",
        "harbor.dc2.example.net/billing/usage-meter:2.9.0",
        workers[1:],
        2,
        stack="zap",
        cpu="150m",
        memory="192Mi",
        age="13d",
    )
    inc.deploy(
        "ops",
        "grafana",
        "grafana/grafana:11.2.0",
        workers[:1],
        1,
        port=3000,
        cpu="100m",
        memory="256Mi",
        age="27d",
    )
    lost = workers[1]
    affected = inc.node_not_ready(lost, since=3.1)
    inc.bad(lost, "node_not_ready", f"Node {lost} status is now: NodeNotReady")
    for pod in affected:
        inc.bad(pod, "node_not_ready", "Node is not ready")
    return inc


# -- an all-healthy namespace with scary logs ---------------------------------------------------------------


@incident
def healthy_handled_stacktraces() -> Any:
    inc = Incident(
        "healthy-handled-stacktraces",
        scope="analytics-prod",
        question="An alert fired for analytics-prod an hour ago and the logs are full of stack traces. Is anything still broken?",
        summary="Nothing is broken in analytics-prod: the stack traces are handled errors (a recovered panic, "
        "aborted client requests, a reconnect), rollup-worker's OOM kill is two days old, the compactor runs "
        "completed. (sandbox has its own crash loop.)",
        tags=["healthy", "red-herring", "go-panic", "java-stacktrace", "python-traceback"],
        cluster="analytics-prod",
    )
    nodes = inc.gke(3, cluster="analytics-prod", machine="n2-highmem-4", memory=32, region="us-central1")
    collectors = inc.deploy(
        "analytics-prod",
        "event-collector",
        "us-docker.pkg.dev/analytics-prod/images/event-collector:1.18.3",
        nodes,
        3,
        cpu="200m",
        memory="256Mi",
        age="6d",
    )
    collectors[1]["containers"][0]["logs"] += inc.stamp(
        52,
        [
            "{t} http: panic serving 10.244.3.9:51544: runtime error: invalid memory address or nil pointer dereference",
            "goroutine 48213 [running]:",
            "net/http.(*conn).serve.func1()",
            "\t/usr/local/go/src/net/http/server.go:1903 +0xbe",
            "panic({0x1a4e2c0?, 0x2b7f6a0?})",
            "\t/usr/local/go/src/runtime/panic.go:770 +0x132",
            "github.com/acme/event-collector/internal/ingest.(*Handler).decodeBatch(0xc0001a4f00, 0x0)",
            "\t/src/internal/ingest/handler.go:142 +0x3a",
            "github.com/acme/event-collector/internal/ingest.(*Handler).ServeHTTP(0xc0001a4f00, {0x1f2c8a8, 0xc00213e0e0}, 0xc0019c6b40)",
            "\t/src/internal/ingest/handler.go:77 +0x1c5",
        ],
        "slash",
        step=0,
    ) + inc.stamp(1.4, ["{t} INFO  POST /v1/events 202 4ms"])
    queries = inc.deploy(
        "analytics-prod",
        "query-api",
        "us-docker.pkg.dev/analytics-prod/images/query-api:4.2.0",
        nodes,
        2,
        stack="java",
        cpu="500m",
        memory="1536Mi",
        age="6d",
    )
    queries[0]["containers"][0]["logs"] += inc.stamp(
        38,
        [
            "{t}  WARN 1 --- [query-api] [nio-8080-exec-6] c.a.a.api.QueryController                : query q_81f2c0 aborted by client after 28114 ms",
            "org.apache.catalina.connector.ClientAbortException: java.io.IOException: Broken pipe",
            "\tat org.apache.catalina.connector.OutputBuffer.realWriteBytes(OutputBuffer.java:341)",
            "\tat org.apache.catalina.connector.OutputBuffer.flushByteBuffer(OutputBuffer.java:778)",
            "\tat com.acme.analytics.api.QueryController.stream(QueryController.java:118)",
            "Caused by: java.io.IOException: Broken pipe",
            "\tat java.base/sun.nio.ch.SocketDispatcher.write0(Native Method)",
            "\t... 61 common frames omitted",
        ],
        "isoms",
        step=0,
    )
    superset = inc.deploy(
        "analytics-prod",
        "superset",
        "apache/superset:4.0.2",
        nodes[1:2],
        1,
        stack="python",
        port=8088,
        cpu="300m",
        memory="1Gi",
        age="19d",
    )[0]
    superset["containers"][0]["logs"] += inc.stamp(
        47,
        [
            "{t}:ERROR:superset.sql_lab:Query 88213: (psycopg2.OperationalError) server closed the connection unexpectedly",
            "Traceback (most recent call last):",
            '  File "/app/superset/sql_lab.py", line 287, in execute_sql_statement',
            "    db_engine_spec.execute(cursor, sql, database)",
            '  File "/app/superset/db_engine_specs/base.py", line 1836, in execute',
            "    cursor.execute(query)",
            "psycopg2.OperationalError: server closed the connection unexpectedly",
            "\tThis probably means the server terminated abnormally",
            "\tbefore or while processing the request.",
            "{t}:INFO:superset.sql_lab:Query 88213: retrying on a new connection",
            "{t}:INFO:superset.sql_lab:Query 88213: finished in 2.41s",
        ],
        "pylog",
        step=2,
    )
    worker = inc.deploy(
        "analytics-prod",
        "rollup-worker",
        "us-docker.pkg.dev/analytics-prod/images/rollup-worker:2026.12.3",
        nodes[2:],
        1,
        stack="worker",
        cpu="500m",
        memory="3Gi",
        limit_memory="6Gi",
        age="3d",
    )[0]
    body = worker["containers"][0]
    body["restarts"] = 1
    body["last_state"] = {
        "terminated": {
            "reason": "OOMKilled",
            "exit_code": 137,
            "started_at": inc.iso(4300),
            "finished_at": inc.iso(2990),
        }
    }
    body["state"] = {"running": {"started_at": inc.iso(2989)}}
    for days in (2, 1):
        inc.job(
            "analytics-prod",
            "partition-compactor",
            "us-docker.pkg.dev/analytics-prod/images/partition-compactor:0.9.0",
            nodes[days],
            runs_ago=days * 1440 - 200,
            duration=7,
        )
    toy = inc.deploy(
        "sandbox",
        "notebook-proxy",
        "us-docker.pkg.dev/analytics-prod/sandbox/notebook-proxy:0.0.3",
        nodes[:1],
        1,
        stack="python",
        cpu="100m",
        memory="128Mi",
        age="2h",
    )[0]
    inc.crashloop(
        toy,
        [
            "Traceback (most recent call last):",
            '  File "/app/proxy.py", line 3, in <module>',
            "    import jupyter_server_proxy",
            "ModuleNotFoundError: No module named 'jupyter_server_proxy'",
        ],
        restarts=21,
        crashed=2.2,
    )
    inc.allow(worker)
    return inc


# -- a namespace with several problems at once ---------------------------------------------------------------


@incident
def multi_import_selector_tag() -> Any:
    inc = Incident(
        "multi-import-selector-tag",
        scope="marketplace",
        question="Several things look wrong in marketplace after yesterday's changes. What needs fixing?",
        summary="Three separate problems: listing-indexer 3.1.0 crashes on an import its image lacks (orjson), "
        "seller-reports asks for a node label no node has, and price-feed names a tag that was never pushed.",
        tags=["multi", "crashloop", "pending", "image", "python-traceback"],
        cluster="market-prod-apse2",
    )
    nodes = inc.eks(3, region="ap-southeast-2", group="market")
    registry = "987654321098.dkr.ecr.ap-southeast-2.amazonaws.com/marketplace"
    indexer = inc.deploy(
        "marketplace",
        "listing-indexer",
        f"{registry}/listing-indexer:3.1.0",
        nodes[:1],
        1,
        stack="python",
        cpu="200m",
        memory="512Mi",
        age="21h",
        revision="17",
    )[0]
    inc.crashloop(
        indexer,
        [
            "Traceback (most recent call last):",
            '  File "<frozen runpy>", line 198, in _run_module_as_main',
            '  File "<frozen runpy>", line 88, in _run_code',
            '  File "/app/indexer/__main__.py", line 4, in <module>',
            "    from indexer.worker import run",
            '  File "/app/indexer/worker.py", line 9, in <module>',
            "    import orjson",
            "ModuleNotFoundError: No module named 'orjson'",
        ],
        restarts=212,
        crashed=3.4,
        ran=0.02,
    )
    reports = inc.deploy(
        "marketplace",
        "seller-reports",
        f"{registry}/seller-reports:1.6.0",
        nodes,
        1,
        stack="java",
        cpu="500m",
        memory="1Gi",
        age="20h",
    )[0]
    inc.unschedulable(
        reports,
        scheduler(3, "3 node(s) didn't match Pod's node affinity/selector", NOT_HELPFUL.format(n=3)),
        count=240,
    )
    image = f"{registry}/price-feed:2.0.0-rc1"
    feed = inc.deploy(
        "marketplace", "price-feed", image, nodes[1:2], 1, stack="zap", cpu="100m", memory="128Mi", age="19h"
    )[0]
    inc.image_pull(feed, not_found(image), tries=230)
    inc.deploy(
        "marketplace",
        "marketplace-web",
        f"{registry}/marketplace-web:22.3.1",
        nodes,
        2,
        stack="node",
        cpu="150m",
        memory="256Mi",
        age="4d",
    )
    inc.deploy(
        "marketplace",
        "orders-api",
        f"{registry}/orders-api:8.0.5",
        nodes,
        2,
        stack="java",
        cpu="300m",
        memory="768Mi",
        age="4d",
    )
    inc.deploy(
        "marketplace",
        "opensearch",
        "opensearchproject/opensearch:2.17.1",
        nodes[2:],
        1,
        kind="statefulset",
        stack="opensearch",
        cpu="1",
        memory="4Gi",
        limit_memory="4Gi",
        age="40d",
    )
    inc.bad(
        indexer,
        "crash_application",
        "ModuleNotFoundError: No module named 'orjson'",
        accept=["crash_config"],
    )
    inc.bad(reports, "node_selector_mismatch", "3 node(s) didn't match Pod's node affinity/selector")
    inc.bad(feed, "image_not_found", f"{image}: not found")
    return inc


# -- a pod refused by the namespace's ResourceQuota ----------------------------------------------------------


@incident
def quota_exceeded_cpu_requests() -> Any:
    inc = Incident(
        "quota-exceeded-cpu-requests",
        scope="tenant-globex",
        question="The autoscaler says it added a report-worker replica in tenant-globex ten minutes ago, but I don't see it running. Why?",
        summary="tenant-globex's ResourceQuota caps requests.cpu at 4 and 3750m are in use: the fourth "
        "report-worker (1 CPU) is refused at admission.",
        tags=["quota", "pending", "multi-tenant"],
        cluster="saas-shared-1",
    )
    nodes = inc.eks(3, region="eu-central-1", group="tenants")
    workers = inc.deploy(
        "tenant-globex",
        "report-worker",
        "registry.saas.example.io/tenant/report-worker:5.0.2",
        nodes,
        4,
        stack="worker",
        cpu="1",
        memory="1Gi",
        age="3d",
    )
    inc.deploy(
        "tenant-globex",
        "tenant-api",
        "registry.saas.example.io/tenant/tenant-api:5.0.2",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="3d",
    )
    inc.deploy(
        "tenant-globex",
        "tenant-db",
        "postgres:16.4",
        nodes[2:],
        1,
        kind="statefulset",
        stack="postgres",
        cpu="350m",
        memory="1Gi",
        age="48d",
    )
    inc.deploy(
        "tenant-initech",
        "tenant-api",
        "registry.saas.example.io/tenant/tenant-api:5.0.2",
        nodes,
        2,
        cpu="200m",
        memory="256Mi",
        age="3d",
    )
    blocked = workers[3]
    blocked["age"] = "10m"
    inc.quota_blocked(blocked, "globex-compute", "requests.cpu", "1", "4")
    inc.bad(blocked, "quota_exceeded", "exceeded quota: globex-compute, requested: requests.cpu=1")
    return inc


# -- building and writing ------------------------------------------------------------------------------------


def build() -> list[Any]:
    """Every holdout incident, checked with the main corpus's checks; none may share an id with it."""
    incidents = [make() for make in INCIDENTS]
    main_folder = corpus.DEFAULT_OUT
    main_ids = {path.name for path in main_folder.iterdir()} if main_folder.is_dir() else set()
    problems = []
    ids = [inc.ident for inc in incidents]
    if len(set(ids)) != len(ids):
        problems.append("two incidents share an id")
    for inc in incidents:
        if inc.ident in main_ids:
            problems.append(f"{inc.ident}: the main corpus has an incident of that id")
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", inc.ident):
            problems.append(f"{inc.ident}: the id is not kebab-case")
        problems += [f"{inc.ident}: {problem}" for problem in inc.check()]
    if problems:
        raise SystemExit("the holdout corpus has problems:\n  " + "\n  ".join(problems))
    return incidents


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"the corpus folder (default: {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)
    incidents = build()
    corpus.write(args.out, incidents)
    resources = sum(len(inc.unhealthy) for inc in incidents)
    print(f"wrote {len(incidents)} incidents ({resources} unhealthy resources) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
