"""The outcome-verification block (context-governor.md S3.4, `build_outcome_verification`): a decision's prediction
beside what happened. How far off it was, whether it at least moved the right way from the baseline, which context
categories the workspace injected that the response did not reference (the model ignored them), and how the miss
compares with the confidence the prediction was made at. Past an error of 0.2 it says to give the ignored
categories more room; Loop 2 reads the same signal from the decision records."""

from __future__ import annotations

import math
from collections.abc import Iterable

from pydantic import BaseModel, Field

BOUND = 1e12  # a prediction's values, and the outcome's: any error between them stays finite
ADVICE_ABOVE = 0.2   # prediction error past which the block recommends more room (the document's)
CONFIDENCE_FLOOR = 0.01  # added to the confidence so a zero-confidence guess does not divide by zero (the document's)


class Prediction(BaseModel):
    """What the decision predicted: a value, the baseline it moves from, and how sure it was."""

    value: float = Field(ge=-BOUND, le=BOUND, description="the predicted value")
    baseline: float = Field(ge=-BOUND, le=BOUND, description="the value before: the direction is read against it")
    confidence: float = Field(ge=0, le=1, description="how sure the prediction was, 0 to 1")


class OutcomeVerification(BaseModel):
    prediction_error: float = Field(description="|predicted - actual|")
    was_correct_direction: bool = Field(description="prediction and outcome on the same side of the baseline")
    ignored_categories: list[str] = Field(description="injected in the workspace, not referenced by the response")
    calibration_delta: float = Field(description="prediction_error / (confidence + 0.01): large when sure and wrong")
    recommendation: str


def _sign(x: float) -> float:
    return math.copysign(1.0, x)  # as Rust's f64::signum: +0 counts as positive


def verify(prediction: Prediction, actual: float, injected: Iterable[str], referenced: Iterable[str]
           ) -> OutcomeVerification:
    error = abs(prediction.value - actual)
    seen = set(referenced)
    ignored = sorted({c for c in injected if c not in seen})
    advice = (f"Increase allocation for: {', '.join(ignored) or 'no category (none was ignored)'}"
              if error > ADVICE_ABOVE else "Current allocations adequate")
    return OutcomeVerification(
        prediction_error=round(error, 12),
        was_correct_direction=_sign(prediction.value - prediction.baseline) == _sign(actual - prediction.baseline),
        ignored_categories=ignored,
        calibration_delta=round(error / (prediction.confidence + CONFIDENCE_FLOOR), 12),
        recommendation=advice)
