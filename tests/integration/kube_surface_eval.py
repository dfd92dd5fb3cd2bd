"""The offline playbook on both tool surfaces: the mock cluster's, and kubernetes-mcp-server's.

For each incident: a run on the mock cluster (as `k8s-agent eval` runs it), and a run of
`k8s-agent ask --mcp-url URL --json` against the incident served by kubernetes-mcp-server
(k8s_agent.eval.kube_surface.serve_incident), both scored by k8s_agent.eval.score.

    python -m tests.integration.kube_surface_eval [--corpus DIR ...] [--incident GLOB] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k8s_agent.eval.corpus import Incident, load_corpus, matches
from k8s_agent.eval.kube_surface import serve_incident
from k8s_agent.eval.score import score
from k8s_agent_harness.discovery import find_kubernetes_mcp_server
from tests.processes import HANG_SECONDS, OUT_OF_REACH_ENV

ROOT = Path(__file__).resolve().parents[2]
CORPORA = (ROOT / "k8s_agent" / "eval" / "corpus", ROOT / "k8s_agent" / "eval" / "holdout")


@dataclass(frozen=True)
class Outcome:
    """One incident on one surface."""

    incident: str
    surface: str
    solved: bool
    why: str
    result: dict[str, Any] | None


def clean_environment() -> dict[str, str]:
    """The environment without a model endpoint or agent settings (but the time budgets out of reach):
    the offline model answers."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "K8S_AGENT_"))}
    return {**kept, **OUT_OF_REACH_ENV}


def ask_over_http(url: str, question: str, trace_dir: Path) -> tuple[dict[str, Any] | None, str | None]:
    """`k8s-agent ask --mcp-url URL --json QUESTION` with the offline model: its JSON, or the error."""
    done = subprocess.run(
        [sys.executable, "-m", "k8s_agent", "ask", "--mcp-url", url, "--json", "--trace-dir", str(trace_dir), question],
        capture_output=True, text=True, env=clean_environment(), timeout=HANG_SECONDS, check=False,
    )  # fmt: skip
    try:
        return json.loads(done.stdout), None
    except ValueError:
        return None, f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:] or done.stdout[-200:]}"


def on_kube_surface(incident: Incident, binary: Path, trace_dir: Path) -> Outcome:
    with serve_incident(incident, binary) as url:
        result, error = ask_over_http(url, incident.question, trace_dir)
    scored = score(result, incident, error)
    return Outcome(incident.id, "kubernetes-mcp-server", scored.solved, _why(scored.as_dict()), result)


def on_mock_surface(incident: Incident, trace_dir: Path) -> Outcome:
    """The same question against the mock cluster serving the incident, as `k8s-agent eval` runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "k8s_agent", "ask", "--cluster", str(incident.cluster), "--json", "--trace-dir", str(trace_dir), incident.question],
        capture_output=True, text=True, env=clean_environment(), timeout=HANG_SECONDS, check=False,
    )  # fmt: skip
    try:
        result, error = json.loads(done.stdout), None
    except ValueError:
        result, error = None, f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
    scored = score(result, incident, error)
    return Outcome(incident.id, "mock", scored.solved, _why(scored.as_dict()), result)


def _why(scored: dict[str, Any]) -> str:
    parts = [
        f"{key}: {', '.join(scored[key])}"
        for key in ("missed", "extra", "wrong_cause", "fact_missing")
        if scored.get(key)
    ]
    return scored.get("why_not") or "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, action="append")
    parser.add_argument("--incident", default="*")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--surface", choices=("both", "mock", "kube"), default="both")
    args = parser.parse_args(argv)
    binary = find_kubernetes_mcp_server(os.environ, os.environ.get("PATH", os.defpath))
    rows = []
    with tempfile.TemporaryDirectory() as traces:
        for corpus in args.corpus or CORPORA:
            incidents, _ = load_corpus(corpus)
            for incident in incidents:
                if not matches(incident.id, args.incident):
                    continue
                skipped = Outcome(incident.id, "skipped", False, "not run", None)
                mock = on_mock_surface(incident, Path(traces)) if args.surface != "kube" else skipped
                kube = on_kube_surface(incident, binary, Path(traces)) if args.surface != "mock" else skipped
                rows.append((corpus.name, mock, kube))
                mark = lambda o: "-" if o.surface == "skipped" else "✓" if o.solved else f"✗ {o.why}"  # noqa: E731
                print(f"{corpus.name}/{incident.id}: mock {mark(mock)} | kube {mark(kube)}", flush=True)
    for corpus in dict.fromkeys(name for name, _, _ in rows):
        mine = [(m, k) for name, m, k in rows if name == corpus]
        counts = [
            f"solved {where} {sum(o.solved for o in runs)}"
            for where, runs in (
                ("on the mock cluster", [m for m, _ in mine]),
                ("through kubernetes-mcp-server", [k for _, k in mine]),
            )
            if any(o.surface != "skipped" for o in runs)
        ]
        print(f"{corpus}: {len(mine)} incidents; " + ", ".join(counts))
    if args.out:
        args.out.write_text(
            json.dumps([{"corpus": c, "mock": m.__dict__, "kube": k.__dict__} for c, m, k in rows], indent=1)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
