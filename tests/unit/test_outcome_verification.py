"""The outcome-verification block (context-governor.md S3.4), as the document computes it."""

from __future__ import annotations

import pytest

from grimoire.graph.context.verification import Prediction, verify


def test_the_documents_block() -> None:
    v = verify(Prediction(value=0.5, baseline=0.3, confidence=0.8), 0.2, ["insights", "episodes", "insights"],
               ["episodes"])
    assert v.prediction_error == pytest.approx(0.3) and not v.was_correct_direction
    assert v.ignored_categories == ["insights"]
    assert v.calibration_delta == pytest.approx(0.3 / 0.81)
    assert v.recommendation == "Increase allocation for: insights"


def test_a_small_miss_needs_no_more_room_and_the_baseline_counts_as_up() -> None:
    v = verify(Prediction(value=0.4, baseline=0.3, confidence=0.0), 0.3, ["playbook"], [])
    assert v.was_correct_direction  # actual on the baseline: +0, the same side as a rise (Rust's signum)
    assert v.prediction_error == pytest.approx(0.1) and v.calibration_delta == pytest.approx(10.0)
    assert v.recommendation == "Current allocations adequate" and v.ignored_categories == ["playbook"]
    assert verify(Prediction(value=0.9, baseline=0.5, confidence=1.0), 0.1, [], []).recommendation.endswith(
        "no category (none was ignored)")
