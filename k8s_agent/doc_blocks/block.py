"""A block of a page that shows what a command printed: how to make it, and how a test checks it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from k8s_agent.doc_blocks.shell import Shell


@dataclass(frozen=True)
class Check:
    """What `tests/test_docs.py` runs to check a block: the same command when it takes seconds, or a
    cheaper one that prints part of it (two rows of a table, the rows of one cluster size)."""

    expected: Callable[[Shell], str]
    """The text the page must show, normalised as the block is (durations and times blanked)."""
    whole: bool = True
    """True: the block is this text. False: each of its lines is a line of the block, in order."""
    how: str = "the same command"
    """What the test runs, in a few words."""


@dataclass(frozen=True)
class Block:
    """One generated block: `python -m k8s_agent.docs refresh` writes `produce(shell)` between its markers."""

    id: str
    page: str
    """The page it is on, from the repository's root (`README.md`, `docs/compare.md`)."""
    command: str
    """What runs, as its opening marker names it."""
    shows: str
    """What the block is, in a few words (the table in docs/testing.md)."""
    produce: Callable[[Shell], str]
    check: Check | None = None
    """None: the script regenerates it, no test runs it (minutes of runs, or times that vary)."""
