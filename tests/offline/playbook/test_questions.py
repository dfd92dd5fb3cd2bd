"""What a question asks (playbook/questions.py): a question about an outage in everyday words is
about the cluster even when it names no Kubernetes object."""

from __future__ import annotations

import pytest

from k8s_agent_scripted_llm.playbook.questions import about_the_cluster


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
