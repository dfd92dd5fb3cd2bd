"""A question about restarts: each restarted pod with its count, how and when its container last
ended, and why.

Of each restarted pod, describe_pod tells how its containers last ended: the `Last State:
Terminated` block (reason, exit code, start and finish times), or `State: Terminated` for a
container that ended and was not restarted yet. The lines are kept as the tool printed them, so
the report quotes them verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from k8s_agent_scripted_llm.playbook.causes import LIVENESS, diagnose
from k8s_agent_scripted_llm.playbook.conversation import HEADER, Conversation, listing_row, listing_row_and_id
from k8s_agent_scripted_llm.playbook.finding import Finding, cite
from k8s_agent_scripted_llm.playbook.logs import ERRORISH, is_calm, log_text, read_logs
from k8s_agent_scripted_llm.playbook.pods import judged_unhealthy
from k8s_agent_scripted_llm.playbook.questions import time_words
from k8s_agent_scripted_llm.playbook.report import MAX_NAMED, MAX_SCOPE_CHARACTERS, pod_count, pods_scope
from k8s_agent_scripted_llm.playbook.tables import Pod, warning_events


def restart_finding(chat: Conversation, pod: Pod, broken: Sequence[Pod]) -> Finding:
    """A restarted pod: its cause as diagnose reads it when it is unhealthy now (a recent Warning event
    of trouble for a pod that runs and is ready), else from how its container last ended; its
    evidence, the lines of describe_pod that tell the restarts (count, reason, exit code, time)."""
    description = chat.latest("describe_pod", pod.name) or ""
    described = "" if description.startswith("Tool call failed") else description
    suspect = [pod] if not pod.unhealthy and pod.status == "Running" else []
    unhealthy = bool(judged_unhealthy(chat, [pod], suspect))
    ended = terminations(described)
    finding = diagnose(chat, pod, broken) if unhealthy else Finding(pod)
    if not unhealthy:
        finding.category, finding.cause, finding.fix = _restart_cause(pod, ended, described)
        if not ended:
            cite(chat, finding, "list_pods", listing_row(chat, pod))
        logs = read_logs(chat, finding)
        said = logs.telling
        if said and ERRORISH.search(log_text(said)) and not is_calm(said):
            finding.cause += f"; its logs say: {said}"
            finding.also(said, "get_pod_logs", logs.crash_id)
            if finding.category == "crash_application":
                finding.fix = "fix the error its logs show, or it crashes again on the same input"
    call_id = chat.latest_id("describe_pod", pod.name)
    last = ended[0] if ended else None
    if last is not None:
        quotes = [last.reason_quote, last.lines.get("Exit Code", ""), last.lines.get("Finished", "")]
        if not finding.evidence:
            cite(chat, finding, "describe_pod", quotes[0], call_id)
        for quote in quotes:
            finding.also(quote, "describe_pod", call_id)
    count = re.search(r"^\s*Restart Count:\s+\d+\s*$", described, re.M)
    if count:
        finding.also(" ".join(count[0].split()), "describe_pod", call_id)
    if pod.last_restart:
        row, row_id = listing_row_and_id(chat, pod)
        finding.also(row, "list_pods", row_id)
    when = f" (last {pod.last_restart}, list_pods)" if pod.last_restart else ""
    how = f"; its container {last.container} last ended {last.said}" if last else ""
    now = (
        "" if unhealthy else f"; it is {pod.status}, READY {pod.ready} now, with no Warning event of trouble"
    )
    finding.cause = f"restarted {times_text(pod.restarts)}{when}{how}{now}: {finding.cause}"
    return finding


def times_text(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _restart_cause(pod: Pod, ended: Sequence[Termination], description: str) -> tuple[str, str, str]:
    """(category, cause, fix) of a pod that restarted and is healthy now, from how it last ended."""
    last = ended[0] if ended else None
    liveness = any(LIVENESS.search(message) for _, message in warning_events(description))
    if last is not None and last.reason == "OOMKilled":
        return (
            "oom_killed",
            "its container exceeded its memory limit and was killed (OOMKilled)",
            "raise its memory limit or reduce its memory use if it happens again",
        )
    if liveness:
        return (
            "liveness_probe_failure",
            "the kubelet restarted it after failed liveness probes",
            "find why the health endpoint stalls, or give the probe a realistic timeout",
        )
    if last is not None and last.exit_code not in ("", "0"):
        return (
            "crash_application",
            f"its container exited with code {last.exit_code}",
            "read its previous container's logs (get_pod_logs with previous) for the error, and fix it",
        )
    return (
        "unknown",
        "its container ended without an error (a restart of the pod or of its node, not a crash)",
        "nothing to fix if it stays up; check the node's events if many pods restarted at once",
    )


def restarts_scope(
    chat: Conversation, namespaces: Sequence[str] | None, findings: Sequence[Finding] = ()
) -> str:
    """`restarts of pods in all namespaces (last terminations shown: A to B)`."""
    where = pods_scope(chat, namespaces).removeprefix("pods in ")
    times = _termination_times(chat, findings)
    window = (
        f" (last terminations shown: {times[0]}{f' to {times[-1]}' if len(times) > 1 else ''})"
        if times
        else ""
    )
    return f"restarts of pods in {where}{window}"[:MAX_SCOPE_CHARACTERS]


def _termination_times(chat: Conversation, findings: Sequence[Finding]) -> list[str]:
    ended = [
        last.finished
        for finding in findings
        for last in terminations(chat.latest("describe_pod", finding.pod.name) or "")[:1]
        if last.finished
    ]
    return sorted(set(ended))


def restarts_unchecked(chat: Conversation, rest: Sequence[Pod], findings: Sequence[Finding]) -> list[str]:
    """What the restart report did not check: the restarted pods beyond those described, the time
    window the question asks for (no tool tells the time), and what its findings could not read."""
    unchecked = [*chat.scope_notes, *[line for finding in findings for line in finding.unchecked]]
    if rest:
        named = ", ".join(f"{pod.name} ({pod.restarts})" for pod in rest[:MAX_NAMED])
        unchecked.append(f"{pod_count(len(rest))} more restarted and were not described: {named}")
    asked = time_words(chat.question)
    if asked and findings:
        times = _termination_times(chat, findings)
        shown = (
            f"between {times[0]} and {times[-1]}"
            if len(times) > 1
            else f"at {times[0]}"
            if times
            else "at no time"
        )
        unchecked.append(
            f"Whether these restarts fall {asked} was not checked against a clock: the tools show no current "
            f"time, RESTARTS (list_pods) counts every restart since each pod was created, and the last "
            f"terminations shown (describe_pod) are {shown}"
        )
    return unchecked


def restarts_header(chat: Conversation, namespaces: Sequence[str] | None = None) -> str:
    return f"Restart report for {pods_scope(chat, namespaces)} ({HEADER})"


def restarts_report(
    chat: Conversation,
    listing: str,
    pods: Sequence[Pod],
    restarted: Sequence[Pod],
    findings: Sequence[Finding],
    unchecked: Sequence[str],
    scope: str,
) -> str:
    """The prose restart report: each restarted pod with its count, last termination, cause and fix."""
    lines = [f"Restart report: {scope} ({HEADER})", ""]
    if listing.startswith("Tool call failed"):
        return "\n".join([*lines, f"Could not list the pods, so nothing could be checked. {listing}"])
    if not restarted:
        lines.append(f"No pod restarted: RESTARTS is 0 for all {len(pods)} pods listed (list_pods).")
    else:
        lines.append(
            f"{len(restarted)} of {pod_count(len(pods))} restarted (RESTARTS in list_pods counts every restart "
            "since the pod was created)."
        )
    for number, finding in enumerate(findings, start=1):
        pod = finding.pod
        lines += [
            "",
            f"{number}. {pod.name} ({pod.namespace}): restarted {times_text(pod.restarts)}, {pod.status}, "
            f"READY {pod.ready}",
            f"   Evidence ({finding.source}): {finding.evidence}",
            *[f"   Evidence ({tool}): {text}" for text, tool, _ in finding.more],
            f"   Cause: {finding.cause}",
            f"   Fix: {finding.fix}",
        ]
    if unchecked:
        lines += ["", *[f"Note: {note}" for note in unchecked]]
    return "\n".join(lines)


@dataclass
class Termination:
    """How one container last ended, as describe_pod shows it."""

    container: str
    state: str
    """`Last State` (the container was restarted since) or `State` (it ended and stays so)."""
    reason: str = ""
    exit_code: str = ""
    started: str = ""
    finished: str = ""
    lines: dict[str, str] = field(default_factory=dict)
    """The block's lines as printed (stripped), by title: the state line, Reason, Exit Code, Finished."""

    @property
    def said(self) -> str:
        """The termination in words: `Error, exit code 1, finished 2026-11-30T04:12:02Z`."""
        parts = [self.reason or "Terminated"]
        if self.exit_code:
            parts.append(f"exit code {self.exit_code}")
        if self.finished:
            parts.append(f"finished {self.finished}")
        return ", ".join(parts)

    @property
    def reason_quote(self) -> str:
        """The state line and its reason as one quote (whitespace collapsed, as the report compares)."""
        first = self.lines.get(self.state, "")
        reason = self.lines.get("Reason", "")
        return " ".join(f"{first} {reason}".split())


