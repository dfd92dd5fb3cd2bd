"""What a pod's own log lines say it cannot reach: the Services (or workloads) a line of a refused,
timed-out or unresolved connection names, for the playbook to follow to their pods.

A line counts when it says a connection failed (CONNECTION_ERROR) and names where it went:

    payment-service.production.svc:8080      the Service payment-service of namespace production
    postgres.db.svc.cluster.local            the Service postgres of namespace db
    http://ledger:8080/v1, redis:6379        the Service ledger, redis (in the caller's namespace)
    "dependency redis not reachable"         the Service redis, named as what the caller depends on
    "cache warm-up failed: orders timed out" a workload of the cluster named as a word

An address (`10.43.0.12:6379`) names no Service and is left out; so is a host of the outside world
(`api.stripe.com:443`). Only the line's words are read: which pods answer for the Service is the
playbook's to find, by name, in the pod listings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from k8s_agent_scripted_llm.playbook.conversation import Conversation, logs_of, readable
from k8s_agent_scripted_llm.playbook.evidence import PodEvidence
from k8s_agent_scripted_llm.playbook.finding import Finding, cite
from k8s_agent_scripted_llm.playbook.logs import is_noise
from k8s_agent_scripted_llm.playbook.questions import belongs_to, workload_of
from k8s_agent_scripted_llm.playbook.tables import Pod

_PORT_IN_LINE = re.compile(r":(\d{2,5})\b")


def failed_calls_of(chat: Conversation, pod: Pod, workloads: set[str]) -> list[tuple[FailedCall, str | None]]:
    """The pod's failed calls to other Services, from its current logs and then its previous ones."""
    found: dict[tuple[str, str | None], tuple[FailedCall, str | None]] = {}
    for previous in (False, True):
        logs, call_id = logs_of(chat, pod.name, previous=previous)
        for call in failed_calls(readable(logs), workloads):
            if call.service != workload_of(pod.name):
                found.setdefault((call.service, call.namespace), (call, call_id))
    return list(found.values())


def service_pods(call: FailedCall, caller: Pod, listed: Sequence[Pod]) -> list[Pod]:
    """Rule: the pods behind a Service a call names are in its namespace (the one its host says, else
    the caller's, where a short name resolves): the pod the host names (a headless Service's pod,
    pod.service.namespace.svc), else the pods named after the Service. Found by name, never guessed:
    a Service's selector is not read here, so one whose pods are named otherwise is said, not followed."""
    where = call.namespace or caller.namespace
    there = [pod for pod in listed if pod.namespace == where and pod.name != caller.name]
    named = [pod for pod in there if pod.name == call.pod]
    return named or [pod for pod in there if belongs_to(pod.name, call.service)]


_SERVICE_HOST = re.compile(r"\b([a-z0-9][a-z0-9-]*)\.([a-z0-9][a-z0-9-]*)\.svc\b")


def elsewhere(chat: Conversation, finding: Finding, reported: Sequence[Pod] = ()) -> None:
    """A pod failing its readiness probe whose logs fail to reach a Service of another namespace
    (`name.namespace.svc`), or down because of a pod the report does not show: say which, and that
    it was not checked from here."""
    other = finding.depends_on
    if finding.category == "dependency_down" and other is not None and other not in reported:
        finding.fix = f"fix {other.name} first; this pod becomes ready once it is back"
        finding.unchecked.append(
            f"{finding.pod.name} depends on {other.name} of namespace {other.namespace}: that namespace is "
            f"outside this report's scope; check it (e.g. 'what is wrong in the {other.namespace} namespace?')"
        )
        return
    if finding.category not in ("readiness_probe_failure", "unknown"):
        return
    logs, logs_id = logs_of(chat, finding.pod.name)
    for line in readable(logs).splitlines():
        if not CONNECTION_ERROR.search(line):
            continue
        for service, namespace in _SERVICE_HOST.findall(line):
            if namespace != finding.pod.namespace:
                finding.also(
                    line.strip(),
                    "get_pod_logs",
                    logs_id,
                    f"its logs fail to reach {service} in namespace {namespace} (get_pod_logs): {line.strip()}",
                )
                finding.unchecked.append(
                    f"{finding.pod.name} cannot reach the Service {service} of namespace {namespace}: that "
                    f"namespace is outside this report's scope; check it (e.g. 'what is wrong in the "
                    f"{namespace} namespace?')"
                )
                return


_READINESS = re.compile(r"(?i)\breadiness probe failed\b")


