"""The mutation job (scripts/mutation.py) stays runnable: every shard names modules and tests that
exist, its parts share the shards out, and mutmut's verdicts are counted as docs/testing.md says."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def job() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_job", ROOT / "scripts" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_job"] = module
    spec.loader.exec_module(module)
    return module


def test_every_shard_names_modules_and_tests_that_exist(job: ModuleType) -> None:
    missing = []
    for shard in job.SHARDS:
        for module in shard.modules:
            if not list(ROOT.glob(module)):
                missing.append(f"{shard.name}: module {module}")
        for test in shard.tests:
            if not (ROOT / test).is_file():
                missing.append(f"{shard.name}: test {test}")
    assert missing == []
    assert len({shard.name for shard in job.SHARDS}) == len(job.SHARDS)


def test_the_parts_share_out_every_shard_once(job: ModuleType) -> None:
    parts = [job.select(None, f"{k}/3") for k in (1, 2, 3)]
    names = [shard.name for part in parts for shard in part]
    assert sorted(names) == sorted(shard.name for shard in job.SHARDS)
    with pytest.raises(ValueError, match="K must be between 1 and N"):
        job.select(None, "4/3")
    with pytest.raises(ValueError, match="expected K/N"):
        job.select(None, "half")


def test_verdicts_are_counted_and_survivors_kept_by_name(job: ModuleType, tmp_path: Path) -> None:
    shard = job.SHARDS[0]
    meta = tmp_path / "mutants" / "pkg" / "m.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {"m.x_a__mutmut_1": 1, "m.x_a__mutmut_2": 0, "m.x_b__mutmut_1": 33, "m.x_b__mutmut_2": -24}
    meta.write_text(json.dumps({"exit_code_by_key": codes | {"m.x_c__mutmut_1": None}}))

    outcome = job.read_outcome(shard, tmp_path)

    assert outcome["counts"] == {"killed": 1, "survived": 1, "no tests": 1, "timeout": 1, "not checked": 1}
    assert outcome["survivors"] == {"m.x_a__mutmut_2": "survived", "m.x_b__mutmut_1": "no tests"}
    assert job.score(outcome["counts"]) == (2, 4)


def test_a_survivor_is_tried_again_only_where_mutmut_could_not_see_it(
    job: ModuleType, tmp_path: Path
) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "def _when(a):\n    return a\n\n"
        "def quiet(b):\n    return _helper(b)\n\n"
        "TABLE = {'x': _when('x')}\n\n"
        "class Policy:\n    default = _made()\n\n    def verdict(self):\n        return inside()\n"
    )
    assert job.called_at_import(module) >= {"_when", "_made"}
    assert not job.called_at_import(module) & {"_helper", "inside", "quiet", "verdict"}
    assert job.function_of("pkg.m.x__when__mutmut_2") == "_when"
    assert job.function_of("pkg.m.x_quiet__mutmut_11") == "quiet"
    assert job.function_of("pkg.m.xǁPolicyǁverdict__mutmut_6") == "verdict"


@pytest.mark.parametrize(
    ("changed", "rewords"),
    [
        ('    return f"the run failed: {why}"', '    return f"XXthe run failed: {why}XX"'),
        (
            '    fail(run, "the last request offers tools", said)',
            '    fail(run, "THE LAST REQUEST OFFERS TOOLS", said)',
        ),
    ],
)
def test_a_survivor_that_only_rewords_a_message_is_told_apart(
    job: ModuleType, changed: str, rewords: str
) -> None:
    assert job.rewords_a_message(f"--- a.py\n+++ a.py\n@@ -1 +1 @@\n-{changed}\n+{rewords}")


@pytest.mark.parametrize(
    ("changed", "mutant"),
    [
        ('    return tool.task_support == "required"', '    return tool.task_support == "XXrequiredXX"'),
        ('    why = ""', '    why = "XXXX"'),
        ('    fail(run, "the last request offers tools", said)', "    fail(run, None, said)"),
        ("    if len(found) > 1:", "    if len(found) > 2:"),
        ('    a = "x y"', '    b = "X Y"'),
    ],
    ids=["a-value-compared", "an-empty-string", "a-message-dropped", "an-operator", "a-name-too"],
)
def test_a_survivor_that_changes_what_the_code_does_is_not_a_rewording(
    job: ModuleType, changed: str, mutant: str
) -> None:
    assert not job.rewords_a_message(f"-{changed}\n+{mutant}")
    assert not job.rewords_a_message(f"-{changed}\n")  # a line only removed


def test_a_shard_s_mutmut_table_mutates_its_modules_runs_its_tests_and_bounds_a_looping_mutant(
    job: ModuleType, tmp_path: Path
) -> None:
    shard = next(s for s in job.SHARDS if s.name == "review")
    (tmp_path / "docs").mkdir()
    (tmp_path / "k8s_agent_harness").mkdir()

    table = tomllib.loads(job.mutmut_config(shard, tmp_path))["tool"]["mutmut"]

    assert table["only_mutate"] == list(shard.modules) and table["source_paths"] == ["k8s_agent_harness"]
    assert table["pytest_add_cli_args_test_selection"] == list(shard.tests)
    assert table["also_copy"] == ["docs"]
    assert table["timeout_multiplier"] == job.TIMEOUT_MULTIPLIER < 15
    assert table["timeout_constant"] == job.TIMEOUT_CONSTANT


def test_a_shard_s_tests_run_in_its_order_its_module_s_own_first(
    job: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("mutation_order", ROOT / "scripts" / "mutation_order.py")
    assert spec is not None and spec.loader is not None
    plugin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plugin)
    shard = next(s for s in job.SHARDS if s.name == "verification")
    own, *others = shard.tests
    assert own == "tests/harness/evidence/test_verification.py"

    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

    collected = [Item(f"{others[-1]}::test_slow[0]"), Item("tests/elsewhere.py::t"), Item(f"{own}::b")]
    collected += [Item(f"{own}::a"), Item(f"{others[0]}::c")]
    monkeypatch.setenv(plugin.ORDER_VARIABLE, os.pathsep.join(shard.tests))
    plugin.pytest_collection_modifyitems(collected)
    assert [i.nodeid for i in collected] == [
        f"{own}::b",
        f"{own}::a",
        f"{others[0]}::c",
        f"{others[-1]}::test_slow[0]",
        "tests/elsewhere.py::t",
    ]

    monkeypatch.delenv(plugin.ORDER_VARIABLE)
    unordered = [Item("z.py::t"), Item("a.py::t")]
    plugin.pytest_collection_modifyitems(unordered)
    assert [i.nodeid for i in unordered] == ["z.py::t", "a.py::t"]

    table = tomllib.loads(job.mutmut_config(shard, tmp_path))["tool"]["mutmut"]
    assert table["pytest_add_cli_args"][-2:] == ["-p", "mutation_order"]


def test_each_session_starts_with_the_checkout_s_caches_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache filled by the run mutmut forks from would hide a mutant: each session empties it."""
    spec = importlib.util.spec_from_file_location("mutation_order", ROOT / "scripts" / "mutation_order.py")
    assert spec is not None and spec.loader is not None
    plugin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plugin)
    inside, outside = tmp_path / "checkout", tmp_path / "elsewhere"
    for folder in (inside, outside):
        folder.mkdir()
        (folder / f"cached_{folder.name}.py").write_text(
            "import functools\n\n"
            "@functools.lru_cache(maxsize=8)\ndef double(x):\n    return 2 * x\n\n"
            "class Shape:\n    @staticmethod\n    @functools.cache\n    def area(x):\n        return x * x\n"
        )
    monkeypatch.syspath_prepend(str(inside))
    monkeypatch.syspath_prepend(str(outside))
    mine = importlib.import_module("cached_checkout")
    theirs = importlib.import_module("cached_elsewhere")
    for module in (mine, theirs):
        module.double(2), module.Shape.area(3)
    monkeypatch.chdir(inside)

    plugin.pytest_sessionstart(None)

    assert mine.double.cache_info().currsize == 0 and mine.Shape.area.cache_info().currsize == 0
    assert theirs.double.cache_info().currsize == 1 and theirs.Shape.area.cache_info().currsize == 1
    assert plugin.cleared_caches(inside.resolve()) == 2


