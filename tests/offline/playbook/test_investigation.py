"""The calls of a round (playbook/investigation.py): a pod of several containers is read container
by container once describe_pod shows them."""

from __future__ import annotations

from k8s_agent_scripted_llm.playbook.investigation import container_reads
from k8s_agent_scripted_llm.playbook.tables import Container


def test_a_pod_of_one_container_needs_no_read_by_name() -> None:
    assert container_reads([Container("api", init=False, state="Running", restarts=3)]) == []


def test_init_containers_that_ran_and_app_containers_in_trouble_are_read_by_name() -> None:
    containers = [
        Container("migrate", init=True, state="Terminated", reason="Completed", exit_code="0"),
        Container("api", init=False, state="Running", ready=True),
        Container("proxy", init=False, state="Running", last_state="Terminated", restarts=4, ready=False),
        Container("shipper", init=False, state="Waiting", reason="ContainerCreating"),
    ]

    assert container_reads(containers) == [("migrate", False), ("proxy", False), ("proxy", True)]