def waits_on_a_broken_dependency(evidence: PodEvidence, finding: Finding) -> bool:
    """Cause rule: a running pod that fails its readiness probe, has never restarted, and whose logs
    fail to connect to another workload that is itself unhealthy is dependency_down, quoted from
    that log line (the dependency keeps its own cause in its own finding)."""
    chat, pod, logs = evidence.chat, evidence.pod, evidence.logs
    readiness = evidence.warning(_READINESS)
    if not readiness or pod.status != "Running" or pod.restarts or not logs.current:
        return False
    found = broken_dependency_in(chat, pod, logs.current, evidence.broken)
    if not found:
        return False
    line, other = found
    cite(chat, finding, "get_pod_logs", line, logs.current_id)
    finding.category = "dependency_down"
    finding.cause = (
        f"the container runs but is not ready: it cannot reach {workload_of(other.name)}, whose pod "
        f"{other.name} is itself unhealthy ({other.status}, READY {other.ready})"
    )
    finding.fix = f"fix {other.name} first (see its entry); this pod becomes ready once it is back"
    finding.depends_on = other
    finding.also(
        readiness, "describe_pod", chat.latest_id("describe_pod", pod.name), f"describe_pod: {readiness}"
    )
    return True


def _probe_ports(description: str) -> set[str]:
    """The ports a pod's probes and containers use, from describe_pod."""
    ports: set[str] = set()
    for line in description.splitlines():
        text = line.strip()
        if text.startswith(("Liveness:", "Readiness:", "Startup:")):
            ports.update(_PORT_IN_LINE.findall(text))
        elif text.startswith(("Port:", "Ports:", "Host Port:")):
            ports.update(re.findall(r"\b(\d{2,5})(?:/(?:TCP|UDP|SCTP))?\b", text))
    return ports


def broken_dependency_in(
    chat: Conversation, pod: Pod, logs: str, broken: Sequence[Pod]
) -> tuple[str, Pod] | None:
    """A log line of a connection error to another workload that is unhealthy itself, and that
    workload's pod: named by host or words ("payments-db.payments.svc", "session store"), else by a
    port its probes use."""
    lines = [line.strip() for line in logs.splitlines() if CONNECTION_ERROR.search(line)]
    if not lines:
        return None
    own = workload_of(pod.name)
    others: dict[str, Pod] = {}
    for other in broken:
        workload = workload_of(other.name)
        if other.name != pod.name and workload != own:
            others.setdefault(workload, other)

    def names(workload: str) -> re.Pattern[str]:
        words = [re.escape(word) for word in re.split(r"[-_.]", workload) if word]
        return re.compile(r"(?<![\w-])" + r"[-_ ]".join(words) + r"(?![\w-])", re.I)

    def quoted(line: str, named: re.Pattern[str], ports: set[str]) -> bool:
        return bool(named.search(line)) or bool(ports & set(_PORT_IN_LINE.findall(line)))

    # A dependency the logs name beats one found by its port; of its lines, the first one is quoted.
    by_name = [
        (workload, other)
        for workload, other in others.items()
        if any(names(workload).search(line) for line in lines)
    ]
    for workload, other in by_name or list(others.items()):
        named = names(workload)
        ports = _probe_ports(chat.latest("describe_pod", other.name) or "")
        line = next((line for line in lines if quoted(line, named, ports)), None)
        if line:
            return line, other
    return None


UNRESOLVED = re.compile(
    r"(?i)no such host|not resolvable|(?:could not|couldn't|can'?t|cannot|unable to|failed to) resolve"
    r"|can'?t find \S+: NXDOMAIN|\bNXDOMAIN\b|name or service not known|unknown ?host|bad address"
    r"|temporary failure in name resolution|name resolution failed"
)
"""Words of a line saying a name does not resolve (DNS)."""

CONNECTION_ERROR = re.compile(
    r"(?i)connection refused|econnrefused|\bconnect: |\brefused\b|i/o timeout|timed? ?out"
    r"|deadline exceeded|unreachable|not reachable|unavailable|could not connect|failed to connect"
    r"|cannot connect|can't connect|unable to connect|error connecting|name resolution|connection reset"
    r"|no (?:[\w-]+ )?(?:servers?|hosts?|brokers?|nodes?|endpoints?|upstreams?|backends?|replicas?) (?:are )?"
    r"(?:available|reachable|alive)|no (?:available|alive|healthy|reachable) (?:servers?|hosts?|brokers?|nodes?"
    r"|endpoints?|upstreams?|backends?)|" + UNRESOLVED.pattern.removeprefix("(?i)")
)
"""Words of a line saying a connection failed: refused, timed out, unresolved, reset, or no server of
the dependency left to connect to ("no servers available for connection", "no healthy upstream")."""

