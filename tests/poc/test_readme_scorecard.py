"""The README's migration scorecard is generated from the pinned observations, never written by hand.

If the SDK's behaviour changes, test_expectations.py fails; if a scorecard rule changes, this test
fails until the README shows the new table (`k8s-agent probe --scorecard-md` prints it).
"""

from __future__ import annotations

import json
from pathlib import Path

import poc
from poc.render import scorecard_markdown
from poc.scorecard import scorecard

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_shows_the_scorecard_of_the_pinned_sdk() -> None:
    pinned = json.loads(
        (Path(poc.__file__).resolve().parent / "expected" / "0.24.0.json").read_text(encoding="utf-8")
    )
    table = scorecard_markdown(scorecard(pinned["probes"]))

    assert table in (ROOT / "README.md").read_text(encoding="utf-8")
