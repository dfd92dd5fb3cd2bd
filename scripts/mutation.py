"""Mutation testing of the safety core with mutmut: each module's score and its surviving mutants.

    python scripts/mutation.py                        every shard, one after another
    python scripts/mutation.py --shard redact         one shard (repeat --shard for more)
    python scripts/mutation.py --part 2/3             the second third of the shards (one per machine)
    python scripts/mutation.py --list                 the shards, their modules and tests
    python scripts/mutation.py --report               the table of the results so far (markdown)

A shard is a module (or a few) the user's safety rests on, with the tests that are its own. Each
shard runs in a snapshot of the checkout of its own (`.mutation/<shard>/`, git-ignored): mutmut
copies it into `mutants/`, mutates the shard's modules there, runs the shard's tests once to learn
which test reaches which function, then runs, for every mutant, the tests that reach the mutated
function, in the shard's order (its module's own first) up to the first failure. A mutant is
*killed* when a test fails, *survives* when they all pass, has *no tests* when no test of the shard
reaches its function, and *times out* past six times its tests' CPU time and half a minute.
A survivor of a function that runs at import, and one with no tests, is then tried once more in a
fresh process (mutmut forks its mutants from a process that imported the modules already, so code
that runs at import, a table built at module level, is mutated only in a fresh one): one that fails
there is *killed in a fresh process*.

The snapshot's packages come first on every path, the tests' subprocesses' included (PYTHONPATH):
a mutant is the code under test whether a test calls it in process or through a `k8s-agent`
process. Results are kept between runs in `.mutation/<shard>/mutants/`; `--fresh` starts a shard
again from the checkout as it is now (do it after the code changed). A shard stopped before its end
goes on on another checkout: `--save-state FILE` writes its verdicts so far, `--resume-from FILE`
starts it from them there (mutmut keeps the verdicts of every function whose code is unchanged and
tests the others again).

Not part of CI: the whole job takes hours on two cores. It needs mutmut (`pip install -e
'.[mutation]'`). Results: `.mutation/results.json`, each shard's survivors with their diffs in
`.mutation/<shard>/survivors.md`; docs/testing.md keeps the table and says why the survivors left
are left.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".mutation"

# mutmut's exit codes by verdict (mutmut/stats.py); anything else is "suspicious".
VERDICTS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped"}
VERDICTS |= dict.fromkeys((36, -24, 24, 152, 255), "timeout")
VERDICTS |= {37: "killed"}  # caught by the type check (not configured here)


@dataclass(frozen=True)
class Shard:
    name: str
    modules: tuple[str, ...]
    tests: tuple[str, ...]
    why: str


TIMEOUT_MULTIPLIER = 3.0
TIMEOUT_CONSTANT = 5.0
"""A mutant is stopped after 2 x 3 x (its tests' time + 5 s) of CPU time. mutmut's defaults (15, 1 s)
let a looping mutant of a shard with minutes of tests run for hours; the constant keeps a mutant of a
shard with fast tests from being stopped while it only imports what its tests need."""

SHARDS = (
    Shard(
        "redact",
        ("k8s_agent_harness/evidence/redact.py",),
        (
            "tests/harness/evidence/test_redact.py",
            "tests/harness/evidence/test_redact_objects.py",
            "tests/harness/evidence/test_redact_secret_corpus.py",
            "tests/harness/cluster/test_content.py",
            "tests/reliability/test_security.py",
        ),
        "secrets never reach the model, a trace, a report or the terminal",
    ),
    Shard(
        "supervisor",
        ("k8s_agent_harness/guards/supervisor.py",),
        (
            "tests/harness/guards/test_supervisor.py",
            "tests/harness/guards/test_gateway.py",
            "tests/contract/test_contract.py",
        ),
        "the step, wall-clock and tool budgets the model cannot talk past",
    ),
    Shard(
        "gateway",
        ("k8s_agent_harness/guards/gateway.py",),
        (
            "tests/harness/guards/test_gateway.py",
            "tests/harness/guards/test_read_policy.py",
            "tests/harness/cluster/test_results.py",
        ),
        "every tool call's one path: whitelist, arguments, schema, duplicates, failures as results",
    ),
    Shard(
        "read_policy",
        ("k8s_agent_harness/guards/read_policy.py",),
        ("tests/harness/guards/test_read_policy.py", "tests/reliability/test_read_policy_outside.py"),
        "a tool runs only when the harness can stand behind its reading only",
    ),
    Shard(
        "review",
        ("k8s_agent_harness/guards/review.py",),
        (
            "tests/harness/guards/test_review.py",
            "tests/contract/test_contract.py",
            "tests/reliability/test_evidence_structure.py",
        ),
        "the review policy: pushbacks on answers without evidence or with invented names",
    ),
    Shard(
        "verification",
        ("k8s_agent_harness/evidence/verification.py", "k8s_agent_harness/evidence/report.py"),
        (
            "tests/harness/evidence/test_verification.py",
            "tests/reliability/test_evidence_threats.py",
            "tests/harness/evidence/test_grounding.py",
            "tests/harness/evidence/test_provenance.py",
            "tests/reliability/test_falsification.py",
        ),
        "every finding of a report is checked against what the tools showed; the report's schema",
    ),
    Shard(
        "grounding",
        ("k8s_agent_harness/evidence/grounding.py",),
        (
            "tests/harness/evidence/test_grounding.py",
            "tests/harness/evidence/test_grounding_mentions.py",
            "tests/harness/evidence/test_evidence_record.py",
            "tests/harness/evidence/test_verification.py",
            "tests/reliability/test_evidence_threats.py",
            "tests/reliability/test_falsification.py",
        ),
        "a name the report uses is one the tools returned; a result's text read as what it shows",
    ),
    Shard(
        "provenance",
        ("k8s_agent_harness/evidence/provenance.py",),
        (
            "tests/harness/evidence/test_provenance.py",
            "tests/harness/evidence/test_provenance_echoes.py",
            "tests/harness/evidence/test_provenance_reading.py",
            "tests/harness/evidence/test_provenance_outside.py",
            "tests/harness/evidence/test_grounding_mentions.py",
            "tests/harness/evidence/test_evidence_record.py",
            "tests/harness/evidence/test_verification.py",
            "tests/reliability/test_evidence_threats.py",
            "tests/reliability/test_attribution_properties.py",
            "tests/reliability/test_falsification.py",
        ),
        "what a quote in a result is about: the resource whose record holds it",
    ),
    Shard(
        "score",
        ("k8s_agent/eval/score.py",),
        ("tests/eval/test_score.py",),
        "the eval's grades",
    ),
    Shard(
        "judge",
        ("k8s_agent/contract/judge/*.py",),
        (
            "tests/contract/test_judge.py",
            "tests/contract/test_judge_from_the_docs.py",
            "tests/contract/test_judge_verdicts_as_read.py",
        ),
        "the contract judge's verdict on any agent",
    ),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Mutation testing of the safety core with mutmut, one shard per module.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1] if __doc__ else None,
    )
    parser.add_argument("--shard", action="append", choices=[s.name for s in SHARDS], help="run this shard")
    parser.add_argument("--part", metavar="K/N", help="run the K-th of N equal parts of the shards")
    parser.add_argument("--jobs", type=int, default=1, help="mutants tested at once per shard (default 1)")
    parser.add_argument("--fresh", action="store_true", help="start the shards again from the checkout")
    parser.add_argument("--list", action="store_true", help="list the shards and exit")
    parser.add_argument("--report", action="store_true", help="print the results so far and exit")
    parser.add_argument(
        "--save-state",
        metavar="FILE",
        help="write the chosen shards' verdicts so far, mutant by mutant, to FILE and exit (to go on elsewhere)",
    )
    parser.add_argument(
        "--resume-from",
        metavar="FILE",
        help="start the chosen shards from the verdicts FILE holds (--save-state's), for the functions unchanged since",
    )
    args = parser.parse_args(argv)
    if args.list:
        for shard in SHARDS:
            print(f"{shard.name}: {', '.join(shard.modules)}\n    tests: {' '.join(shard.tests)}")
        return 0
    if args.report:
        print(table(load_results()))
        return 0
    try:
        chosen = select(args.shard, args.part)
    except ValueError as error:
        parser.error(str(error))
    if args.save_state:
        saved = save_state(chosen, Path(args.save_state))
        print(f"mutation: saved the verdicts of {saved} mutants to {args.save_state}")
        return 0
    state: dict[str, Any] = {}
    if args.resume_from:
        try:
            state = read_state(Path(args.resume_from))
        except (OSError, ValueError) as error:
            parser.error(f"--resume-from {args.resume_from}: {error}")
    if shutil.which("mutmut", path=str(Path(sys.executable).parent)) is None:
        print("mutation: mutmut is not installed: pip install -e '.[mutation]'", file=sys.stderr)
        return 2
    results = load_results()
    broken = 0
    for number, shard in enumerate(chosen, start=1):
        print(f"mutation: [{number}/{len(chosen)}] {shard.name}: {', '.join(shard.modules)}", flush=True)
        started = time.monotonic()
        outcome = run_shard(shard, jobs=args.jobs, fresh=args.fresh, state=state.get(shard.name))
        outcome["seconds"] = round(time.monotonic() - started)
        if never_tested(outcome):
            log = WORK / shard.name / "mutmut.log"
            print(
                f"mutation: {shard.name}: mutmut stopped (exit {outcome['mutmut_exit']}) before it tested a "
                f"mutant; its earlier results are kept. What it said: {log}",
                file=sys.stderr,
                flush=True,
            )
            broken += 1
            continue
        results = load_results()  # read again: another part may have saved its shards meanwhile
        results[shard.name] = outcome
        save_results(results)
        print(f"mutation: {shard.name}: {summary(outcome)} in {outcome['seconds']} s", flush=True)
    print(table(results))
    return 1 if broken else 0


def never_tested(outcome: dict[str, object]) -> bool:
    """Whether mutmut failed before it tested any mutant (its tests could not even run once)."""
    counts = outcome.get("counts")
    tested = (
        sum(n for verdict, n in counts.items() if verdict != "not checked") if isinstance(counts, dict) else 0
    )
    return outcome.get("mutmut_exit") != 0 and tested == 0


def select(names: list[str] | None, part: str | None) -> list[Shard]:
    chosen = [s for s in SHARDS if not names or s.name in names]
    if part:
        try:
            k, n = (int(x) for x in part.split("/"))
        except ValueError:
            raise ValueError(f"--part {part}: expected K/N, e.g. 1/3") from None
        if not 1 <= k <= n:
            raise ValueError(f"--part {part}: K must be between 1 and N")
        chosen = chosen[k - 1 :: n]
    return chosen


def snapshot(folder: Path) -> None:
    """The checkout's files as they are now (tracked, and new ones not ignored) into `folder`."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def mutmut_config(shard: Shard, folder: Path) -> str:
    """The [tool.mutmut] table of a shard: its modules mutated, its tests run, everything copied."""
    packages = sorted({module.split("/")[0] for module in shard.modules})
    tops = sorted(
        p.name
        for p in folder.iterdir()
        if p.name not in (*packages, "mutants", "pyproject.toml", "snapshot-taken")
    )
    lines = [
        "",
        "[tool.mutmut]",
        f"source_paths = {json.dumps(packages)}",
        f"only_mutate = {json.dumps(list(shard.modules))}",
        f"also_copy = {json.dumps(tops)}",
        # The suite's own options (xdist's workers, its durations) stay out: mutmut runs it in process.
        # Its test files in the shard's order, its module's own first (scripts/mutation_order.py).
        'pytest_add_cli_args = ["-o", "addopts=", "-q", "-p", "no:cacheprovider", "-p", "mutation_order"]',
        f"pytest_add_cli_args_test_selection = {json.dumps(list(shard.tests))}",
        # A looping mutant is stopped after minutes, not hours (TIMEOUT_MULTIPLIER).
        f"timeout_multiplier = {TIMEOUT_MULTIPLIER}",
        f"timeout_constant = {TIMEOUT_CONSTANT}",
        "",
    ]
    return "\n".join(lines)


def run_shard(
    shard: Shard, *, jobs: int, fresh: bool, state: dict[str, Any] | None = None
) -> dict[str, object]:
    folder = WORK / shard.name
    if (fresh or state) and folder.exists():
        shutil.rmtree(folder)
    taken = folder / "snapshot-taken"
    if not taken.exists():
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        snapshot(folder)
        shutil.copy2(ROOT / "scripts" / "mutation_order.py", folder / "mutation_order.py")
        pyproject = folder / "pyproject.toml"
        pyproject.write_text(pyproject.read_text() + mutmut_config(shard, folder))
        if state:
            seed_state(folder, state)
        taken.write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))
    env = dict(os.environ)
    mutants = folder / "mutants"
    # On PYTHONPATH before mutmut fills it: a folder missing when Python starts is never searched.
    mutants.mkdir(exist_ok=True)
    env["PYTHONPATH"] = os.pathsep.join([str(mutants), *filter(None, [env.get("PYTHONPATH")])])
    env["MUTATION_TEST_ORDER"] = os.pathsep.join(shard.tests)
    mutmut = str(Path(sys.executable).parent / "mutmut")
    log = folder / "mutmut.log"
    with log.open("a") as out:
        done = subprocess.run(
            [mutmut, "run", "--max-children", str(jobs)], cwd=folder, env=env, stdout=out, stderr=out
        )
    outcome = read_outcome(shard, folder)
    outcome["mutmut_exit"] = done.returncode
    confirm_survivors(shard, folder, outcome, env, jobs)
    write_survivors(shard, folder, outcome, env)
    return outcome


