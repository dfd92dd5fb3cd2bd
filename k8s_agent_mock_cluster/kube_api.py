"""A small fake Kubernetes API server (standard library only): a cluster for real Kubernetes clients.

It serves read-only GETs from a fixture dict, well enough for client-go based
tools (kubernetes-mcp-server), ``kubectl get/describe/logs`` and
@kubernetes/client-node (mcp-server-kubernetes):

* discovery: ``/version``, ``/api``, ``/api/v1``, ``/apis``, ``/apis/{g}``,
  ``/apis/{g}/{v}`` (legacy, non-aggregated JSON: clients fall back to it);
* list / get for the resources in ``RESOURCES`` (core pods, namespaces, nodes,
  events, services, ...; apps deployments, replicasets, ...; events.k8s.io/v1
  events, converted from the core v1 fixture events), cluster-wide and per
  namespace, with ``fieldSelector`` and ``labelSelector`` applied;
* server-side Tables (``Accept: ...;as=Table;g=meta.k8s.io;v=v1``), used by
  kubernetes-mcp-server's default table output and by ``kubectl get``;
* pod logs ``/api/v1/namespaces/{ns}/pods/{name}/log`` with ``container``,
  ``previous`` and ``tailLines`` (400 for a missing container name on a
  multi-container pod or missing previous logs, like the real API server);
* 404 ``Status`` objects for unknown paths and objects, 405 for writes
  (``POST`` of SelfSubjectAccessReview / SelfSubjectRulesReview is answered
  "allowed", since some clients probe permissions);
* every request is recorded (``server.requests``), so tests can check which
  endpoints were hit, that nothing wrote, and that the bearer token was sent.

Fixture format (every key optional)::

    {
        "namespaces": ["default", "shop"]          # names or Namespace objects
        "pods": [<Pod>, ...],                        # metadata.namespace required
        "events": [<core/v1 Event>, ...],
        "nodes": [<Node>, ...],
        "deployments": [...], "apps/replicasets": [...], ...   # any RESOURCES plural
        "logs": {
            "shop/web-1": "line1\\nline2\\n",        # ns/pod (single-container pod)
            "shop/web-1/app": "...",                 # ns/pod/container
            "shop/web-1/app": {"current": "...", "previous": "..."},
        },
        "version": {"major": "1", "minor": "32", "gitVersion": "v1.32.4"},
    }

Namespaces referenced by namespaced objects are added automatically, and so are
``default`` and ``kube-system``. Small builders ``make_pod``, ``make_event`` and
``make_namespace`` produce realistic objects (a node: ``kube_objects``, from a mock-cluster node).

Usage::

    with FakeKubeAPI(fixtures) as api:
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        ...
        assert "/api/v1/namespaces/shop/pods/web-1/log" in api.paths()
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import socket
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from k8s_agent_mock_cluster.kube_pods import _uid, make_event, make_namespace, make_pod
from k8s_agent_mock_cluster.kube_resources import (
    _CATEGORIES_ALL,
    _CREATE_ONLY,
    _SUBRESOURCES,
    JSON,
    RESOURCES,
    _by_group,
    _match_fields,
    _match_labels,
    _Res,
)
from k8s_agent_mock_cluster.kube_state import (
    RecordedRequest,
    _build_state,
    _res_lookup,
    _State,
    _status,
)
from k8s_agent_mock_cluster.kube_tables import _as_table, _core_event_to_events_v1

__all__ = [
    "FAKE_TOKEN",
    "FakeKubeAPI",
    "RecordedRequest",
    "make_event",
    "make_namespace",
    "make_pod",
    "refused_url",
    "write_kubeconfig",
]

#: Default bearer token written into kubeconfigs: distinctive, so tests can
#: assert that it never shows up in tool output or agent reports.
FAKE_TOKEN = "fake-token-DO-NOT-LEAK-6f1c2b9e"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    # quiet
    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing ---------------------------------------------------------
    def _record(self, body: bytes = b"") -> RecordedRequest:
        u = urlsplit(self.path)
        rec = RecordedRequest(
            method=self.command,
            path=u.path,
            query=parse_qs(u.query, keep_blank_values=True),
            headers=dict(self.headers.items()),
            body=body,
        )
        with self.server.lock:
            self.server.requests.append(rec)
        return rec

    def _send(
        self, rec: RecordedRequest, code: int, payload: Any, content_type: str = "application/json"
    ) -> None:
        if isinstance(payload, (dict, list)):
            data = json.dumps(payload).encode()
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = payload
        rec.status = code
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Audit-Id", _uid("audit", str(len(self.server.requests))))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _not_found(
        self, rec: RecordedRequest, what: str = "", name: str = "", kind: str = "", group: str = ""
    ) -> None:
        if what:
            details = {"name": name, "kind": kind}
            if group:
                details["group"] = group
            msg = f'{kind}{"." + group if group else ""} "{name}" not found'
            self._send(rec, 404, _status(404, "NotFound", msg, details))
        else:
            self._send(
                rec, 404, _status(404, "NotFound", "the server could not find the requested resource", {})
            )

    # -- verbs ------------------------------------------------------------
    def do_GET(self) -> None:
        rec = self._record()
        try:
            self._route_get(rec)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as exc:  # pragma: no cover - keep the server alive
            self._send(rec, 500, _status(500, "InternalError", f"fake_kube_api: {exc!r}"))

    do_HEAD = do_GET

    def _read_body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _write_verb(self) -> None:
        body = self._read_body()
        rec = self._record(body)
        path = urlsplit(self.path).path
        if self.command == "POST" and path.startswith("/apis/authorization.k8s.io/v1/"):
            self._access_review(rec, path, body)
            return
        self._send(
            rec,
            405,
            _status(405, "MethodNotAllowed", f"fake_kube_api is read-only: {self.command} {path} refused"),
        )

    def _access_review(self, rec: RecordedRequest, path: str, body: bytes) -> None:
        """Answer SelfSubject{Access,Rules}Reviews: reads allowed, writes denied.

        client-go POSTs these as protobuf; the answer is JSON (clients decode by
        the response Content-Type), the verb is picked out of the protobuf bytes.
        """
        kind = (
            "SelfSubjectRulesReview"
            if path.endswith("selfsubjectrulesreviews")
            else "SelfSubjectAccessReview"
        )
        review: dict[str, Any] = {}
        verb = "get"
        if body[:1] == b"{":
            try:
                review = json.loads(body)
                ra = (review.get("spec") or {}).get("resourceAttributes") or {}
                verb = (
                    ra.get("verb")
                    or ((review.get("spec") or {}).get("nonResourceAttributes") or {}).get("verb")
                    or "get"
                )
            except ValueError:
                review = {}
        else:
            m = re.search(
                rb"\x12[\x03-\x10](get|list|watch|create|update|patch|delete"
                rb"|deletecollection|escalate|bind|impersonate|use)\x1a",
                body,
            )
            if m:
                verb = m.group(1).decode()
        review.setdefault("spec", {})
        review.update({"kind": kind, "apiVersion": "authorization.k8s.io/v1"})
        review.setdefault("metadata", {"creationTimestamp": None})
        if kind == "SelfSubjectRulesReview":
            review["status"] = {
                "resourceRules": [
                    {"verbs": ["get", "list", "watch"], "apiGroups": ["*"], "resources": ["*"]}
                ],
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["*"]}],
                "incomplete": False,
            }
        else:
            allowed = verb in self.server.allowed_verbs
            review["status"] = (
                {"allowed": allowed}
                if allowed
                else {"allowed": False, "reason": f"fake_kube_api: verb {verb!r} is not allowed"}
            )
        self._send(rec, 201, review)

    do_POST = do_PUT = do_PATCH = do_DELETE = _write_verb

    # -- routing ----------------------------------------------------------
    def _route_get(self, rec: RecordedRequest) -> None:
        state = self.server.state
        path = rec.path.rstrip("/") or "/"
        parts = [p for p in path.split("/") if p]
        q = {k: v[-1] for k, v in rec.query.items()}

        if path in ("/healthz", "/livez", "/readyz"):
            self._send(rec, 200, "ok", "text/plain; charset=utf-8")
            return
        if path == "/version":
            self._send(rec, 200, state.version)
            return
        if path == "/api":
            self._send(
                rec,
                200,
                {
                    "kind": "APIVersions",
                    "versions": ["v1"],
                    "serverAddressByClientCIDRs": [
                        {"clientCIDR": "0.0.0.0/0", "serverAddress": self.server.hostport}
                    ],
                },
            )
            return
        if path == "/apis":
            groups = []
            for g in _by_group():
                if g == "":
                    continue
                groups.append(self._group_obj(g))
            self._send(rec, 200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
            return
        if parts[:2] == ["api", "v1"]:
            self._route_resource(rec, "", "v1", parts[2:], q)
            return
        if parts and parts[0] == "apis":
            if len(parts) == 2:
                if parts[1] in _by_group() and parts[1]:
                    self._send(rec, 200, self._group_obj(parts[1]))
                    return
                self._not_found(rec)
                return
            if len(parts) >= 3:
                self._route_resource(rec, parts[1], parts[2], parts[3:], q)
                return
        self._not_found(rec)

    def _group_obj(self, g: str) -> JSON:
        versions = sorted({r.version for r in RESOURCES if r.group == g})
        vs = [{"groupVersion": f"{g}/{v}", "version": v} for v in versions]
        return {"kind": "APIGroup", "apiVersion": "v1", "name": g, "versions": vs, "preferredVersion": vs[0]}

    def _resource_list(self, group: str, version: str) -> JSON | None:
        res = [r for r in RESOURCES if r.group == group and r.version == version]
        if not res:
            return None
        out = []
        for r in res:
            entry = {
                "name": r.plural,
                "singularName": r.singular,
                "namespaced": r.namespaced,
                "kind": r.kind,
                "verbs": ["create"] if r.plural in _CREATE_ONLY else ["get", "list", "watch"],
            }
            if r.short:
                entry["shortNames"] = list(r.short)
            if r.plural in _CATEGORIES_ALL:
                entry["categories"] = ["all"]
            out.append(entry)
            for sub, kind, verbs in _SUBRESOURCES.get((r.group, r.plural), ()):
                out.append(
                    {
                        "name": sub,
                        "singularName": "",
                        "namespaced": r.namespaced,
                        "kind": kind,
                        "verbs": verbs,
                    }
                )
        gv = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": out}

    def _route_resource(
        self, rec: RecordedRequest, group: str, version: str, rest: list[str], q: dict[str, str]
    ) -> None:
        if not rest:
            rl = self._resource_list(group, version)
            if rl is None:
                self._not_found(rec)
            else:
                self._send(rec, 200, rl)
            return
        namespace = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
            # /api/v1/namespaces/{ns} is a namespace GET
        elif rest[0] == "namespaces" and len(rest) == 2 and group == "":
            self._get_one(rec, _res_lookup("", "v1", "namespaces"), None, rest[1], q)
            return
        res = _res_lookup(group, version, rest[0])
        if res is None:
            self._not_found(rec)
            return
        if namespace is not None and not res.namespaced:
            self._not_found(rec)
            return
        if len(rest) == 1:
            self._list(rec, res, namespace, q)
        elif len(rest) == 2:
            self._get_one(rec, res, namespace, rest[1], q)
        elif len(rest) == 3 and res.plural == "pods" and rest[2] == "log":
            self._pod_log(rec, namespace or "", rest[1], q)
        elif len(rest) == 3 and rest[2] == "status":
            self._get_one(rec, res, namespace, rest[1], q)
        else:
            self._not_found(rec)

    def _objects(self, res: _Res) -> list[JSON]:
        st = self.server.state
        if res.group == "events.k8s.io":
            return [_core_event_to_events_v1(e) for e in st.store.get(("", "events"), [])]
        return st.store.get((res.group, res.plural), [])

    def _wants_table(self) -> bool:
        accept = self.headers.get("Accept") or ""
        first = accept.split(",")[0]
        return "as=Table" in first

    def _list(self, rec: RecordedRequest, res: _Res, namespace: str | None, q: dict[str, str]) -> None:
        if q.get("watch") in ("true", "1"):
            # An empty watch stream that ends at once: the client re-lists or gives up.
            rec.status = 200
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"0\r\n\r\n")
            return
        items = [
            o for o in self._objects(res) if namespace is None or o["metadata"].get("namespace") == namespace
        ]
        if q.get("labelSelector"):
            items = [o for o in items if _match_labels(o["metadata"].get("labels") or {}, q["labelSelector"])]
        if q.get("fieldSelector"):
            items = [o for o in items if _match_fields(o, q["fieldSelector"])]
        rv = str(10000 + len(self.server.requests))
        if self._wants_table():
            self._send(
                rec,
                200,
                _as_table(res, items, q.get("includeObject", "Metadata"), rv, self.server.state.clock()),
                "application/json",
            )
            return
        self._send(
            rec,
            200,
            {
                "kind": res.kind + "List",
                "apiVersion": res.api_version,
                "metadata": {"resourceVersion": rv},
                "items": items,
            },
        )

    def _find(self, res: _Res, namespace: str | None, name: str) -> JSON | None:
        for o in self._objects(res):
            if o["metadata"].get("name") == name and (
                namespace is None or o["metadata"].get("namespace") == namespace
            ):
                return o
        return None

    def _get_one(
        self, rec: RecordedRequest, res: _Res | None, namespace: str | None, name: str, q: dict[str, str]
    ) -> None:
        assert res is not None
        obj = self._find(res, namespace, name)
        if obj is None:
            self._not_found(rec, "x", name, res.plural, res.group)
            return
        if self._wants_table():
            self._send(
                rec,
                200,
                _as_table(
                    res,
                    [obj],
                    q.get("includeObject", "Metadata"),
                    obj["metadata"].get("resourceVersion", "1"),
                    self.server.state.clock(),
                ),
            )
            return
        self._send(rec, 200, obj)

    def _pod_log(self, rec: RecordedRequest, namespace: str, name: str, q: dict[str, str]) -> None:
        pods = _res_lookup("", "v1", "pods")
        assert pods is not None
        pod = self._find(pods, namespace, name)
        if pod is None:
            self._not_found(rec, "x", name, "pods")
            return
        spec = pod.get("spec") or {}
        containers = [c["name"] for c in spec.get("containers") or []]
        init_containers = [c["name"] for c in spec.get("initContainers") or []]
        container = q.get("container") or ""
        if not container:
            if len(containers) != 1:
                self._send(
                    rec,
                    400,
                    _status(
                        400,
                        "BadRequest",
                        f"a container name must be specified for pod {name}, choose one of: "
                        f"[{' '.join(containers)}]",
                    ),
                )
                return
            container = containers[0]
        elif container not in containers + init_containers:
            self._send(
                rec, 400, _status(400, "BadRequest", f"container {container} is not valid for pod {name}")
            )
            return
        previous = q.get("previous") in ("true", "1")
        waiting = _waiting_reason(pod, container)
        if waiting and not previous:
            message = f'container "{container}" in pod "{name}" is waiting to start: {waiting}'
            self._send(rec, 400, _status(400, "BadRequest", message))
            return
        logs = self.server.state.logs
        entry = logs.get(f"{namespace}/{name}/{container}")
        if entry is None and len(containers) == 1:
            entry = logs.get(f"{namespace}/{name}")
        if isinstance(entry, dict):
            text = entry.get("previous" if previous else "current")
        elif previous:
            text = None
        else:
            text = entry if entry is not None else ""
        if text is None:
            if previous:
                self._send(
                    rec,
                    400,
                    _status(
                        400,
                        "BadRequest",
                        f'previous terminated container "{container}" in pod "{name}" not found',
                    ),
                )
            else:
                self._send(rec, 200, "", "text/plain")
            return
        if q.get("tailLines"):
            try:
                n = int(q["tailLines"])
            except ValueError:
                n = -1
            if n >= 0:
                lines = text.splitlines(keepends=True)
                text = "".join(lines[-n:]) if n else ""
        if q.get("limitBytes"):
            try:
                text = text.encode()[: int(q["limitBytes"])].decode(errors="ignore")
            except ValueError:
                pass
        self._send(rec, 200, text, "text/plain")


# Waiting reasons of a container that never started: the API server has no log to give.
_NOT_STARTED = frozenset(
    {"ContainerCreating", "PodInitializing", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError"}
)


def _waiting_reason(pod: JSON, container: str) -> str | None:
    """Why `container` has not started yet (its waiting reason), or None when it has run."""
    status = pod.get("status") or {}
    for entry in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        if entry.get("name") == container:
            reason = ((entry.get("state") or {}).get("waiting") or {}).get("reason")
            has_run = entry.get("restartCount") or (entry.get("lastState") or {}).get("terminated")
            return str(reason) if reason in _NOT_STARTED and not has_run else None
    return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        addr: tuple[str, int],
        state: _State,
        allowed_verbs: Iterable[str] = ("get", "list", "watch"),
        ssl_context: Any = None,
    ) -> None:
        super().__init__(addr, _Handler)
        self.state = state
        self.allowed_verbs = frozenset(allowed_verbs)
        self.requests: list[RecordedRequest] = []
        self.lock = threading.Lock()
        self.hostport = f"{addr[0]}:{self.server_address[1]}"
        self.ssl_context = ssl_context
        self.open_sockets: set[Any] = set()

    def shutdown_request(self, request: Any) -> None:
        with self.lock:
            self.open_sockets.discard(request)
        super().shutdown_request(request)

    def close_all_connections(self) -> None:
        """Cut kept-alive client connections (else their threads keep serving)."""
        with self.lock:
            socks = list(self.open_sockets)
            self.open_sockets.clear()
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                sock.close()
            except OSError:
                pass

    def get_request(self) -> tuple[Any, Any]:
        sock, addr = super().get_request()
        # headers and body go out in separate writes: without TCP_NODELAY,
        # Nagle + delayed ACK add ~40 ms to every request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.ssl_context is not None:
            # handshake lazily in the handler thread (do_handshake_on_connect)
            sock = self.ssl_context.wrap_socket(sock, server_side=True)
        with self.lock:
            self.open_sockets.add(sock)
        return sock, addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # refused TLS handshakes, resets: nothing to report


class FakeKubeAPI:
    """The fake API server. ``start()``/``stop()`` or use as a context manager.

    ``tls=True`` serves HTTPS with a throw-away self-signed certificate (made
    with the ``openssl`` command). Only then do client-go clients (kubectl,
    kubernetes-mcp-server) send the kubeconfig's bearer token: client-go's
    clientcmd drops user credentials for plain-http servers. Kubeconfigs
    written by :meth:`write_kubeconfig` set ``insecure-skip-tls-verify``.

    ``allowed_verbs`` decides SelfSubjectAccessReview answers (reads only, by
    default). All writes (POST/PUT/PATCH/DELETE) are refused with 405.

    ``now`` stops the cluster's clock at that moment (ages in tables are counted from it), for
    objects whose times are those of another moment (an incident's ``now``).
    """

    def __init__(
        self,
        fixtures: JSON | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str = FAKE_TOKEN,
        tls: bool = False,
        allowed_verbs: Iterable[str] = ("get", "list", "watch"),
        now: _dt.datetime | None = None,
    ) -> None:
        self._fixtures = fixtures or {}
        self._now = now
        self._host = host
        self._port = port
        self.token = token
        self.tls = tls
        self._allowed_verbs = tuple(allowed_verbs)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._tmpdir: Any = None

    def _ssl_context(self) -> Any:
        import ssl
        import subprocess
        import tempfile

        self._tmpdir = tempfile.TemporaryDirectory(prefix="fake-kube-api-tls-")
        cert = Path(self._tmpdir.name, "tls.crt")
        key = Path(self._tmpdir.name, "tls.key")
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=fake-kube-api",
                "-addext",
                f"subjectAltName=IP:{self._host}",
                "-keyout",
                str(key),
                "-out",
                str(cert),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        return ctx

    # lifecycle
    def start(self) -> FakeKubeAPI:
        if self._server is not None:
            return self
        self._server = _Server(
            (self._host, self._port),
            _build_state(self._fixtures, self._now),
            allowed_verbs=self._allowed_verbs,
            ssl_context=self._ssl_context() if self.tls else None,
        )
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-kube-api",
            daemon=True,
        )
        self._thread.start()
        return self

    def replace(self, fixtures: JSON, *, now: _dt.datetime | None = None) -> None:
        """Serve other objects from now on (the request log is kept): another cluster behind the
        same address, certificate and token."""
        self._fixtures, self._now = fixtures, now
        if self._server is not None:
            self._server.state = _build_state(fixtures, now)

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self._server.close_all_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir = None

    def __enter__(self) -> FakeKubeAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # info
    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeKubeAPI not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{self._host}:{self.port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        if self._server is None:
            return []
        with self._server.lock:
            return list(self._server.requests)

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def request_log(self) -> list[str]:
        """``"GET /api/v1/pods?limit=500 -> 200"`` strings, for debugging."""
        return [str(r) for r in self.requests]

    def mutating_requests(self) -> list[RecordedRequest]:
        """Requests that would change state (everything but GET/HEAD and access reviews)."""
        return [
            r
            for r in self.requests
            if r.method not in ("GET", "HEAD") and not r.path.startswith("/apis/authorization.k8s.io/")
        ]

    def clear_requests(self) -> None:
        if self._server is not None:
            with self._server.lock:
                self._server.requests.clear()

    def write_kubeconfig(self, path: str | Path, **kwargs: Any) -> Path:
        kwargs.setdefault("token", self.token)
        return write_kubeconfig(path, self.url, **kwargs)


def write_kubeconfig(
    path: str | Path,
    server_url: str,
    *,
    token: str = FAKE_TOKEN,
    context: str = "fake-context",
    cluster: str = "fake-cluster",
    user: str = "fake-user",
    namespace: str | None = "default",
) -> Path:
    """Write a kubeconfig (plain http, bearer token) and return its path.

    JSON is valid YAML, so no YAML library is needed.
    """
    ctx: dict[str, Any] = {"cluster": cluster, "user": user}
    if namespace:
        ctx["namespace"] = namespace
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster, "cluster": {"server": server_url, "insecure-skip-tls-verify": True}}],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": context, "context": ctx}],
        "current-context": context,
        "preferences": {},
    }
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    # 0600 from its first byte, as kubectl keeps a kubeconfig (never readable by others, whatever the umask).
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(cfg, indent=2) + "\n")
    return p


def refused_url(host: str = "127.0.0.1") -> str:
    """An http URL on a loopback port that nothing listens on (connections are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    return f"http://{host}:{port}"
