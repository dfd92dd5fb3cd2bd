"""The trivial baselines of every eval (k8s_agent_scripted_llm/baselines.py): what they do with a request.

The floor is only a floor if it is trivial: `baseline:parrot` never calls a tool, `baseline:status`
makes one listing and reads nothing but its STATUS and READY columns, on the mock cluster's tools or
kubernetes-mcp-server's. The third baseline, the events reader, has tests of its own
(test_baseline_rules.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from k8s_agent_mock_cluster.cluster import table
from k8s_agent_scripted_llm import Reply, responder_for
from k8s_agent_scripted_llm.baselines import parrot, status

TOOLS = [
    {"type": "function", "function": {"name": name}} for name in ("list_pods", "describe_pod", "list_nodes")
]
SCHEMA = {"type": "json_schema", "json_schema": {"name": "report"}}
LISTING = table(
    ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS"],
    [
        ["shop", "api-7c9d8f6b5-q2w4x", "0/1", "CrashLoopBackOff", "14"],
        ["shop", "web-5c6b4c8d9-k8m2x", "0/1", "Running", "0"],
        ["shop", "export-29183-x7k2p", "0/1", "Completed", "0"],
        ["shop", "cache-0", "1/1", "Running", "0"],
    ],
)


def body(
    question: str, *, results: Sequence[tuple[str, dict[str, Any], str]] = (), **extra: Any
) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You diagnose."},
        {"role": "user", "content": question},
    ]
    for number, (tool, arguments, text) in enumerate(results):
        call_id = f"call_{number}"
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps(arguments)},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
    return {
        "messages": messages,
        "tools": TOOLS,
        "response_format": SCHEMA,
        "tool_choice": "required",
        **extra,
    }


def report(step: Any) -> dict[str, Any]:
    assert isinstance(step, Reply) and not step.tool_calls
    parsed: dict[str, Any] = json.loads(step.content or "")
    return parsed


def test_the_parrot_never_calls_a_tool_even_when_forced() -> None:
    answer = report(parrot(body("Why is checkout-api crashing in the shop namespace?")))
    assert [(f["name"], f["namespace"], f["cause"]) for f in answer["findings"]] == [
        ("checkout-api", "shop", "crash_application")
    ]
    assert answer["findings"][0]["evidence"][0]["text"].startswith("Why is checkout-api")


def test_the_parrot_says_all_healthy_without_a_name() -> None:
    answer = report(parrot(body("Is everything OK in the payments namespace?")))
    assert answer["findings"] == [] and answer["scope"] == "pods in namespace payments"


def test_the_status_baseline_makes_one_listing_of_the_asked_namespace() -> None:
    step = status(body("Which pods in the namespace shop are unhealthy?"))
    assert isinstance(step, Reply) and [(c.name, json.loads(c.arguments)) for c in step.tool_calls] == [
        ("list_pods", {"namespace": "shop"})
    ]


def test_the_status_baseline_reports_the_status_column_and_nothing_more() -> None:
    listed = [("list_pods", {"namespace": "shop"}, LISTING)]
    answer = report(status(body("Which pods in the namespace shop are unhealthy?", results=listed)))
    assert [(f["name"], f["cause"]) for f in answer["findings"]] == [
        ("api-7c9d8f6b5-q2w4x", "crash_application"),
        ("web-5c6b4c8d9-k8m2x", "readiness_probe_failure"),
    ]
    row = answer["findings"][0]["evidence"][0]
    assert row["call_id"] == "call_0" and "CrashLoopBackOff" in row["text"]
    assert answer["healthy"]["count"] == 2  # a Completed pod and a ready one


def test_the_status_baseline_lists_nodes_for_a_node_question() -> None:
    step = status(body("Is every node healthy?"))
    assert isinstance(step, Reply) and [c.name for c in step.tool_calls] == ["list_nodes"]


def test_baselines_answer_in_the_format_asked() -> None:
    prose = parrot(body("Is checkout-api down?", response_format=None))
    assert (
        isinstance(prose, Reply)
        and "checkout-api" in (prose.content or "")
        and not (prose.content or "").startswith("{")
    )


def test_models_by_name() -> None:
    assert responder_for("baseline:parrot") is parrot and responder_for("baseline:status") is status
    assert responder_for("baseline:rules").__name__ == "rules"
    assert responder_for("offline").__name__ == "offline_model"


def test_the_namespace_is_the_word_before_namespace_first() -> None:
    step = status(body("Which pods in the production namespace are unhealthy, and why?"))
    assert isinstance(step, Reply) and json.loads(step.tool_calls[0].arguments) == {"namespace": "production"}


KUBE_TOOLS = [
    {"type": "function", "function": {"name": name}}
    for name in (
        "pods_list",
        "pods_list_in_namespace",
        "pods_get",
        "pods_log",
        "events_list",
        "resources_list",
    )
]
# As kubernetes-mcp-server prints a listing: kubectl's wide table, columns of two words, labels last.
KUBE_LISTING = table(
    [
        "NAMESPACE",
        "APIVERSION",
        "KIND",
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
        "NODE",
        "NOMINATED NODE",
        "LABELS",
    ],
    [
        [
            "shop",
            "v1",
            "Pod",
            "api-7c9d8f6b5-q2w4x",
            "0/1",
            "CrashLoopBackOff",
            "14 (2m ago)",
            "3h",
            "node-a",
            "<none>",
            "app=api",
        ],
        ["shop", "v1", "Pod", "cache-0", "1/1", "Running", "0", "9d", "node-b", "<none>", "app=cache"],
    ],
)


def test_the_status_baseline_lists_with_kubernetes_mcp_server_s_tools_when_offered_them() -> None:
    asked = status(body("Which pods in the namespace shop are unhealthy?", tools=KUBE_TOOLS))
    assert isinstance(asked, Reply) and [(c.name, json.loads(c.arguments)) for c in asked.tool_calls] == [
        ("pods_list_in_namespace", {"namespace": "shop"})
    ]
    nodes = status(body("Is every node healthy?", tools=KUBE_TOOLS))
    assert isinstance(nodes, Reply) and [(c.name, json.loads(c.arguments)) for c in nodes.tool_calls] == [
        ("resources_list", {"apiVersion": "v1", "kind": "Node"})
    ]

    listed = [("pods_list_in_namespace", {"namespace": "shop"}, KUBE_LISTING)]
    answer = report(
        status(body("Which pods in the namespace shop are unhealthy?", results=listed, tools=KUBE_TOOLS))
    )
    assert [(f["name"], f["namespace"], f["cause"], f["status"]) for f in answer["findings"]] == [
        ("api-7c9d8f6b5-q2w4x", "shop", "crash_application", "CrashLoopBackOff, READY 0/1")
    ]
    assert answer["findings"][0]["evidence"][0]["tool"] == "pods_list_in_namespace"
    assert answer["healthy"]["count"] == 1