def test_a_shard_whose_tests_cannot_run_is_an_error_not_a_score(job: ModuleType) -> None:
    stopped = {"mutmut_exit": 1, "counts": {"not checked": 783}, "survivors": {}}
    assert job.never_tested(stopped)
    assert not job.never_tested({**stopped, "mutmut_exit": 0, "counts": {}})
    assert not job.never_tested({"mutmut_exit": 1, "counts": {"killed": 3, "not checked": 780}})


def test_a_shard_s_verdicts_are_carried_to_another_checkout_where_mutmut_looks_for_them(
    job: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard = next(s for s in job.SHARDS if s.name == "grounding")
    module = shard.modules[0]
    meta = {
        "exit_code_by_key": {"m.x_a__mutmut_1": 1, "m.x_a__mutmut_2": 0, "m.x_b__mutmut_1": None},
        "hash_by_function_name": {"x_a": "e0f525a3928e", "x_b": "eccdf5595ff5"},
        "durations_by_key": {},
        "estimated_durations_by_key": {},
        "type_check_error_by_key": {},
    }
    here = tmp_path / "here"
    (here / shard.name / "mutants" / f"{module}.meta").parent.mkdir(parents=True)
    (here / shard.name / "mutants" / f"{module}.meta").write_text(json.dumps(meta))
    monkeypatch.setattr(job, "WORK", here)
    saved = tmp_path / "state.json"

    assert job.save_state([shard], saved) == 2  # the verdicts reached; one mutant is still to test
    state = job.read_state(saved)
    there = tmp_path / "there"
    job.seed_state(there, state[shard.name])

    # Whole, as mutmut reads it back: it keeps the verdicts of each function whose hash is unchanged.
    assert json.loads((there / "mutants" / f"{module}.meta").read_text()) == meta
    saved.write_text('{"grounding": {"m.py": {"exit_code_by_key": []}}}')
    with pytest.raises(ValueError, match="not a file --save-state wrote"):
        job.read_state(saved)
