"""A small eval of the shipped corpus, as CI runs it: a few incidents of different kinds, both
implementations, the offline model. The same playbook through the two loops must score the same on
every incident; every run ends with a scored report and a trace."""

from __future__ import annotations

import json
from pathlib import Path

from tests.eval.test_eval_cli import records
from tests.processes import k8s_agent

INCIDENTS = (
    "crashloop-missing-env",
    "pending-insufficient-cpu",
    "healthy-noisy-logs",
    "cascade-postgres-config",
)


def test_a_small_eval_of_the_shipped_corpus_scores_both_implementations_alike(tmp_path: Path) -> None:
    selected = [arg for incident in INCIDENTS for arg in ("--incident", incident)]

    done = k8s_agent(
        "eval",
        *selected,
        "--no-baselines",
        "--results",
        "r.jsonl",
        "--out",
        "r.json",
        "--concurrency",
        "4",
        cwd=tmp_path,
    )  # the baselines are tested in test_eval_cli.py

    assert done.returncode == 0, done.stderr[-2000:]
    saved = records(tmp_path / "r.jsonl")
    assert sorted((r["incident"], r["impl"]) for r in saved) == sorted(
        (incident, impl) for incident in INCIDENTS for impl in ("handwritten", "sdk")
    )
    assert all(r["error"] is None and Path(r["trace"]).is_file() and r["report"] is not None for r in saved)
    scores = {}
    for record in saved:
        scored = {
            k: record["score"][k]
            for k in ("recall", "precision", "cause", "fact", "solved", "missed", "extra")
        }
        scores.setdefault(record["incident"], []).append(scored)
    for incident, (first, second) in scores.items():
        assert first == second, incident
        assert all(
            first[k] is None or 0 <= first[k] <= 1 for k in ("recall", "precision")
        )  # None: empty truth
    (pair,) = json.loads((tmp_path / "r.json").read_text())["pairs"]
    assert pair["first_better"] == pair["second_better"] == [] and pair["incidents"] == len(INCIDENTS)
