"""A pytest plugin of the mutation job (scripts/mutation.py): runs a shard's test files in the order
the shard lists them, its module's own tests first.

mutmut hands pytest the tests that reach a mutated function in no particular order and stops at the
first failure (`-x`): a mutant the module's own quick tests catch should not wait for a minute of
end-to-end tests first. The order is read from `MUTATION_TEST_ORDER` (paths separated by the
platform's path separator); a test of a file not listed keeps its place after the listed ones.
"""

from __future__ import annotations

import os
from typing import Any

ORDER_VARIABLE = "MUTATION_TEST_ORDER"


def rank(nodeid: str, order: list[str]) -> int:
    path = nodeid.split("::", 1)[0]
    return order.index(path) if path in order else len(order)


def pytest_collection_modifyitems(items: list[Any]) -> None:
    order = [p for p in os.environ.get(ORDER_VARIABLE, "").split(os.pathsep) if p]
    if order:
        items.sort(key=lambda item: rank(item.nodeid, order))  # stable: within a file, as collected
