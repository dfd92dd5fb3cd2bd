"""The playbook's flows, one per kind of question:

- pods (the default): list the pods of the namespace the question names (in any case; else of
  all namespaces, and then, if the question names one of the listed namespaces as a word, as in
  "Why is checkout down?", only that one's), then in one round describe every unhealthy pod, read
  the logs of those that run or crash (and the previous container's of one that restarts while
  running: the crash is there), and read the namespace's Warning events when a pod failed and
  stopped (a Job's pod: the Job's own events tell whether it gave up); then, for a pod of several
  containers, read each init container that ran and each container in trouble by name
  (investigation.container_reads); then follow the dependencies the failing pods' logs fail to
  reach, in any namespace (chain.py); then write the report: per unhealthy pod its status, the
  evidence line quoted from a tool result, the likely cause and a fix, and a dependency found
  unhealthy with its own cause. When pods are cut off by their node (a "Node is not ready" event,
  an eviction because "The node was low on resource"), one more round describes those nodes and
  the report names the node too. A namespace with no pods is reported with the namespaces that
  have some.
- nodes (a question about nodes and not pods): list the nodes, describe them (every one on a
  small cluster, the not-Ready ones on a large one), and report each node that is not Ready or
  under memory, disk or PID pressure, with its condition lines and the events that say so.
- nodes and pods (a question about both: "Is every node healthy? If not, which pods does it
  affect?"): list the nodes and the pods at once, then describe the nodes and investigate the
  unhealthy pods in one round, and report the bad nodes and the unhealthy pods, a pod on a bad
  node (the listing's NODE column, or describe_pod's Node line) with no cause of its own being
  attributed to its node.
- one pod (a question naming a pod, even one that mentions the node it ran on): find it in the
  listing, describe it, read its logs if its containers ran (each by name when it has several),
  and report on that pod alone.
- a workload (a question naming one, by its name, its words or its name's first word, and not
  asking about a namespace as a whole): the report is about its pods, each described and judged even
  when it looks healthy; a line of their own logs that says a call to a Service was refused or timed
  out (`payment-service.production.svc:8080`, `redis:6379`, `http://orders/...`) is followed to that
  Service's pods (by name, in the namespace the host names, else the caller's; a namespace not listed
  yet is listed first), which are diagnosed in turn, up to three Services deep. A pod whose calls
  fail on a Service with an unhealthy pod is dependency_down, even when it looks healthy; the report
  lists the asked workload's pods first, then each Service's pods with their own cause. A workload
  named beside its kind ("the billing-api deployment") that has no pod is said, with what was listed.
- restarts (a question asking which pods restarted, how often or when: restarts.py): list the
  pods, describe those whose RESTARTS is above 0 (most first) and read their logs, and report each
  with its count, how its container last ended (`Last State: Terminated`, its reason, exit code and
  finish time, quoted from describe_pod) and why: diagnose's cause when it is unhealthy now, else
  the last termination's (OOMKilled, a liveness probe, an exit code, a clean exit). No tool tells the
  time, so a window the question names ("today") is not filtered on: the report gives the times the
  evidence shows and says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from k8s_agent_scripted_llm.playbook.causes import diagnose
from k8s_agent_scripted_llm.playbook.chain import (
    Link,
    chain_findings,
    follow_chain,
    reaches_a_broken_pod,
    start_of_chain,
)
from k8s_agent_scripted_llm.playbook.conversation import HEADER, Conversation
from k8s_agent_scripted_llm.playbook.dependencies import elsewhere
from k8s_agent_scripted_llm.playbook.investigation import (
    capped,
    container_calls,
    investigation_calls,
    list_pods_call,
    listing_view,
    search_excerpt,
)
from k8s_agent_scripted_llm.playbook.nodes import attribute, node_state, nodes_behind, nodes_to_describe
from k8s_agent_scripted_llm.playbook.object_rules import ObjectFinding
from k8s_agent_scripted_llm.playbook.objects import (
    explained,
    object_calls,
    object_findings,
    object_lines,
    objects_wanted,
)
from k8s_agent_scripted_llm.playbook.pods import judged_unhealthy, suspect_pods
from k8s_agent_scripted_llm.playbook.questions import (
    NOT_ABOUT_THE_CLUSTER,
    about_the_cluster,
    asks_about_nodes,
    asks_about_nodes_and_pods,
    asks_about_restarts,
    belongs_to,
    names_a_node,
    question_namespace,
    question_node,
    question_pod,
)
from k8s_agent_scripted_llm.playbook.report import (
    MAX_INVESTIGATED,
    MAX_NAMED,
    NO_RESULTS,
    bounded,
    node_entries,
    node_finding,
    nodes_draft,
    nothing_to_diagnose,
    pod_count,
    pod_finding,
    pod_report_lines,
    pods_draft,
    pods_scope,
    report_draft,
    report_header,
    scope_text,
    structured,
    unknown_tools,
    write_node_report,
    write_report,
)
from k8s_agent_scripted_llm.playbook.restarts import (
    restart_finding,
    restarts_header,
    restarts_report,
    restarts_scope,
    restarts_unchecked,
)
from k8s_agent_scripted_llm.playbook.scope import resolve_scope
from k8s_agent_scripted_llm.playbook.tables import Pod, node_row, parse_pod_table, parse_table
from k8s_agent_scripted_llm.script import Reply, Step, ToolCall


def playbook(body: dict[str, Any]) -> Step:
    """The playbook's next move on the mock cluster's tools."""
    chat = Conversation.parse(body)
    may_call = bool(body.get("tools"))
    if not about_the_cluster(chat.question):
        if chat.report_format == "prose":
            return Reply(content=f"{NOT_ABOUT_THE_CLUSTER} ({HEADER})")
        return structured(
            chat, report_draft("not a question about the cluster", unchecked=[NOT_ABOUT_THE_CLUSTER])
        )
    if asks_about_restarts(chat.question):
        return _restarts_playbook(chat, may_call)
    named = question_pod(chat.question)
    if asks_about_nodes(chat.question) and (named is None or names_a_node(chat.question, named)):
        return _node_playbook(chat, may_call, named or question_node(chat.question))
    if named is not None:
        return _pod_playbook(chat, may_call, named)
    if asks_about_nodes_and_pods(chat.question):
        return _nodes_and_pods_playbook(chat, may_call)
    return _pods_playbook(chat, may_call)


def _pods_playbook(chat: Conversation, may_call: bool) -> Step:
    """List the pods, investigate the unhealthy ones (describe, logs, then each container of a pod of
    several by name), follow the dependencies their logs fail to reach (chain.py: from a named
    workload's pods, or from a namespace's failing pods), describe the nodes that cut some off, and
    report them."""
    listing = chat.first("list_pods")
    if listing is None:
        if not may_call:
            return nothing_to_diagnose(chat, report_header(chat), NO_RESULTS, pods_scope(chat))
        if "list_pods" not in chat.offered:
            return nothing_to_diagnose(chat, report_header(chat), unknown_tools(chat), pods_scope(chat))
        return Reply(tool_calls=(list_pods_call(chat),))

    view = listing_view(chat, listing)
    if view is None:  # an excerpt: find its unhealthy rows with the search tool first
        return search_excerpt(chat, listing, may_call)
    listed, total = view
    pods, total, namespaces = resolve_scope(chat, listing, listed, total)
    looks_unhealthy = [pod for pod in pods if pod.unhealthy]
    suspects = suspect_pods(chat, pods)
    failed = listing.startswith("Tool call failed")
    looked_at = looks_unhealthy[:MAX_INVESTIGATED] + suspects
    investigated = any(chat.latest("describe_pod", pod.name) is not None for pod in looked_at)
    if looked_at and not investigated and may_call and not failed:
        return Reply(tool_calls=capped(investigation_calls(chat, looked_at)))
    containers = container_calls(chat, looked_at) if may_call and not failed else []
    if containers:
        return Reply(tool_calls=capped(containers))
    links: list[Link] = []
    if not failed:
        start = pods if chat.workloads else start_of_chain(chat, pods, suspects)
        links, calls = follow_chain(chat, start)
        if calls and may_call:
            return Reply(tool_calls=capped(calls))
        if not chat.workloads and not reaches_a_broken_pod(links):
            links = []
    if links:
        findings, pods, unhealthy = chain_findings(chat, pods, suspects, links)
        total = len(pods)
    else:
        unhealthy = judged_unhealthy(chat, pods, suspects)
        broken = unhealthy + [pod for pod in listed if pod.unhealthy and pod not in pods]
        findings = [diagnose(chat, pod, broken) for pod in unhealthy[:MAX_INVESTIGATED]]
        for finding in findings:
            elsewhere(chat, finding, [finding.pod for finding in findings])
    past: list[ObjectFinding] = []
    causes = [finding.category for finding in findings]
    if not failed and objects_wanted(chat, causes, [finding.pod.name for finding in findings], len(pods)):
        where = namespaces[0] if len(namespaces) == 1 else None
        calls = object_calls(chat, where) if may_call else []
        if calls:
            return Reply(tool_calls=capped(calls))
        past = object_findings(chat, where, {finding.pod.name: finding.category for finding in findings})
        for found in past:
            for finding in findings:
                if finding.pod.name in found.explains:
                    explained(finding, found)
    if may_call and not failed and "describe_node" in chat.offered:
        wanted = nodes_behind(chat, findings)
        if wanted:
            calls = [ToolCall("describe_node", json.dumps({"name": name})) for name in wanted]
            return Reply(tool_calls=capped(calls))
    states = {
        finding.pod.node: node_state(chat, finding.pod.node)
        for finding in findings
        if finding.pod.node and chat.latest("describe_node", finding.pod.node) is not None
    }
    for finding in findings:
        attribute(chat, finding, states.get(finding.pod.node))
    bad_nodes = [state for state in states.values() if state.category]
    if chat.report_format != "prose":
        draft = pods_draft(chat, listing, pods, unhealthy, total, findings, namespaces, bad_nodes)
        draft["findings"] += [found.report() for found in past]
        return structured(chat, draft)
    text = write_report(chat, listing, pods, unhealthy, total, findings, namespaces, bad_nodes)
    return Reply(content=bounded("\n".join([text, *object_lines(past)])) if past else text)


def _restarts_playbook(chat: Conversation, may_call: bool) -> Step:
    """List the pods of the question's scope, describe those that restarted (and read their logs),
    and report each with its restart count, how and when its container last ended, and why."""
    listing = chat.first("list_pods")
    if listing is None:
        if not may_call:
            return nothing_to_diagnose(chat, restarts_header(chat), NO_RESULTS, restarts_scope(chat, None))
        if "list_pods" not in chat.offered:
            return nothing_to_diagnose(
                chat, restarts_header(chat), unknown_tools(chat), restarts_scope(chat, None)
            )
        return Reply(tool_calls=(list_pods_call(chat),))
    view = listing_view(chat, listing)
    if view is None:
        return search_excerpt(chat, listing, may_call)
    listed, total = view
    pods, total, namespaces = resolve_scope(chat, listing, listed, total)
    named = question_pod(chat.question)
    if named is not None and any(pod.name == named for pod in pods):
        pods, total = [pod for pod in pods if pod.name == named], 1
    restarted = sorted((pod for pod in pods if pod.restarts > 0), key=lambda pod: -pod.restarts)
    chosen = restarted[:MAX_INVESTIGATED]
    failed = listing.startswith("Tool call failed")
    described = any(chat.latest("describe_pod", pod.name) is not None for pod in chosen)
    if chosen and not described and may_call and not failed:
        return Reply(tool_calls=capped(investigation_calls(chat, chosen)))
    containers = container_calls(chat, chosen) if may_call and not failed else []
    if containers:
        return Reply(tool_calls=capped(containers))
    broken = [pod for pod in listed if pod.unhealthy]
    findings = [restart_finding(chat, pod, broken) for pod in chosen]
    scope = restarts_scope(chat, namespaces, findings)
    unchecked = restarts_unchecked(chat, restarted[MAX_INVESTIGATED:], findings)
    unwell = [pod for pod in pods if pod.restarts == 0 and pod.unhealthy]
    if unwell:
        named = ", ".join(f"{pod.name} ({pod.status}, READY {pod.ready})" for pod in unwell[:MAX_NAMED])
        unchecked.append(
            f"{pod_count(len(unwell))} that never restarted {'is' if len(unwell) == 1 else 'are'} not healthy "
            f"either (list_pods): {named}; not investigated here, as the question is about restarts"
        )
    if chat.report_format != "prose":
        if failed:
            return structured(chat, report_draft(scope, unchecked=[f"Could not list the pods: {listing}"]))
        calm = [pod.name for pod in pods if pod.restarts == 0 and not pod.unhealthy]
        return structured(
            chat,
            report_draft(
                scope,
                [pod_finding(chat, finding) for finding in findings],
                healthy=len(calm),
                examples=calm,
                unchecked=unchecked,
            ),
        )
    return Reply(content=bounded(restarts_report(chat, listing, pods, restarted, findings, unchecked, scope)))


def _nodes_and_pods_playbook(chat: Conversation, may_call: bool) -> Step:
    """List the nodes and the pods, describe the nodes and investigate the unhealthy pods, report
    both: the bad nodes, and the unhealthy pods (those on a bad node with no cause of their own
    attributed to it)."""
    header = f"Node and pod report ({HEADER})"
    scope = f"nodes, and {pods_scope(chat)}"
    if may_call and not {"list_nodes", "describe_node", "list_pods"} <= chat.offered:
        return nothing_to_diagnose(chat, header, unknown_tools(chat), scope)
    node_listing, pod_listing = chat.latest("list_nodes"), chat.latest("list_pods")
    if node_listing is None or pod_listing is None:
        if not may_call:
            return nothing_to_diagnose(chat, header, NO_RESULTS, scope)
        calls = [] if node_listing is not None else [ToolCall("list_nodes", "{}")]
        calls += [] if pod_listing is not None else [list_pods_call(chat)]
        return Reply(tool_calls=tuple(calls))
    view = listing_view(chat, pod_listing)
    if view is None:
        return search_excerpt(chat, pod_listing, may_call)
    listed, total = view
    pods, total, namespaces = resolve_scope(chat, pod_listing, listed, total)
    unhealthy = [pod for pod in pods if pod.unhealthy]
    broken = [pod for pod in listed if pod.unhealthy]
    chosen = unhealthy[:MAX_INVESTIGATED] if not pod_listing.startswith("Tool call failed") else []
    nodes = [] if node_listing.startswith("Tool call failed") else parse_table(node_listing)
    chosen_nodes = nodes_to_describe(nodes)
    asked = any(chat.latest("describe_node", n["NAME"]) is not None for n in chosen_nodes) or any(
        chat.latest("describe_pod", pod.name) is not None for pod in chosen
    )
    if (chosen_nodes or chosen) and not asked and may_call:
        calls = [ToolCall("describe_node", json.dumps({"name": n["NAME"]})) for n in chosen_nodes]
        return Reply(tool_calls=capped(calls + investigation_calls(chat, chosen)))
    containers = container_calls(chat, chosen) if may_call else []
    if containers:
        return Reply(tool_calls=capped(containers))
    states = {
        n["NAME"]: node_state(chat, n["NAME"], n.get("STATUS"), node_row(node_listing, n["NAME"]))
        for n in nodes
    }
    findings = [diagnose(chat, pod, broken) for pod in chosen]
    for finding in findings:
        attribute(chat, finding, states.get(finding.pod.node))
    scope = f"nodes, and {pods_scope(chat, namespaces)}"
    if chat.report_format != "prose":
        node_part = nodes_draft(chat, node_listing, nodes)
        pod_part = pods_draft(chat, pod_listing, pods, unhealthy, total, findings, namespaces, [])
        healthy = node_part["healthy"]["examples"][:2] + pod_part["healthy"]["examples"]
        return structured(
            chat,
            report_draft(
                scope,
                node_part["findings"] + pod_part["findings"],
                healthy=node_part["healthy"]["count"] + pod_part["healthy"]["count"],
                examples=healthy,
                unchecked=node_part["unchecked"] + pod_part["unchecked"],
            ),
        )
    node_text = write_node_report(chat, header, node_listing, nodes)
    pod_lines = pod_report_lines(chat, pod_listing, pods, unhealthy, total, findings)
    title = f"Pods ({scope_text(namespaces or [])}):"
    return Reply(content=bounded("\n".join([node_text, "", title, *pod_lines])))


def _node_playbook(chat: Conversation, may_call: bool, named: str | None = None) -> Step:
    """List the nodes, describe them, report the ones not Ready or under pressure; a question that
    names one node gets that node's report, or is told there is no node of that name."""
    header = f"Node report ({HEADER})"
    if not {"list_nodes", "describe_node"} <= chat.offered and may_call:
        return nothing_to_diagnose(chat, header, unknown_tools(chat), "nodes")
    listing = chat.latest("list_nodes")
    if listing is None:
        if not may_call:
            return nothing_to_diagnose(chat, header, NO_RESULTS, "nodes")
        return Reply(tool_calls=(ToolCall("list_nodes", "{}"),))
    nodes = parse_table(listing)
    if named is not None and not listing.startswith("Tool call failed"):
        if any(node["NAME"] == named for node in nodes):
            pods = chat.latest("list_pods")
            if pods is None and may_call and "list_pods" in chat.offered:
                return Reply(tool_calls=(ToolCall("list_pods", "{}"),))
            return _one_node(chat, may_call, named, listing, parse_pod_table(pods) if pods else [])
        known = ", ".join(node["NAME"] for node in nodes[:MAX_NAMED]) or "none"
        return nothing_to_diagnose(
            chat,
            f"Health report for node {named} ({HEADER})\n",
            f"There is no node named {named} (list_nodes: {len(nodes)} node{'s' * (len(nodes) != 1)}, {known}).",
            f"node {named}",
        )
    chosen = nodes_to_describe(nodes)
    described = any(chat.latest("describe_node", n["NAME"], key="name") is not None for n in chosen)
    if chosen and not described and may_call and not listing.startswith("Tool call failed"):
        return Reply(
            tool_calls=tuple(ToolCall("describe_node", json.dumps({"name": n["NAME"]})) for n in chosen)
        )
    if chat.report_format != "prose":
        return structured(chat, nodes_draft(chat, listing, nodes))
    return Reply(content=write_node_report(chat, header, listing, nodes))