def save_state(shards: list[Shard], path: Path) -> int:
    """Each chosen shard's verdicts so far, with the hash of every function they were reached on, as
    mutmut keeps them (`mutants/<module>.meta`, whole): what `--resume-from` starts from on another
    checkout."""
    state: dict[str, Any] = {}
    saved = 0
    for shard in shards:
        for meta in sorted((WORK / shard.name / "mutants").rglob("*.py.meta")):
            data = json.loads(meta.read_text())
            codes = data.get("exit_code_by_key", {})
            module = meta.relative_to(WORK / shard.name / "mutants").as_posix().removesuffix(".meta")
            state.setdefault(shard.name, {})[module] = data  # mutmut reads every field of it back
            saved += sum(code is not None for code in codes.values())
    path.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    return saved


def read_state(path: Path) -> dict[str, Any]:
    state = json.loads(path.read_text())
    if not isinstance(state, dict) or not all(
        isinstance(modules, dict)
        and all(isinstance(m, dict) and isinstance(m.get("exit_code_by_key"), dict) for m in modules.values())
        for modules in state.values()
    ):
        raise ValueError("not a file --save-state wrote")
    return state


def seed_state(folder: Path, state: dict[str, Any]) -> None:
    """Put a shard's saved verdicts where mutmut looks for its own before it mutates the modules: it
    keeps those of every function whose code has the same hash, and tests the others again."""
    for module, data in state.items():
        meta = folder / "mutants" / f"{module}.meta"
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps(data))


