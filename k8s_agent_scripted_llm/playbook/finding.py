"""What the playbook concludes about one pod, and the quote it rests on."""

from __future__ import annotations

from dataclasses import dataclass, field

from k8s_agent_scripted_llm.playbook.conversation import Conversation, listing_row_and_id
from k8s_agent_scripted_llm.playbook.tables import Pod


@dataclass
class Finding:
    """What the playbook concluded about one pod."""

    pod: Pod
    evidence: str = ""
    source: str = ""
    cause: str = ""
    fix: str = ""
    notes: list[str] = field(default_factory=list)
    category: str = "unknown"
    """The cause in the report's taxonomy (findings.Cause)."""
    call_id: str | None = None
    """The call whose result holds the evidence."""
    more: list[tuple[str, str, str | None]] = field(default_factory=list)
    """Further telling lines: (text, tool, call id), each verbatim from that call's result."""
    unchecked: list[str] = field(default_factory=list)
    depends_on: Pod | None = None
    """The unhealthy pod a dependency_down pod cannot reach."""

    def also(self, text: str, tool: str, call_id: str | None, note: str | None = None) -> None:
        """Quote one more line (once), with a note for the prose report."""
        if text and text != self.evidence and all(text != quoted for quoted, _, _ in self.more):
            self.more.append((text, tool, call_id))
            if note:
                self.notes.append(note)


def cite(chat: Conversation, finding: Finding, source: str, line: str, call_id: str | None = None) -> None:
    """Make `line` of the `source` tool's result the finding's evidence."""
    finding.source, finding.evidence = source, line
    by_pod = source in ("describe_pod", "get_pod_logs")
    if source == "list_pods" and call_id is None:
        call_id = listing_row_and_id(chat, finding.pod)[1]
    finding.call_id = call_id or chat.latest_id(source, finding.pod.name if by_pod else None)
