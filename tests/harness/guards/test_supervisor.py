"""The supervisor's budgets on a clock the test turns: the model cannot talk past them, and a call in
flight is given only what is left of the wall-clock budget."""

from __future__ import annotations

from k8s_agent_harness.guards.supervisor import Supervisor
from k8s_agent_harness.vocabulary import StopReason


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_wall_clock_budget_ends_the_run_at_exactly_its_seconds_and_leaves_nothing_after() -> None:
    clock = Clock()
    supervisor = Supervisor(max_steps=10, max_repeats=3, max_seconds=30, clock=clock)
    clock.now += 12.5
    assert supervisor.seconds_left() == 17.5 and supervisor.stop_reason() is None
    clock.now += 17.5
    assert supervisor.seconds_left() == 0.0
    assert supervisor.stop_reason() is StopReason.TIME_BUDGET
    clock.now += 60
    assert supervisor.seconds_left() == 0.0


def test_each_pushback_earns_one_more_turn() -> None:
    supervisor = Supervisor(max_steps=2, max_repeats=3, max_seconds=30, clock=Clock())
    supervisor.turn_taken()
    supervisor.pushback_given()
    supervisor.pushback_given()
    assert supervisor.turns_left == 3
    for _ in range(3):
        assert supervisor.stop_reason() is None
        supervisor.turn_taken()
    assert supervisor.stop_reason() is StopReason.STEP_BUDGET


def test_a_call_seen_more_often_than_allowed_ends_the_run_and_a_lost_server_comes_first() -> None:
    supervisor = Supervisor(max_steps=10, max_repeats=2, max_seconds=30, clock=Clock())
    assert [supervisor.call_seen("f") for _ in range(2)] == [1, 2]
    assert supervisor.stop_reason() is None
    supervisor.call_seen("f")
    assert supervisor.stop_reason() is StopReason.REPEATED_CALLS
    supervisor.server_gone = True
    assert supervisor.stop_reason() is StopReason.SERVER_GONE