def read_outcome(shard: Shard, folder: Path) -> dict[str, object]:
    counts: dict[str, int] = {}
    survivors: dict[str, str] = {}
    for meta in sorted((folder / "mutants").rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        for name, code in data.get("exit_code_by_key", {}).items():
            verdict = "not checked" if code is None else VERDICTS.get(code, "suspicious")
            counts[verdict] = counts.get(verdict, 0) + 1
            if verdict in ("survived", "no tests", "suspicious"):
                survivors[name] = verdict
    return {
        "modules": list(shard.modules),
        "tests": list(shard.tests),
        "counts": counts,
        "survivors": survivors,
    }


def confirm_survivors(
    shard: Shard, folder: Path, outcome: dict[str, object], env: dict[str, str], jobs: int
) -> None:
    """Run a survivor's tests again in a fresh process where mutmut cannot see it. mutmut forks every
    mutant from a process that imported the modules already, so a mutant of a function that runs at
    import (a table built by a call at module level) is never the code under test there; and a
    function its map says no test reaches has "no tests". Those are tried once more, with all the
    shard's tests, with the mutant named in the environment before anything is imported: one that
    fails there is counted "killed in a fresh process". The other survivors stand as they are."""
    survivors = outcome["survivors"]
    counts = outcome["counts"]
    assert isinstance(survivors, dict) and isinstance(counts, dict)
    # The modules mutmut mutated (each has its results beside it), read as the snapshot has them.
    mutated = [
        meta.relative_to(folder / "mutants").with_suffix("")
        for meta in (folder / "mutants").rglob("*.py.meta")
    ]
    at_import = set().union(*(called_at_import(folder / path) for path in mutated))
    tried = [
        name
        for name, verdict in survivors.items()
        if verdict == "no tests" or (verdict == "survived" and function_of(name) in at_import)
    ]
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-o", "addopts=", "-p", "no:cacheprovider"]
    command += ["-p", "mutation_order"]

    def fails(name: str) -> bool:
        fresh = subprocess.run(
            [*command, *shard.tests],
            cwd=folder / "mutants",
            env={**env, "MUTANT_UNDER_TEST": name},
            capture_output=True,
        )
        # 1: a test failed; 2: collection stopped, 4: a conftest could not load (the mutated module
        # could not even be imported; the command itself is the one the unmutated run passed with).
        return fresh.returncode in (1, 2, 3, 4)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        killed = [name for name, dead in zip(tried, pool.map(fails, tried), strict=True) if dead]
    for name in killed:
        counts[survivors.pop(name)] -= 1
        counts["killed in a fresh process"] = counts.get("killed in a fresh process", 0) + 1


def function_of(mutant: str) -> str:
    """The function a mutant's name says it mutates: `pkg.mod.x__when__mutmut_2` is `_when`,
    `pkg.mod.xǁPolicyǁverdict__mutmut_6` is `verdict`."""
    last = mutant.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]
    return last.rsplit("ǁ", 1)[-1] if "ǁ" in last else last.removeprefix("x_")


