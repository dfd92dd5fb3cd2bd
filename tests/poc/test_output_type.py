"""The output_type probe on an SDK without `error_handlers["invalid_final_output"]` (0.14.8 and older):
the handler is "absent" and what the unhandled answer does to the run is observed, rather than the
probe failing on an import. Simulated on the installed SDK by hiding the handler."""

from __future__ import annotations

import pytest

from poc.probe import judge, run_probe
from poc.probes.output_type import PROBE
from poc.scripted import ScriptedModels, Wire
from poc.words import ABSENT


@pytest.mark.parametrize("wire", ["chat", "responses"])
def test_without_the_invalid_output_handler_the_probe_observes_the_run_dying(
    wire: Wire, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agents

    monkeypatch.delattr(agents, "RunErrorHandlerResult")
    with ScriptedModels(wire) as models:
        observations = run_probe(PROBE, models)

    assert "error" not in observations, observations
    assert observations["handler_error"] == ABSENT and observations["handler_saw_text"] == ABSENT
    assert observations["invalid_answer_outcome"].startswith("ModelBehaviorError: "), observations
    assert observations["history_keeps_answer"] == ABSENT
    assert observations["response_format_type"] == "json_schema" and observations["sentinel_passes"] is True
    verdict = judge(PROBE, observations)
    assert verdict.verdict == "absent" and "no invalid_final_output handler" in verdict.headline
