"""What the tools showed about one pod, gathered once for the cause rules to read: its describe_pod
result (events, containers), its logs (the pod's default read, and each container read by name), and
the other unhealthy pods of the cluster."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from k8s_agent_scripted_llm.playbook.conversation import Conversation, logs_of, readable
from k8s_agent_scripted_llm.playbook.finding import Finding
from k8s_agent_scripted_llm.playbook.logs import Logs
from k8s_agent_scripted_llm.playbook.tables import (
    Container,
    Event,
    Pod,
    containers_of,
    describe_events,
    pod_events,
)


@dataclass
class PodEvidence:
    """One pod as the tools showed it."""

    chat: Conversation
    pod: Pod
    described: str
    """describe_pod's result ("" when it was not read or failed)."""
    logs: Logs
    broken: Sequence[Pod] = ()
    """The unhealthy pods of the listings: what a pod may be waiting on."""
    events: list[tuple[str, str, str]] = field(init=False)
    """(type, reason, message) of the pod's events."""
    containers: list[Container] = field(init=False)
    timeline: list[Event] = field(init=False)
    """The same events with how long ago each was last seen."""

    def __post_init__(self) -> None:
        self.events = describe_events(self.described)
        self.containers = containers_of(self.described)
        self.timeline = pod_events(self.described)

    @property
    def started(self) -> bool:
        """Whether any container of the pod has started since it was created."""
        return any(container.ran for container in self.containers)

    @property
    def warnings(self) -> list[tuple[str, str]]:
        """(reason, message) of the pod's Warning events."""
        return [(reason, message) for kind, reason, message in self.events if kind == "Warning"]

    def warning(self, pattern: re.Pattern[str]) -> str | None:
        """The first Warning event whose message matches."""
        return next((message for _, message in self.warnings if pattern.search(message)), None)

    def container_logs(self, container: Container, previous: bool = False) -> tuple[str, str | None]:
        """A container's log lines read by name (readable text, and the call's id); for the pod's
        first container, its default read when it was not read by name."""
        text, call_id = logs_of(self.chat, self.pod.name, previous, container=container.name)
        if not call_id and self.containers and container is self.containers[0]:
            text, call_id = logs_of(self.chat, self.pod.name, previous)
        return readable(text), call_id


CauseRule = Callable[[PodEvidence, Finding], bool]
"""A rule that settles a pod's cause from one kind of evidence: it fills the finding and says True,
or leaves it and says False."""
