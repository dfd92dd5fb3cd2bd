"""Where a command's report goes: stdout in one format (`--format`), and any number of files
(`--out FILE`, repeatable) each in the format its suffix names, private (0600, each folder made for it
0700: a report quotes what the cluster showed). Shared by `contract` and `eval`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

FORMATS = ("md", "json", "html")
EXIT_USAGE = 2


def add_output_flags(parser: argparse.ArgumentParser) -> None:
    """`--format md|json|html` (stdout) and `--out FILE` (repeatable)."""
    parser.add_argument(
        "--format", choices=FORMATS, default="md", help="what stdout gets: md (default), json or html"
    )
    parser.add_argument(
        "--out",
        type=Path,
        action="append",
        metavar="FILE",
        help="also write the report here, as its suffix says (.json, .html, else markdown; repeatable)",
    )


def kind_of(path: Path) -> str:
    """The format a file's suffix names: json, html, else md."""
    return {".json": "json", ".html": "html", ".htm": "html"}.get(path.suffix.lower(), "md")


def emit(
    rendered: Callable[[str], str], fmt: str, outs: Sequence[Path], say: Callable[[str], None]
) -> int | None:
    """Write each file, then print `fmt` to stdout whatever happened to the files (nothing is lost);
    EXIT_USAGE when a file could not be written, else None."""
    from k8s_agent_harness.traces.private import private_dirs, write_private

    status = None
    for path in outs:
        try:
            private_dirs(path.parent)
            write_private(path, rendered(kind_of(path)))
        except OSError as error:
            print(f"error: cannot write {path}: {error.strerror or error}", file=sys.stderr)
            status = EXIT_USAGE
            continue
        say(f"report written to {path}")
    print(rendered(fmt), end="")
    return status