def _pod_playbook(chat: Conversation, may_call: bool, name: str) -> Step:
    """Find the pod the question names, describe it (and read its logs), report on it alone."""
    namespace = question_namespace(chat.question)
    header = f"Health report for pod {name} ({HEADER})"
    listing = chat.latest("list_pods")
    if listing is None:
        if not may_call:
            return nothing_to_diagnose(chat, header, NO_RESULTS, f"pod {name}")
        if "list_pods" not in chat.offered:
            return nothing_to_diagnose(chat, header, unknown_tools(chat), f"pod {name}")
        arguments = {"namespace": namespace} if namespace else {}
        return Reply(tool_calls=(ToolCall("list_pods", json.dumps(arguments)),))
    listed = parse_pod_table(listing)
    pod = next((p for p in listed if p.name == name), None)
    if pod is None and any(belongs_to(p.name, name) for p in listed):  # a workload's name: its pods
        return _pods_playbook(chat, may_call)
    pod_shaped = re.search(r"-[a-z0-9]{6,10}-[a-z0-9]{5}$", name) is not None  # a ReplicaSet's pod
    if (
        pod is None
        and not pod_shaped
        and "list_nodes" in chat.offered
        and not listing.startswith("Tool call failed")
    ):
        nodes = chat.latest("list_nodes")
        if nodes is None and may_call:  # a node's name, said without the word "node"?
            return Reply(tool_calls=(ToolCall("list_nodes", "{}"),))
        if nodes is not None and any(n["NAME"] == name for n in parse_table(nodes)):
            return _one_node(chat, may_call, name, nodes, listed)
    if pod is None:
        scope = f"namespace {namespace}" if namespace else "any namespace"
        or_node = " or node" if chat.latest("list_nodes") is not None else ""
        return nothing_to_diagnose(
            chat,
            header + "\n",
            f"There is no pod{or_node} named {name} in {scope} (list_pods"
            + (", list_nodes" if or_node else "")
            + ").",
            f"pod {name}",
        )
    pod.namespace = pod.namespace or namespace or ""
    where = {"name": pod.name, "namespace": pod.namespace}
    if chat.latest("describe_pod", pod.name) is None and may_call:
        calls = [ToolCall("describe_pod", json.dumps(where))]
        if pod.runs_code and "get_pod_logs" in chat.offered:
            calls.append(ToolCall("get_pod_logs", json.dumps({**where, "tail": 20})))
            if pod.status == "Running" and pod.restarts:
                calls.append(ToolCall("get_pod_logs", json.dumps({**where, "tail": 20, "previous": True})))
        return Reply(tool_calls=tuple(calls))
    containers = container_calls(chat, [pod]) if may_call else []
    if containers:
        return Reply(tool_calls=capped(containers))
    lines = [header, ""]
    if not pod.unhealthy:
        lines.append(f"{pod.name} ({pod.namespace}) is healthy: {pod.status}, READY {pod.ready} (list_pods).")
        if chat.report_format != "prose":
            return structured(chat, report_draft(f"pod {pod.name}", healthy=1, examples=[pod.name]))
        return Reply(content="\n".join(lines))
    finding = diagnose(chat, pod, [p for p in listed if p.unhealthy])
    if chat.report_format != "prose":
        return structured(
            chat, report_draft(f"pod {pod.name}", [pod_finding(chat, finding)], unchecked=finding.unchecked)
        )
    lines += [
        f"{pod.name} ({pod.namespace}): {pod.status}, READY {pod.ready}"
        + (f", {pod.restarts} restart{'s' * (pod.restarts != 1)}" if pod.restarts else ""),
        f"   Evidence ({finding.source}): {finding.evidence}",
        f"   Cause: {finding.cause}",
        f"   Fix: {finding.fix}",
        *[f"   Note: {note}" for note in finding.notes],
    ]
    return Reply(content="\n".join(lines))