def called_at_import(path: Path) -> set[str]:
    """The names a module's own top-level code refers to (outside function bodies): what runs, or is
    handed on, when it is imported."""
    import ast

    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for decorator in getattr(node, "decorator_list", []):
                visit(decorator)
            return
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        for child in ast.iter_child_nodes(node):
            visit(child)

    source = path.read_text() if path.exists() else ""
    for statement in ast.parse(source).body if source else []:
        visit(statement)
    return names


def write_survivors(shard: Shard, folder: Path, outcome: dict[str, object], env: dict[str, str]) -> None:
    """Each surviving mutant's diff (`mutmut show`), for reading them one by one, those that only
    reword a message last."""
    mutmut = str(Path(sys.executable).parent / "mutmut")
    survivors = outcome["survivors"]
    assert isinstance(survivors, dict)
    shown: dict[str, str] = {}
    for name in survivors:
        done = subprocess.run([mutmut, "show", name], cwd=folder, env=env, capture_output=True, text=True)
        shown[name] = done.stdout.strip()
    reworded = [name for name in survivors if rewords_a_message(shown[name])]
    parts = [
        f"# Surviving mutants of {shard.name} ({', '.join(shard.modules)})\n",
        f"{len(survivors)} left, {len(reworded)} of them only rewording a message (last below).\n",
    ]
    for name in sorted(survivors, key=lambda n: n in reworded):
        parts.append(f"## {name} ({survivors[name]})\n\n```diff\n{shown[name]}\n```\n")
    (folder / "survivors.md").write_text("\n".join(parts))


