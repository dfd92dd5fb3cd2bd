"""Any kind of object a fixture holds, read as the API holds it: the mock cluster's generic tools.

`resources_list` and `resources_get` answer, as kubernetes-mcp-server's tools of the same names do,
for every kind the fake Kubernetes API serves: the fixture's pods, nodes and events as the API would
hold them (kube_objects.py), its other `objects` (Deployments, Services, claims, quotas, policies,
autoscalers ...) as given, and the Endpoints the endpoints controller would keep for its Services.
A list is a kubectl table (the kind's own columns, printers.py; NAMESPACE first across namespaces),
one object is its YAML. What kind a request means is read as kubectl reads it: `Service`,
`services`, `svc`, with or without its `apiVersion`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from k8s_agent_mock_cluster.answers import Invalid, NotFound, table
from k8s_agent_mock_cluster.kube_resources import RESOURCES, _match_labels, _Res
from k8s_agent_mock_cluster.kube_tables import _table_for

JSON = dict[str, Any]
DEFAULT_NOW = datetime(2026, 1, 1, tzinfo=UTC)
"""The moment a fixture with no `cluster.now` is looked at: ages count back from it."""
_HIDDEN = {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}
_SERVED = [r for r in RESOURCES if r.plural not in _HIDDEN and r.group != "events.k8s.io"]


def resource_of(kind: str, api_version: str | None = None) -> _Res:
    """The resource a kind names (`Service`, `services`, `svc`; an `apiVersion` picks among kinds of
    one name); Invalid naming the kinds there are when it is none."""
    wanted = kind.strip().lower()
    group = (api_version or "").rpartition("/")[0] if api_version else None
    found = [
        r
        for r in _SERVED
        if wanted in (r.kind.lower(), r.plural, *r.short) and (group is None or r.group == group)
    ]
    if not found and group is not None:  # an apiVersion that does not fit: the kind still decides
        found = [r for r in _SERVED if wanted in (r.kind.lower(), r.plural, *r.short)]
    if not found:
        kinds = ", ".join(sorted({r.kind for r in _SERVED}))
        raise Invalid(f'the server doesn\'t have a resource type "{kind}" (kinds: {kinds})')
    return found[0]


class Resources:
    """Every object of a fixture by resource, built once, with list and get as text."""

    def __init__(self, fixture: JSON) -> None:
        self.fixture = fixture
        self._store: dict[tuple[str, str], list[JSON]] | None = None

    @property
    def now(self) -> datetime:
        from k8s_agent_mock_cluster.kube_objects import cluster_moment

        return cluster_moment((self.fixture.get("cluster") or {}).get("now"), DEFAULT_NOW)

    def store(self) -> dict[tuple[str, str], list[JSON]]:
        if self._store is None:
            from k8s_agent_mock_cluster.kube_objects import kube_objects

            objects = kube_objects(self.fixture, self.now)
            store: dict[tuple[str, str], list[JSON]] = {}
            for key, items in objects.items():
                if key in ("logs", "version", "namespaces"):
                    continue
                group, _, plural = key.rpartition("/")
                store[(group, plural)] = list(items)
            namespaces = sorted(
                {str(o["metadata"].get("namespace")) for items in store.values() for o in items} - {"None"}
                | {str(n) for n in objects.get("namespaces") or []}
            )
            store[("", "namespaces")] = [
                {
                    "apiVersion": "v1",
                    "kind": "Namespace",
                    "metadata": {"name": n},
                    "status": {"phase": "Active"},
                }
                for n in namespaces
            ]
            self._store = store
        return self._store

    def objects(
        self, res: _Res, namespace: str | None = None, label_selector: str | None = None
    ) -> list[JSON]:
        items = self.store().get((res.group, res.plural), [])
        if res.namespaced and namespace:
            items = [o for o in items if o["metadata"].get("namespace") == namespace]
        if label_selector:
            items = [o for o in items if _match_labels(o["metadata"].get("labels") or {}, label_selector)]
        return sorted(items, key=lambda o: (str(o["metadata"].get("namespace") or ""), o["metadata"]["name"]))

    def list(
        self,
        kind: str,
        api_version: str | None = None,
        namespace: str | None = None,
        label_selector: str | None = None,
    ) -> str:
        """A kubectl table of the kind's objects (in one namespace, or all; matching a label selector)."""
        res = resource_of(kind, api_version)
        items = self.objects(res, namespace, label_selector)
        if not items:
            where = f" in {namespace} namespace" if res.namespaced and namespace else ""
            return f"No resources found{where}."
        definitions, rows = _table_for(res, items, self.now)
        shown = [i for i, d in enumerate(definitions) if not d["priority"] or d["name"] == "Selector"]
        header = [definitions[i]["name"].upper() for i in shown]
        cells = [[_cell(row[i]) for i in shown] for row in rows]
        if res.namespaced and not namespace:
            header = ["NAMESPACE", *header]
            cells = [[str(o["metadata"].get("namespace")), *row] for o, row in zip(items, cells, strict=True)]
        return table(header, cells)

    def get(self, kind: str, name: str, namespace: str | None = None, api_version: str | None = None) -> str:
        """One object as YAML; NotFound as the API server words it."""
        import yaml

        res = resource_of(kind, api_version)
        items = self.store().get((res.group, res.plural), [])
        found = [
            o
            for o in items
            if o["metadata"]["name"] == name
            and (not res.namespaced or not namespace or o["metadata"].get("namespace") == namespace)
        ]
        if res.namespaced and not namespace and len({o["metadata"].get("namespace") for o in found}) > 1:
            where = ", ".join(sorted(str(o["metadata"].get("namespace")) for o in found))
            raise Invalid(f'{res.plural} "{name}" exists in several namespaces ({where}): give the namespace')
        if not found:
            where = f' in namespace "{namespace}"' if res.namespaced and namespace else ""
            raise NotFound(f'{res.plural}{"." + res.group if res.group else ""} "{name}" not found{where}')
        return str(yaml.safe_dump(found[0], sort_keys=False, allow_unicode=True, width=1000)).rstrip()


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value) if value not in (None, "") else "<none>"
