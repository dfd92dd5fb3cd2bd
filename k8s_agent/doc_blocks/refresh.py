"""`python -m k8s_agent.docs refresh [--check] [--block ID] [PAGE ...]`: run the commands behind the
pages' generated blocks and rewrite the blocks in place, or, with --check, say which no longer show
what their command prints (durations and times aside). Recorded blocks are left alone.

Exit status: 0 done (with --check: every block is current), 1 a block is out of date (--check) or
its command failed, 2 bad input (an unknown page or block, markers that do not pair up).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from k8s_agent.doc_blocks.block import Block
from k8s_agent.doc_blocks.markers import MarkerError, generated_blocks, replace_bodies
from k8s_agent.doc_blocks.normalise import normalised
from k8s_agent.doc_blocks.shell import BlockError, Shell

ROOT = Path(__file__).resolve().parent.parent.parent
"""The repository the pages are in (this package's checkout)."""


class UsageError(ValueError):
    """Bad input to refresh: one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (exit 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


@dataclass(frozen=True)
class Outcome:
    """What a refresh found: blocks rewritten, out of date (--check), or whose command failed."""

    rewritten: list[str]
    stale: list[str]
    failed: list[str]

    @property
    def exit_code(self) -> int:
        return 1 if self.stale or self.failed else 0


def pages_of(blocks: Mapping[str, Block]) -> list[str]:
    """Every page that has a generated block."""
    return sorted({block.page for block in blocks.values()})


def chosen_pages(names: Sequence[str], blocks: Mapping[str, Block]) -> list[str]:
    """The pages named (`docs/compare.md`, `compare.md` or `compare`), or all of them."""
    pages = pages_of(blocks)
    if not names:
        return pages
    chosen = []
    for name in names:
        matches = [page for page in pages if name in (page, Path(page).name, Path(page).stem)]
        if not matches:
            raise UsageError(f"no generated block on {name!r}: the pages with some are {', '.join(pages)}")
        chosen += [page for page in matches if page not in chosen]
    return chosen


def refresh(
    root: Path,
    pages: Sequence[str],
    shell: Shell,
    blocks: Mapping[str, Block],
    *,
    check: bool = False,
    only: Sequence[str] = (),
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> Outcome:
    """Regenerate each generated block of `pages` (those of `only`, when given) and write back those
    that no longer show what their command prints (durations and times aside), or with `check` only
    name them."""
    unknown = [block_id for block_id in only if block_id not in blocks]
    if unknown:
        raise UsageError(f"unknown block {', '.join(unknown)}: choose from {', '.join(sorted(blocks))}")
    outcome = Outcome([], [], [])
    for page in pages:
        text = (root / page).read_text(encoding="utf-8")
        marked = generated_blocks(text, page)
        _check_markers(page, [m.id for m in marked], blocks)
        bodies = {}
        for mark in marked:
            block = blocks[mark.id]
            if only and block.id not in only:
                continue
            started = time.monotonic()
            try:
                body = block.produce(shell)
            except BlockError as error:
                say(f"{page}: {block.id}: FAILED: {error}")
                outcome.failed.append(block.id)
                continue
            current = normalised(mark.body) == normalised(body) and mark.command == block.command
            say(
                f"{page}: {block.id}: {'current' if current else 'out of date'} ({time.monotonic() - started:.1f} s)"
            )
            if not current:  # a block that differs only in what varies stays: the diff shows what changed
                (outcome.stale if check else outcome.rewritten).append(block.id)
                bodies[block.id] = (block.command, body)
        if not check and bodies:
            _write(root / page, bodies, page)
    return outcome


def _write(path: Path, bodies: dict[str, tuple[str, str]], page: str) -> None:
    """Rewrite the blocks into the page as it is now (read again: the commands may have taken
    minutes, and the prose around the blocks may have been edited meanwhile)."""
    text = path.read_text(encoding="utf-8")
    updated = replace_bodies(text, bodies, page)
    if updated != text:
        path.write_text(updated, encoding="utf-8")


def _check_markers(page: str, marked: list[str], blocks: Mapping[str, Block]) -> None:
    """Every marker names a block of this page, once; every block of this page has its marker."""
    strangers = [block_id for block_id in marked if block_id not in blocks or blocks[block_id].page != page]
    twice = sorted({block_id for block_id in marked if marked.count(block_id) > 1})
    missing = [block.id for block in blocks.values() if block.page == page and block.id not in marked]
    problems = (
        [f"{block_id} is not a block of {page}" for block_id in strangers]
        + [f"{block_id} is marked twice" for block_id in twice]
        + [f"{block_id} has no markers" for block_id in missing]
    )
    if problems:
        raise UsageError(f"{page}: {'; '.join(problems)}")


def main(argv: Sequence[str], blocks: Mapping[str, Block]) -> int:
    """The `refresh` command line."""
    parser = _Parser(
        prog="python -m k8s_agent.docs refresh",
        description="Run the commands behind the pages' generated blocks and rewrite the blocks "
        "(--check: only say which are out of date). Recorded runs are left alone.",
        allow_abbrev=False,
    )
    parser.add_argument(
        "pages", nargs="*", metavar="PAGE", help="README.md, docs/eval.md, eval... (default: all)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a block is out of date"
    )
    parser.add_argument(
        "--block", action="append", default=[], metavar="ID", help="only this block (repeatable)"
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this checkout)")
    args = parser.parse_args(argv)
    try:
        pages = chosen_pages(args.pages, blocks)
        if args.block:
            pages = [
                page for page in pages if any(blocks[b].page == page for b in args.block if b in blocks)
            ] or pages
        with tempfile.TemporaryDirectory(prefix="k8s-agent-docs-") as folder:
            outcome = refresh(
                args.root, pages, Shell(Path(folder)), blocks, check=args.check, only=args.block
            )
    except (UsageError, MarkerError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if outcome.stale:
        print(
            f"out of date: {', '.join(outcome.stale)} (python -m k8s_agent.docs refresh rewrites them)",
            file=sys.stderr,
        )
    if outcome.failed:
        print(f"failed: {', '.join(outcome.failed)}", file=sys.stderr)
    if outcome.rewritten:
        print(f"rewritten: {', '.join(outcome.rewritten)}", file=sys.stderr)
    return outcome.exit_code