_LABEL = r"[a-z](?:[a-z0-9-]*[a-z0-9])?"

_SERVICE_DNS = re.compile(
    rf"(?<![\w.-])(?:({_LABEL})\.)?({_LABEL})\.({_LABEL})\.svc(?:\.[a-z0-9-]+)*(?::\d{{1,5}})?(?![\w-])", re.I
)
"""A Service's cluster DNS name: name.namespace.svc[.cluster.local][:port], or one pod of a headless
Service, pod.name.namespace.svc (a StatefulSet's pod by its own name)."""

_URL_HOST = re.compile(
    rf"\b[a-z][a-z0-9+.-]*://(?:[^@/\s]+@)?({_LABEL})(?:\.({_LABEL}))?(?::\d{{1,5}})?(?=[/\s)\"',;]|$)", re.I
)
"""The host of a URL when it is a Service's short name (name, or name.namespace)."""

_HOST_PORT = re.compile(rf"(?<![\w./:@-])({_LABEL})(?:\.({_LABEL}))?:(\d{{2,5}})(?![\w.])", re.I)
"""A short host with its port: redis:6379, postgres.db:5432."""

_NAMED_DEPENDENCY = re.compile(rf"\b(?:dependency|upstream|backend)\s+[\"'`]?({_LABEL})\b", re.I)
"""A Service a line names by what it is to the caller: "dependency redis not reachable"."""

_NOT_SERVICES = frozenset({"localhost", "http", "https", "tcp", "udp", "dial", "lookup", "get", "post"})


@dataclass(frozen=True)
class FailedCall:
    """A log line saying a connection to a Service failed, and the Service it names."""

    line: str
    """The log line, stripped: verbatim from the logs."""
    host: str
    """How the line names it (payment-service.production.svc:8080, redis:6379, redis)."""
    service: str
    """The Service's (or workload's) name."""
    namespace: str | None
    """Its namespace when the name says it (name.namespace.svc); None: the caller's, or any."""
    pod: str | None = None
    """The pod the name says, for a headless Service's pod (pod.name.namespace.svc)."""
    lines: tuple[str, ...] = ()
    """Every line that says a connection to it failed, in order (the first is `line`)."""


def failed_calls(logs: str, workloads: Iterable[str] = ()) -> list[FailedCall]:
    """The failed connections of the logs, in order, each Service once (with its first line, and all
    its lines): named by host, else by a word that is the name of one of `workloads`. A line that is
    noise (logs.is_noise: a call the process says it ignores, its telemetry failing to ship) names
    no dependency."""
    known = sorted(set(workloads), key=len, reverse=True)
    found: dict[tuple[str, str | None], FailedCall] = {}
    for raw in logs.splitlines():
        line = raw.strip()
        if not line or not CONNECTION_ERROR.search(line) or is_noise(line):
            continue
        for host, service, namespace, pod in _hosts(line, known):
            first = found.setdefault((service, namespace), FailedCall(line, host, service, namespace, pod))
            found[(service, namespace)] = replace(first, lines=(*first.lines, line))
    return list(found.values())


def _hosts(line: str, workloads: list[str]) -> list[tuple[str, str, str | None, str | None]]:
    """(as written, service, namespace, pod) of each Service the line names, in the order written."""
    taken: list[tuple[int, int]] = []
    named: list[tuple[int, str, str, str | None, str | None]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= low or start >= high for low, high in taken)

    for match in _SERVICE_DNS.finditer(line):
        taken.append(match.span())
        pod = match[1].lower() if match[1] else None
        named.append((match.start(), match[0], match[2].lower(), match[3].lower(), pod))
    for pattern in (_URL_HOST, _HOST_PORT, _NAMED_DEPENDENCY):
        for match in pattern.finditer(line):
            if not free(*match.span(1)) or match[1].lower() in _NOT_SERVICES:
                continue
            taken.append(match.span())
            namespace = match[2].lower() if pattern is not _NAMED_DEPENDENCY and match[2] else None
            host = line[match.start(1) : match.end()] if pattern is _URL_HOST else match[0]
            if pattern is _NAMED_DEPENDENCY:
                host = match[1]
            named.append((match.start(), host, match[1].lower(), namespace, None))
    for workload in workloads:
        for match in re.finditer(rf"(?<![\w.-]){re.escape(workload)}(?![\w-])", line, re.I):
            if free(*match.span()):
                taken.append(match.span())
                named.append((match.start(), match[0], workload, None, None))
    return [(host, service, namespace, pod) for _, host, service, namespace, pod in sorted(named)]
