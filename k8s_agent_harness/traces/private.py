"""Files that can hold what a cluster showed or a credential, kept private as kubectl keeps its config.

Every such file the agent writes (a trace, a saved report, an eval's results, a kubeconfig or a
server's settings it writes for a run) is created with mode 0600 from its first byte, whatever the
process umask: `os.open(..., 0o600)`, then `fchmod` to exactly 0600, so there is no moment when it
is readable by others. Every folder the agent creates for them is 0700, each missing parent
included (`private_dirs` is `mkdir -p`). A folder that already exists is the user's and keeps its
mode; a regular file written into it is 0600 all the same (one that belongs to someone else, which
we may write but not chmod, keeps its owner's mode). What is written is never changed.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import BinaryIO, Literal, TextIO, overload

FILE_MODE = 0o600
"""A private file: read and written by its owner only."""
DIR_MODE = 0o700
"""A private folder: listed, entered and written by its owner only."""

_FLAGS = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)


def private_dirs(folder: Path) -> list[Path]:
    """`mkdir -p folder`, each folder it creates 0700 whatever the umask; returns those it created,
    the outermost first. A folder that exists already keeps its mode. Raises OSError as
    `Path.mkdir(parents=True, exist_ok=True)` does (FileExistsError when `folder` is a file)."""
    missing: list[Path] = []
    for path in (folder, *folder.parents):
        if path.is_dir():
            break
        missing.append(path)
    made: list[Path] = []
    for path in reversed(missing):
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            if not path.is_dir():
                raise
            continue  # made meanwhile by someone else: theirs, left as it is
        os.chmod(path, DIR_MODE)  # the umask may have taken the owner's bits too
        made.append(path)
    return made


@overload
def open_private(path: Path, mode: Literal["w", "a"] = "w") -> TextIO: ...
@overload
def open_private(path: Path, mode: Literal["wb", "ab"]) -> BinaryIO: ...
def open_private(path: Path, mode: Literal["w", "a", "wb", "ab"] = "w") -> TextIO | BinaryIO:
    """`path` opened for writing (`w`, truncated) or appending (`a`), as text in UTF-8 or binary
    (`wb`, `ab`), created 0600 if it is new and made 0600 if it was not. Its folder must exist
    (`private_dirs`). Raises OSError as `open` does."""
    append = mode.startswith("a")
    fd = os.open(path, _FLAGS | (os.O_APPEND if append else os.O_TRUNC), FILE_MODE)
    try:
        _restrict(fd)
        if mode.endswith("b"):
            return os.fdopen(fd, "ab") if append else os.fdopen(fd, "wb")
        return os.fdopen(fd, "a", encoding="utf-8") if append else os.fdopen(fd, "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def write_private(path: Path, text: str) -> None:
    """`path.write_text(text, encoding="utf-8")`, the file 0600 (`open_private`)."""
    with open_private(path) as out:
        out.write(text)


def is_private(path: Path) -> bool:
    """Whether `path` is a regular file with mode 0600 (False when it is missing)."""
    try:
        st = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == FILE_MODE


def _restrict(fd: int) -> None:
    """Make an open regular file 0600 (a terminal, a pipe or /dev/null is left as it is)."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or stat.S_IMODE(st.st_mode) == FILE_MODE:
        return
    fchmod = getattr(os, "fchmod", None)
    if fchmod is None:  # pragma: no cover - not on this platform
        return
    with contextlib.suppress(PermissionError):  # another user's file we may write: its owner decides
        fchmod(fd, FILE_MODE)
