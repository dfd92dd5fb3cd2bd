"""The names the model knows tools by.

MCP allows tool names that the Chat Completions and Responses APIs refuse as function names
(`k8s.pods/list`, a name over 64 characters): an endpoint that checks the pattern answers every
request that offers one with HTTP 400. Such a tool is offered under an alias that fits, and called
on the server by its real name. An alias depends on the tool's name alone (never on the order of a
listing), so it stays the same for the whole run and across runs; one that would collide with
another tool's name gets a short hash of the real name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""What the Chat Completions and Responses APIs accept as a function name."""
MAX_NAME = 64
HASH_DIGITS = 8


def fits(name: str) -> bool:
    """Whether the model's API accepts `name` as a function name as it is."""
    return FUNCTION_NAME.fullmatch(name) is not None


def model_names(
    names: Iterable[str], known: Mapping[str, str] | None = None, reserved: Iterable[str] = ()
) -> dict[str, str]:
    """The name the model knows each tool by, by real name: the real name when it fits the
    function-name pattern and is free, else an alias that fits and collides with no other name (nor
    with `reserved`, the harness's own tools). `known` holds the names given earlier in the run:
    they are kept, so a tool's name never changes under the model. Returns `known` and the new ones."""
    chosen = dict(known or {})
    taken = set(chosen.values()) | set(reserved)
    new = [name for name in dict.fromkeys(names) if name not in chosen]
    for name in new:
        if fits(name) and name not in taken:
            chosen[name] = name
            taken.add(name)
    rest = [name for name in new if name not in chosen]
    plain = {name: _plain_alias(name) for name in rest}
    counts: dict[str, int] = {}
    for alias in plain.values():
        counts[alias] = counts.get(alias, 0) + 1
    for name in rest:
        alias = plain[name]
        if alias in taken or counts[alias] > 1 or len(alias) > MAX_NAME:
            alias = _hashed_alias(name, taken)
        chosen[name] = alias
        taken.add(alias)
    return chosen


def aliases(names: Mapping[str, str]) -> dict[str, str]:
    """The aliases only, by real name (the tools whose name the model knows differently)."""
    return {real: known for real, known in names.items() if real != known}


def _plain_alias(name: str) -> str:
    """The name with every character a function name cannot have replaced by `_`."""
    alias = re.sub(r"[^a-zA-Z0-9_-]", "_", name)
    return alias or "tool"


def _hashed_alias(name: str, taken: set[str]) -> str:
    """The plain alias cut to fit, with a hash of the real name: unique in practice, and made unique
    by a longer hash in the one case in billions where it is not."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
    for digits in range(HASH_DIGITS, len(digest) + 1):
        suffix = f"_{digest[:digits]}"
        alias = _plain_alias(name)[: MAX_NAME - len(suffix)] + suffix
        if alias not in taken:
            return alias
    raise AssertionError("a sha256 collision")  # pragma: no cover