_LITERAL = re.compile(r"""[rbuRBUfF]{0,2}("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")


def rewords_a_message(diff: str) -> bool:
    """Whether a mutant only changes the words of a message: each changed line differs from the
    original only inside string literals, and each literal it changes holds several words (a message,
    not a key or a value compared: `"data"` to `"XXdataXX"` changes what the code does)."""
    lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
    removed = [line[1:] for line in lines if line.startswith("-")]
    added = [line[1:] for line in lines if line.startswith("+")]
    if not removed or len(removed) != len(added):
        return False
    for before, after in zip(removed, added, strict=True):
        if _LITERAL.sub('""', before) != _LITERAL.sub('""', after):
            return False
        old, new = _LITERAL.findall(before), _LITERAL.findall(after)
        if any(a != b and " " not in a.strip("'\"").strip() for a, b in zip(old, new, strict=True)):
            return False
    return True


def score(counts: dict[str, int]) -> tuple[int, int]:
    """Mutants caught (killed or timed out) and mutants judged (all but the skipped and unchecked)."""
    caught = counts.get("killed", 0) + counts.get("killed in a fresh process", 0) + counts.get("timeout", 0)
    judged = sum(n for verdict, n in counts.items() if verdict not in ("skipped", "not checked"))
    return caught, judged


def summary(outcome: dict[str, object]) -> str:
    counts = outcome["counts"]
    assert isinstance(counts, dict)
    caught, judged = score(counts)
    rate = f"{100 * caught / judged:.0f}%" if judged else "-"
    rest = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()) if n and verdict != "killed")
    return f"{caught} of {judged} caught ({rate}){'; ' + rest if rest else ''}"


def table(results: dict[str, dict[str, object]]) -> str:
    rows = [
        "| shard | modules | caught | survived | no tests | timeout | left only rewording a message | score |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for shard in SHARDS:
        outcome = results.get(shard.name)
        if outcome is None:
            continue
        counts = outcome["counts"]
        assert isinstance(counts, dict)
        caught, judged = score(counts)
        rate = f"{100 * caught / judged:.0f}%" if judged else "-"
        rows.append(
            f"| {shard.name} | {', '.join(f'`{m}`' for m in shard.modules)} | {caught} | "
            f"{counts.get('survived', 0) + counts.get('suspicious', 0)} | {counts.get('no tests', 0)} | "
            f"{counts.get('timeout', 0)} | {reworded(shard.name)} | {rate} |"
        )
    return "\n".join(rows)


def reworded(shard: str) -> str:
    """How many of a shard's survivors only reword a message, read from its survivors.md."""
    path = WORK / shard / "survivors.md"
    if not path.exists():
        return "-"
    diffs = re.findall(r"```diff\n(.*?)\n```", path.read_text(), flags=re.DOTALL)
    return str(sum(rewords_a_message(diff) for diff in diffs))


def load_results() -> dict[str, dict[str, object]]:
    path = WORK / "results.json"
    return json.loads(path.read_text()) if path.exists() else {}


def save_results(results: dict[str, dict[str, object]]) -> None:
    WORK.mkdir(exist_ok=True)
    (WORK / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
