"""A pytest plugin of the mutation job (scripts/mutation.py): runs a shard's test files in the order
the shard lists them, its module's own tests first, with every cache of the checkout's code empty.

mutmut hands pytest the tests that reach a mutated function in no particular order and stops at the
first failure (`-x`): a mutant the module's own quick tests catch should not wait for a minute of
end-to-end tests first. The order is read from `MUTATION_TEST_ORDER` (paths separated by the
platform's path separator); a test of a file not listed keeps its place after the listed ones.

mutmut forks each mutant's tests from a process that has already run them on the code as it is: a
function cache there (`functools.cache`, `lru_cache`) holds what the unmutated code returned, and a
mutant of a function the cached one calls would never run. Each session starts by emptying the
caches of the modules loaded from the checkout, module-level functions and class attributes alike.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

ORDER_VARIABLE = "MUTATION_TEST_ORDER"


def rank(nodeid: str, order: list[str]) -> int:
    path = nodeid.split("::", 1)[0]
    return order.index(path) if path in order else len(order)


def pytest_collection_modifyitems(items: list[Any]) -> None:
    order = [p for p in os.environ.get(ORDER_VARIABLE, "").split(os.pathsep) if p]
    if order:
        items.sort(key=lambda item: rank(item.nodeid, order))  # stable: within a file, as collected


def cleared_caches(root: Path) -> int:
    """Empty the function caches of every module loaded from under `root`; how many were emptied."""
    cleared = 0
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if file is None or not Path(file).resolve().is_relative_to(root):
            continue
        values = list(vars(module).values())
        members = [member for cls in values if isinstance(cls, type) for member in vars(cls).values()]
        values += [getattr(member, "__func__", member) for member in members]  # a static or class method's
        for value in values:
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and hasattr(value, "cache_info"):
                clear()
                cleared += 1
    return cleared


def pytest_sessionstart(session: Any) -> None:
    with warnings.catch_warnings():  # reading a class's members may warn (a deprecated attribute)
        warnings.simplefilter("ignore")
        cleared_caches(Path.cwd().resolve())
