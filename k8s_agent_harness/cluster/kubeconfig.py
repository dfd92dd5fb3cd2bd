"""Kubeconfig files: which ones a server will read, and the credentials in them to redact.

A kubeconfig is parsed as YAML (JSON is YAML too). Every credential in it goes to the run's
redactor, so that a server that echoes one (kubernetes-mcp-server's `configuration_view`, an
error message quoting a token) cannot hand it to the model, a trace or a report. The walk is
generous on purpose: a credential field anywhere in the document counts, not only under
`users`, and so does an `exec` plugin's environment entry whose name looks secret.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from k8s_agent_harness.errors import ConfigError
from k8s_agent_harness.traces.private import write_private

IN_CLUSTER_TOKEN = Path("/var/run/secrets/kubernetes.io/serviceaccount/token")
MAX_FILE_BYTES = 1_048_576
MIN_SECRET_LENGTH = 4

# Fields of a kubeconfig user (and of its auth-provider config) that hold a credential.
SECRET_FIELDS = frozenset(
    {
        "token",
        "client-key-data",
        "password",
        "id-token",
        "refresh-token",
        "access-token",
        "client-secret",
        "secret",
    }
)
# `exec` credential plugins get `env: [{name: X, value: Y}]`; values of secret-looking names count.
_SECRET_NAME = re.compile(r"(?i)TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL")
# What `kubectl config view` writes instead of a secret: not a secret itself.
_PLACEHOLDERS = frozenset({"REDACTED", "DATA+OMITTED", "[REDACTED]", "null", "~"})


def kubeconfig_files(env: Mapping[str, str], environ: Mapping[str, str]) -> list[Path]:
    """The kubeconfig files the server will read: $KUBECONFIG's existing files, else ~/.kube/config."""
    listed = env.get("KUBECONFIG") or environ.get("KUBECONFIG")
    if listed:
        return [Path(part) for part in listed.split(os.pathsep) if part and Path(part).is_file()]
    home = env.get("HOME") or environ.get("HOME")
    default = Path(home) / ".kube" / "config" if home else None
    return [default] if default is not None and default.is_file() else []


def require_kubeconfig(env: Mapping[str, str], environ: Mapping[str, str], server: str) -> list[Path]:
    """The kubeconfig files a real-cluster server needs; ConfigError when there are none."""
    found = kubeconfig_files(env, environ)
    if found or in_cluster(environ):
        return found
    listed = env.get("KUBECONFIG") or environ.get("KUBECONFIG")
    if not listed:
        raise ConfigError(
            f"{server} needs a kubeconfig and there is none at ~/.kube/config (KUBECONFIG is not set): "
            "name yours with --kubeconfig FILE (or set KUBECONFIG to its path)"
        )
    # --kubeconfig FILE names a file that exists (the settings check it): else KUBECONFIG came from
    # the environment or from --mcp-env.
    source = "KUBECONFIG" if environ.get("KUBECONFIG") == listed else "--mcp-env KUBECONFIG"
    names = "names a file that does not exist" if os.pathsep not in listed else "names no file that exists"
    raise ConfigError(
        f"{server} needs a kubeconfig and there is none: {source} {names} ({listed}): name an existing "
        "kubeconfig with --kubeconfig FILE"
    )


def in_cluster(environ: Mapping[str, str]) -> bool:
    """Whether this process runs in a pod with a service account token."""
    return bool(environ.get("KUBERNETES_SERVICE_HOST")) and IN_CLUSTER_TOKEN.is_file()


def contexts(paths: Iterable[Path]) -> list[str]:
    """The context names these kubeconfigs define, in order, without repeats."""
    names: list[str] = []
    for path in paths:
        text = _read(path)
        if text is None:
            continue
        for document in _parse(text, f"kubeconfig {path}"):
            entries = document.get("contexts") if isinstance(document, Mapping) else None
            for entry in entries if isinstance(entries, list) else []:
                name = entry.get("name") if isinstance(entry, Mapping) else None
                if isinstance(name, str) and name not in names:
                    names.append(name)
    return names


def context_override(name: str) -> str:
    """A kubeconfig that only selects a context: put first in KUBECONFIG, its current-context wins
    (kubectl and client-go take each field from the first file that sets it)."""
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "current-context": name}, sort_keys=False)


def describe(paths: Iterable[Path]) -> str:
    """The kubeconfig files for a one-line description (or the in-cluster service account)."""
    names = [str(path) for path in paths]
    return ", ".join(names) if names else "in-cluster service account"


def secrets_in_kubeconfig(text: str, source: str = "kubeconfig") -> list[str]:
    """Credential values in a kubeconfig, in order of appearance, without repeats.

    Raises ConfigError when the text is not YAML: the server could not read it either.
    """
    return _secrets(_parse(text, source))