def _one_node(chat: Conversation, may_call: bool, name: str, listing: str, pods: Sequence[Pod]) -> Step:
    """A question naming a node without the word "node": describe it, report it and the unhealthy
    pods the pod listing shows on it."""
    header = f"Health report for node {name} ({HEADER})"
    if chat.latest("describe_node", name) is None and may_call and "describe_node" in chat.offered:
        return Reply(tool_calls=(ToolCall("describe_node", json.dumps({"name": name})),))
    row = next((n for n in parse_table(listing) if n["NAME"] == name), {})
    state = node_state(chat, name, row.get("STATUS"), node_row(listing, name))
    on_it = [pod for pod in pods if pod.node == name]
    bad = [pod for pod in on_it if pod.unhealthy]
    said = (
        f"Pods on {name} (list_pods): {len(on_it)}, unhealthy: "
        + (", ".join(f"{pod.name} ({pod.namespace}, {pod.status})" for pod in bad[:MAX_NAMED]) or "none")
        + "."
    )
    if chat.report_format != "prose":
        findings = [node_finding(chat, state)] if state.category else []
        return structured(
            chat,
            report_draft(
                f"node {name}",
                findings,
                healthy=0 if state.category else 1,
                examples=[] if state.category else [name],
                unchecked=[said] if bad else [],
            ),
        )
    if state.category:
        return Reply(content="\n".join([header, *node_entries([state]), "", said]))
    verdict = f"{name} is healthy: {state.status}, no memory, disk or PID pressure (describe_node)."
    return Reply(content="\n".join([header, "", verdict, said]))