_CONTAINER = re.compile(r"^  ([A-Za-z0-9][\w.-]*):\s*$")

_STATE = re.compile(r"^    (State|Last State):\s+(\w+)\s*$")

_DETAIL = re.compile(r"^      (Reason|Exit Code|Started|Finished|Message):\s+(.*?)\s*$")


def terminations(description: str) -> list[Termination]:
    """Each container's last termination in a describe_pod result: its `Last State: Terminated`
    block, else its `State: Terminated` block; containers that never ended are left out."""
    found: dict[str, Termination] = {}
    container, current = "", None
    for line in description.split("\nEvents:", 1)[0].splitlines():
        if re.match(r"^\S", line):  # a new section: Containers:, Conditions:, ...
            container, current = "", None
            continue
        named = _CONTAINER.match(line)
        if named:
            container, current = named[1], None
            continue
        state = _STATE.match(line)
        if state and container:
            current = None
            # The current State, when Terminated, is the latest end; else the Last State is.
            if state[2] == "Terminated" and (state[1] == "State" or container not in found):
                current = Termination(container, state[1])
                current.lines[state[1]] = " ".join(line.split())
                found[container] = current
            continue
        detail = _DETAIL.match(line)
        if detail and current is not None:
            title, value = detail[1], detail[2]
            current.lines[title] = " ".join(line.split())
            if title == "Reason":
                current.reason = value
            elif title == "Exit Code":
                current.exit_code = value
            elif title == "Started":
                current.started = value
            elif title == "Finished":
                current.finished = value
    return list(found.values())