def kubeconfig_secrets(paths: Iterable[Path], environ: Mapping[str, str]) -> tuple[str, ...]:
    """Every secret in these kubeconfigs, in the token files they name, and the in-cluster token."""
    secrets: list[str] = []
    token_files: list[Path] = []
    for path in paths:
        text = _read(path)
        if text is None:
            continue
        documents = _parse(text, f"kubeconfig {path}")
        secrets += _secrets(documents)
        token_files += [_relative_to(path, name) for name in _token_files(documents)]
    for token_file in token_files:
        token = (_read(token_file) or "").strip()
        if token:
            secrets.append(token)
    if environ.get("KUBERNETES_SERVICE_HOST"):
        token = (_read(IN_CLUSTER_TOKEN) or "").strip()
        if token:
            secrets.append(token)
    return tuple(dict.fromkeys(s for s in secrets if len(s) >= MIN_SECRET_LENGTH))


def _parse(text: str, source: str) -> list[Any]:
    try:
        return list(yaml.safe_load_all(text))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or "not YAML"
        raise ConfigError(f"{source} is not a valid kubeconfig{where}: {problem}") from None


def _secrets(documents: list[Any]) -> list[str]:
    found: list[str] = []
    for document in documents:
        for value in _credentials(document):
            if len(value) >= MIN_SECRET_LENGTH and value not in _PLACEHOLDERS and value not in found:
                found.append(value)
    return found


def _credentials(node: Any) -> Iterator[str]:
    """Credential values anywhere under `node`, depth first, in document order."""
    if isinstance(node, Mapping):
        name = node.get("name")
        if isinstance(name, str) and _SECRET_NAME.search(name) and _is_scalar(node.get("value")):
            yield str(node["value"])  # an exec plugin's env entry: {name: AWS_SECRET_ACCESS_KEY, value: ...}
        for key, value in node.items():
            if key in SECRET_FIELDS and _is_scalar(value):
                yield str(value)
            else:
                yield from _credentials(value)
    elif isinstance(node, list):
        for item in node:
            yield from _credentials(item)


def _token_files(documents: Iterable[Any]) -> Iterator[str]:
    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "tokenFile" and isinstance(value, str) and value:
                    yield value
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    for document in documents:
        yield from walk(document)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _relative_to(kubeconfig: Path, name: str) -> Path:
    token_file = Path(name).expanduser()
    return token_file if token_file.is_absolute() else kubeconfig.parent / token_file


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", "replace")


# Fields that name a file, resolved (as kubectl and client-go resolve them) against the folder of
# the kubeconfig that holds them: a copy elsewhere must name them by absolute path.
_FILE_FIELDS = frozenset({"certificate-authority", "client-certificate", "client-key", "tokenFile"})


@contextlib.contextmanager
def private_copies(listed: str | None) -> Iterator[str | None]:
    """While the block runs, a KUBECONFIG value that names private copies of the files `listed` names
    (in their order, each file's relative paths made absolute; 0600), in a folder of the run's own
    (0700) that is removed after: whatever a server writes to its kubeconfig (a context switched, a
    token refreshed), it writes the copy, and the user's files stay as they were. The copies are
    writable so that a credential plugin that saves a refreshed token works as it would on the
    user's file, for the run. `listed` as it is when it names no file."""
    sources = [Path(part) for part in (listed or "").split(os.pathsep) if part and part != os.devnull]
    sources = [path for path in sources if path.is_file()]
    if not sources:
        yield listed
        return
    folder = Path(tempfile.mkdtemp(prefix="k8s-agent-kubeconfig-"))  # 0700 by mkdtemp
    try:
        copies = []
        for number, source in enumerate(sources, 1):
            copy = folder / f"{number}-{source.name}"
            write_private(copy, _relocated(source))
            copies.append(str(copy))
        yield os.pathsep.join(copies)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _relocated(source: Path) -> str:
    """The kubeconfig's text, its relative file paths made absolute (as-is when it is not YAML)."""
    text = source.read_text(encoding="utf-8", errors="replace")
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return text
    changed = False

    def walk(node: Any) -> None:
        nonlocal changed
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _FILE_FIELDS and isinstance(value, str) and value:
                    absolute = str(_relative_to(source, value))
                    changed |= absolute != value
                    node[key] = absolute
                elif key == "command" and isinstance(value, str) and "/" in value:
                    absolute = str(_relative_to(source, value))  # an exec plugin's relative command
                    changed |= absolute != value
                    node[key] = absolute
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for document in documents:
        walk(document)
    if not changed:
        return text
    return yaml.safe_dump_all(documents, sort_keys=False)
