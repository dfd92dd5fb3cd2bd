"""The run pool of eval, compare and contract (k8s_agent.pool.run_pool): at most `concurrency` runs
at once, results in the items' order, each end told, and a failure or a cancellation leaves no run
going and every run's clean-up done."""

from __future__ import annotations

import asyncio

import pytest

from k8s_agent.pool import run_pool


def test_at_most_concurrency_runs_go_at_once_and_results_keep_the_items_order() -> None:
    running, most, told = 0, 0, []

    async def run(item: int) -> int:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.001 * (10 - item))  # later items end first
        running -= 1
        return item * item

    async def done(item: int, result: int) -> None:
        await asyncio.sleep(0)
        told.append((item, result))

    results = asyncio.run(run_pool(list(range(10)), run, concurrency=3, on_done=done))

    assert results == [item * item for item in range(10)]
    assert most == 3 and sorted(told) == [(item, item * item) for item in range(10)]


def test_a_failing_run_cancels_the_others_and_each_cleans_up_before_the_pool_returns() -> None:
    started: list[int] = []
    cleaned: list[int] = []

    async def run(item: int) -> int:
        started.append(item)
        try:
            if item == 2:
                await asyncio.sleep(0.01)
                raise RuntimeError("run 2 broke")
            await asyncio.sleep(10)
            return item
        finally:
            cleaned.append(item)

    with pytest.raises(RuntimeError, match="run 2 broke"):
        asyncio.run(run_pool(list(range(6)), run, concurrency=4))

    # Every run that started has ended (the one that took run 2's slot too); the last never started.
    assert sorted(cleaned) == sorted(started) and 5 not in started and {0, 1, 2, 3} <= set(started)


def test_a_cancelled_pool_leaves_no_run_going() -> None:
    started, cleaned = [], []

    async def run(item: int) -> int:
        started.append(item)
        try:
            await asyncio.sleep(10)
            return item
        finally:
            cleaned.append(item)

    async def main() -> None:
        pool = asyncio.ensure_future(run_pool(list(range(5)), run, concurrency=2))
        await asyncio.sleep(0.01)
        pool.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pool

    asyncio.run(main())
    assert started == [0, 1] and sorted(cleaned) == [0, 1]
