"""Every rule of the offline model has a test of its own that names it.

A rule is a function of the playbook whose docstring starts with "Rule:" or "Cause rule:", or a
member of TAXONOMY (taxonomy.py) or CAUSE_RULES (causes.py). A test names a rule when its docstring
says the rule's name as a whole word: `module.name` always does; the bare name does too when no other
rule has it, in backticks, or plain when it cannot be an everyday word (it has an underscore)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import k8s_agent_scripted_llm.playbook as playbook
from k8s_agent_scripted_llm.playbook.causes import CAUSE_RULES
from k8s_agent_scripted_llm.playbook.taxonomy import TAXONOMY

RULE_PREFIXES = ("Rule:", "Cause rule:")
TESTS = Path(__file__).parent
FEWEST_RULES = 30
"""The playbook states more rules than this: a collection that finds fewer has lost some."""
FEWEST_TESTS = 50
"""This folder holds more test functions than this: a scan that finds fewer reads too little."""


@dataclass(frozen=True, order=True)
class Rule:
    """A rule by its module (taxonomy, causes, ...) and its function's name."""

    module: str
    name: str

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.name}"


def rule_of(function: Callable[..., Any]) -> Rule:
    return Rule(function.__module__.rsplit(".", 1)[-1], function.__name__)


def playbook_modules() -> list[ModuleType]:
    return [
        importlib.import_module(f"{playbook.__name__}.{info.name}")
        for info in pkgutil.iter_modules(playbook.__path__)
    ]


def stated_rules(module: ModuleType) -> Iterable[Rule]:
    """The functions a module defines whose docstring states a rule."""
    for function in vars(module).values():
        if not inspect.isfunction(function) or function.__module__ != module.__name__:
            continue
        if (function.__doc__ or "").startswith(RULE_PREFIXES):
            yield rule_of(function)


def playbook_rules() -> set[Rule]:
    rules = {rule for module in playbook_modules() for rule in stated_rules(module)}
    return (
        rules | {rule_of(function) for function in TAXONOMY} | {rule_of(function) for function in CAUSE_RULES}
    )


def docstrings_of_tests() -> list[str]:
    """The docstrings of the test functions of this folder, this file's aside."""
    docstrings = []
    for path in sorted(TESTS.glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
                docstrings.append(ast.get_docstring(node) or "")
    return docstrings


def names(docstring: str, rule: Rule, shared: bool) -> bool:
    """Whether the docstring names the rule (`shared`: another rule has the same bare name)."""
    ways = [rf"(?<![\w.`]){re.escape(rule.qualified)}(?!\w)", rf"`{re.escape(rule.qualified)}`"]
    if not shared:
        ways.append(rf"`{re.escape(rule.name)}`")
        if "_" in rule.name:
            ways.append(rf"(?<![\w.`]){re.escape(rule.name)}(?!\w)")
    return any(re.search(way, docstring) for way in ways)


def test_every_rule_is_named_by_a_test_of_its_own() -> None:
    rules = playbook_rules()
    shared = {name for name, count in Counter(rule.name for rule in rules).items() if count > 1}
    docstrings = docstrings_of_tests()

    untested = [
        rule.qualified
        for rule in sorted(rules)
        if not any(names(docstring, rule, rule.name in shared) for docstring in docstrings)
    ]

    assert untested == [], "rules no test's docstring names: " + ", ".join(untested)


def test_the_index_finds_the_rules_of_every_kind() -> None:
    rules = playbook_rules()
    stated = {rule for module in playbook_modules() for rule in stated_rules(module)}

    assert len(rules) >= FEWEST_RULES, sorted(rules)
    assert {rule_of(function) for function in CAUSE_RULES} <= stated
    assert len(stated - {rule_of(function) for function in CAUSE_RULES}) >= 10
    assert len(TAXONOMY) >= 5 and {rule_of(function) for function in TAXONOMY} <= rules
    assert Rule("taxonomy", "killed_for_memory") in rules and Rule("causes", "killed_for_memory") in rules
    assert len(docstrings_of_tests()) >= FEWEST_TESTS


STARTING = Rule("pods", "is_starting")
CRASHES = Rule("taxonomy", "crashes")
MEMORY = Rule("causes", "killed_for_memory")


@pytest.mark.parametrize(
    ("docstring", "rule", "shared", "named"),
    [
        ("Rule `is_starting`: a pod on its way up ...", STARTING, False, True),
        ("Rules is_starting and still_initialising: ...", STARTING, False, True),
        ("Rule `pods.is_starting`: ...", STARTING, False, True),
        ("Rule `is_starting_soon`: ...", STARTING, False, False),
        ("Rule `my_is_starting`: ...", STARTING, False, False),
        ("Rule `init.is_starting`: ...", STARTING, False, False),
        ("A pod that is starting is not unhealthy.", STARTING, False, False),
        ("Rule `crashes`: any other line of a crash.", CRASHES, False, True),
        ("The container crashes at start-up.", CRASHES, False, False),
        ("Rule `killed_for_memory`: OOMKilled.", MEMORY, True, False),
        ("Rule `taxonomy.killed_for_memory`: OOMKilled.", MEMORY, True, False),
        ("Rule `causes.killed_for_memory`: OOMKilled.", MEMORY, True, True),
        ("Rule causes.killed_for_memory: OOMKilled.", MEMORY, True, True),
    ],
)
def test_a_rule_is_named_by_its_whole_name_and_a_shared_name_by_its_module(
    docstring: str, rule: Rule, shared: bool, named: bool
) -> None:
    assert names(docstring, rule, shared) is named
