"""What a question asks (playbook/questions.py): a question about an outage in everyday words is
about the cluster even when it names no Kubernetes object."""

from __future__ import annotations

import pytest

from k8s_agent_scripted_llm.playbook.questions import about_the_cluster, asks_about_nodes


@pytest.mark.parametrize(
    ("question", "about"),
    [
        ("Search has been unavailable since the chart upgrade. Why?", True),
        ("Uploads time out for some customers. What changed?", True),
        ("The reports page is degraded this morning, anything going on?", True),
        ("What is the capital of France?", False),
        ("Write me a haiku about autumn.", False),
    ],
)
def test_a_question_about_an_outage_in_everyday_words_is_about_the_cluster(
    question: str, about: bool
) -> None:
    assert about_the_cluster(question) is about


@pytest.mark.parametrize(
    ("question", "nodes"),
    [
        ("Push notifications stopped after the node group upgrade. What is wrong in notify?", False),
        ("clickhouse-1 has been down since the node pool rotation. Why?", False),
        ("Is the ml namespace OK? The trainer's node selector was changed.", False),
        ("Is every node healthy?", True),
        ("Which nodes are under memory pressure?", True),
    ],
)
def test_a_node_group_pool_or_selector_in_a_question_about_a_workload_does_not_make_it_a_node_question(
    question: str, nodes: bool
) -> None:
    """A workload is placed by its node group, pool or selector: naming one is not asking about nodes."""
    assert asks_about_nodes(question) is nodes
