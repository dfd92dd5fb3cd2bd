"""The scope is read by questions.py: a namespace named with or without the word "namespace" (never a
word of the sentence), several at once, a workload named by its name (resolved to its pods, which are
described even when they look healthy: the scope itself, or, in a question about its namespace, the
pods looked at first), a node named by its name alone; a place the question names that no namespace
of the listing has is said in `unchecked`, and a question that is not about the cluster gets a short
answer and no call. `unchecked` says only what the report does not show: a note of what a workload's
name resolved to is left out once each of its pods is a finding or a healthy example. The verdict is not the STATUS column's alone: a Running pod
that restarted is described and unhealthy only with a recent Warning event, and a pod starting up
(ContainerCreating, Init:N/M) with no Warning event is not unhealthy.
"""

from __future__ import annotations

from collections.abc import Sequence

from k8s_agent_scripted_llm.playbook.conversation import Conversation
from k8s_agent_scripted_llm.playbook.investigation import excerpt_handle
from k8s_agent_scripted_llm.playbook.questions import (
    WHOLE_CLUSTER,
    asks_about_the_whole,
    first_word_workloads,
    implied_namespaces,
    mentions,
    named_by_kind,
    named_workloads,
    question_namespaces,
    without_scope_line,
    workload_of,
)
from k8s_agent_scripted_llm.playbook.report import MAX_NAMED, scope_text
from k8s_agent_scripted_llm.playbook.tables import Pod


def resolve_scope(
    chat: Conversation, listing: str, pods: list[Pod], total: int
) -> tuple[list[Pod], int, list[str]]:
    """The pods of the question's scope, their count, and the scope's namespaces (none: all).

    A namespace the question names ("in the web namespace") was listed alone; several it names
    ("in the a and b namespaces") are kept from the listing of all, and one without pods is said.
    After a listing of every namespace seen whole, a listed namespace the question names as a word
    ("Why is checkout down?") narrows the scope to it, unless the question asks about all
    namespaces. A workload the question names is the scope itself (see _workload_scope), unless the
    question also asks about a namespace, or the cluster, as a whole ("which pods in shop ...", "the
    web namespace", "search is slow: which pods are affected?"): then the workload's pods are
    investigated first, even when they look healthy. A word used as a place ("in payments") that is
    no namespace of the listing is said, and every namespace is checked.
    """
    named = question_namespaces(chat.question)
    whole = asks_about_the_whole(chat.question)
    if len(named) == 1:
        own_words = question_namespaces(without_scope_line(chat.question))
        if not own_words and not whole:  # --namespace: a workload the question names, there
            scoped = _workload_scope(chat, pods, named)
            if scoped is not None:
                return scoped
        _focus_workloads(chat, pods)
        return pods, total, named
    if excerpt_handle(listing) is not None or WHOLE_CLUSTER.search(chat.question):
        return pods, total, []
    listed = sorted({p.namespace for p in pods if p.namespace})
    if len(named) > 1:
        for namespace in named:
            if namespace not in listed:
                chat.scope_notes.append(_no_such_namespace(namespace, listed))
        kept = [pod for pod in pods if pod.namespace in named]
        _focus_workloads(chat, kept)
        return kept, len(kept), named
    mentioned = [ns for ns in listed if mentions(chat.question, ns)]
    if mentioned:
        kept = [pod for pod in pods if pod.namespace in mentioned]
        scoped = None if whole else _workload_scope(chat, kept, mentioned, by_first_word=False)
        if scoped is not None:
            return scoped
        _focus_workloads(chat, kept)
        return kept, len(kept), mentioned
    scoped = None if whole else _workload_scope(chat, pods, [], by_first_word=True)
    if scoped is not None:
        return scoped
    if whole:
        _focus_workloads(chat, pods)
    for word in implied_namespaces(chat.question):
        if listed and word not in listed and not any(mentions(pod.name, word) for pod in pods):
            chat.scope_notes.append(
                _no_such_namespace(word, listed) + " Every namespace was checked instead."
            )
    return pods, total, []


def _workload_scope(
    chat: Conversation, pods: list[Pod], namespaces: Sequence[str], *, by_first_word: bool = True
) -> tuple[list[Pod], int, list[str]] | None:
    """The scope of a question about a workload: its pods of `pods` and their namespaces (set as
    chat.workloads and chat.focus), or None when the question names no workload.

    A workload is named by its name or its words ("payment-service", "the batch scorer"), else
    (`by_first_word`) by its name's first word ("checkout" for checkout-service). A name said beside
    a kind ("the billing-api deployment") that no listed pod has is the scope too, with no pods:
    the report says it is not there.
    """
    names = [pod.name for pod in pods]
    workloads = named_workloads(chat.question, names)
    if not workloads and by_first_word:
        workloads = first_word_workloads(chat.question, names, [pod.namespace for pod in pods])
    if not workloads:
        missing = named_by_kind(without_scope_line(chat.question))
        if not missing:
            return None
        chat.workloads, chat.missing = missing, True
        chat.scope_notes.append(_no_such_workload(missing, pods, namespaces))
        return [], 0, list(namespaces)
    chat.workloads = list(workloads)
    chat.focus = [name for found in workloads.values() for name in found]
    kept = [pod for pod in pods if pod.name in chat.focus]
    return kept, len(kept), list(dict.fromkeys(pod.namespace for pod in kept if pod.namespace))


def _no_such_workload(names: Sequence[str], pods: Sequence[Pod], namespaces: Sequence[str]) -> str:
    where = scope_text(namespaces) if namespaces else "any namespace"
    workloads = list(dict.fromkeys(workload_of(pod.name) for pod in pods))
    shown = ", ".join(workloads[:MAX_NAMED]) + (" and more" if len(workloads) > MAX_NAMED else "")
    return f"No pod of a workload named {' or '.join(names)} in {where}: list_pods shows {len(pods)} pods" + (
        f", of the workloads {shown}." if workloads else "."
    )


def _no_such_namespace(namespace: str, listed: Sequence[str]) -> str:
    return (
        f"The question names {namespace}, but no namespace {namespace} has pods in this cluster (list_pods; "
        f"namespaces with pods: {', '.join(listed)})."
    )


def _focus_workloads(chat: Conversation, pods: Sequence[Pod]) -> dict[str, list[str]]:
    """The workloads the question names, resolved to their pods of `pods` (set as chat.focus and
    noted: the note is said while the report shows those pods nowhere else)."""
    workloads = named_workloads(chat.question, [pod.name for pod in pods])
    for workload, names in workloads.items():
        chat.focus.extend(name for name in names if name not in chat.focus)
        shown = ", ".join(names[:MAX_NAMED]) + (
            f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else ""
        )
        chat.focus_notes.append(
            (f"The question names the workload {workload}: its pods (list_pods) are {shown}.", names)
        )
    return workloads
