"""The offline model: a deterministic SRE playbook behind the scripted server. Not an LLM.

It reads the tool results in the conversation, never a hard-coded name, and makes the investigation
the question asks for. Its rules live by topic, each a named function whose docstring states it:

    questions.py        what the question asks (a namespace, a workload, a pod, nodes, restarts)
    scope.py            the question's scope against the cluster's listing
    pods.py             whether a pod is unhealthy, starting, or an attempt a Job retried
    init_containers.py  which init container holds a pod in Init, and why
    logs.py             which log line decides a crash
    causes.py           a pod's cause, in the order an SRE checks them
    taxonomy.py         a deciding line mapped to the report's cause, with a fix
    dependencies.py     the Services a pod's logs fail to reach, and their pods
    chain.py            a workload's chain of failed calls, followed to its end
    nodes.py            nodes not Ready or under pressure, and the pods they cut off
    objects.py          past the pods: which kinds to list and read, and the objects that are the problem
    object_rules.py     a Service, Ingress, claim, controller, autoscaler or policy that is itself wrong
    object_views.py     what the generic tools returned: listings, objects' YAML, events
    restarts.py         restarts: how and when each container last ended
    investigation.py    the calls of each round
    report.py           the prose and JSON reports
    flows.py            one flow per kind of question
    kube.py             the same playbook on kubernetes-mcp-server's tools
    kube_views.py       kubernetes-mcp-server's results read as the playbook's views

It speaks the mock cluster's tools (list_pods, describe_pod, get_pod_logs, get_events, list_nodes,
describe_node, resources_list, resources_get), and kubernetes-mcp-server's (pods_list, pods_get, pods_log, events_list, resources_*:
kube.py) when those are what it is offered. Given other tools it says so instead of guessing. Any
request without `tools` gets the report of what it has.
"""

from __future__ import annotations

from typing import Any

from k8s_agent_scripted_llm.playbook.flows import playbook
from k8s_agent_scripted_llm.playbook.kube import kube_surface, on_kube_surface
from k8s_agent_scripted_llm.responses_api import chat_request
from k8s_agent_scripted_llm.script import Step


def offline_model(body: dict[str, Any]) -> Step:
    """Answer one request body (Chat Completions or Responses) with the playbook's next move: on
    the mock cluster's tools, or through kubernetes-mcp-server's when those are what it is offered."""
    body = chat_request(body)
    if on_kube_surface(body):
        return kube_surface(body, playbook)
    return playbook(body)
