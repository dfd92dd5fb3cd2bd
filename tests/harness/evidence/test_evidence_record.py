"""What the run's evidence records of each tool result: the text, and where it came from."""

from __future__ import annotations

from k8s_agent_harness.evidence.grounding import NAMESPACE, NODE, POD, Evidence, Mention, ToolText
from k8s_agent_harness.evidence.provenance import Source, sources_of


def recorded() -> Evidence:
    """A result of a call with arguments, structured content and declared parameters, and a failure."""
    evidence = Evidence()
    evidence.add(
        "pods: web-1",
        "call-1",
        "pods_list",
        {"namespace": "équipe"},
        structured={"items": []},
        parameters=["namespace"],
    )
    evidence.add_failure(
        "namespace not found", "call-2", "pods_list", {"namespace": "gone"}, parameters=["namespace"]
    )
    return evidence


def test_each_result_is_kept_with_its_call_its_tool_its_arguments_and_what_its_tool_declares() -> None:
    evidence = recorded()

    evidence.add("events: none", "call-3", "events_list", ["not", "a", "dict"])

    assert evidence.results == [
        ToolText(
            "call-1",
            "pods_list",
            "pods: web-1",
            '{"namespace": "équipe"}',
            structured={"items": []},
            parameters=("namespace",),
        ),
        ToolText(
            "call-2",
            "pods_list",
            "namespace not found",
            '{"namespace": "gone"}',
            ok=False,
            parameters=("namespace",),
        ),
        ToolText("call-3", "events_list", "events: none", ""),
    ]


def test_results_without_a_call_have_empty_provenance_and_empty_texts_are_not_kept() -> None:
    evidence = Evidence()

    evidence.add("")
    evidence.add_failure("")
    evidence.add("pods: web-1")
    evidence.add_failure("timed out")

    assert evidence.results == [
        ToolText("", "", "pods: web-1", ""),
        ToolText("", "", "timed out", "", ok=False),
    ]


def test_the_text_is_the_question_and_each_successful_result_once() -> None:
    asked = Evidence("Why does web-1 crash?")
    asked.add("pods: web-1")
    asked.add("pods: web-1", "again")
    asked.add_failure("node worker-9 unreachable")

    assert asked.text == "Why does web-1 crash?\npods: web-1"
    assert len(asked.results) == 3
    assert Evidence().text == ""


def test_a_failure_grounds_no_name_and_the_built_in_namespaces_are_grounded_only_as_namespaces() -> None:
    evidence = Evidence()
    evidence.add_failure("pod ghost-7d9f8c-x1z2 on node worker-9 in namespace shop: not found")

    assert not evidence.contains(Mention("ghost-7d9f8c-x1z2", POD))
    assert not evidence.contains(Mention("worker-9", NODE))
    assert not evidence.contains(Mention("shop", NAMESPACE))
    assert evidence.contains(Mention("kube-system", NAMESPACE))
    assert not evidence.contains(Mention("kube-system", NODE))
    assert not evidence.contains(Mention("default", POD))


def test_each_result_becomes_a_source_with_its_arguments_read_back_and_once_only() -> None:
    evidence = recorded()

    first = list(evidence.sources)
    evidence.add("events: none", "call-3", "events_list")

    assert first == [
        Source(
            "call-1", "pods_list", "pods: web-1", {"namespace": "équipe"}, True, {"items": []}, ("namespace",)
        ),
        Source(
            "call-2", "pods_list", "namespace not found", {"namespace": "gone"}, False, None, ("namespace",)
        ),
    ]
    assert evidence.sources[:2] == first and evidence.sources[2] == Source(
        "call-3", "events_list", "events: none", {}, True
    )
    # Arguments that are no JSON object (a list, a cut text) read as none.
    assert sources_of([ToolText("c", "t", "x", "[1, 2]"), ToolText("c", "t", "x", '{"cut')]) == [
        Source("c", "t", "x", {}, True),
        Source("c", "t", "x", {}, True),
    ]
