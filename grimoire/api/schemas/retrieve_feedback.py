"""What POST /retrieve/feedback takes and answers, and GET /retrieve/weights (api/routes/retrieve.py):
the Generative Agents weights an agent learns from its decisions (graph/retrieval/feedback.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from grimoire.graph.model.common import StrictModel
from grimoire.graph.model.enums import Outcome


class RetrieveFeedbackIn(StrictModel):
    decision_id: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        description="the decision_id a retrieval for a decision returned")
    useful: bool | None = Field(default=None, description="whether what it returned was useful to the decision")
    outcome: Outcome | None = Field(default=None, description="or the decision's outcome: positive counts as useful, "
                                                              "negative as not; neutral and descriptive teach nothing")

    @model_validator(mode="after")
    def _one(self) -> RetrieveFeedbackIn:
        if (self.useful is None) == (self.outcome is None):
            raise ValueError("give useful or outcome, one of them")
        return self


class FeedbackOut(BaseModel):
    decision_id: str
    agent_id: str | None = Field(description="the agent whose weights it teaches")
    applied: bool = Field(description="whether the weights moved (once per decision)")
    reason: str | None = Field(description="why nothing moved, when nothing did")
    reward: float | None = Field(description="1 useful, 0 not; none for a neutral outcome")
    items: int = Field(description="the items the decision's retrieval returned")
    losses: dict[str, float] | None = Field(
        description="each factor's loss: mean |its value on a returned item - reward|")
    weights_before: dict[str, float] | None
    weights_after: dict[str, float] | None = Field(
        description="w <- w exp(-learning_rate x loss), normalised, none under the floor (Hedge)")
    updates: int | None = Field(description="Hedge steps the agent's weights have taken")
    audit_id: str | None = Field(description="the audit record of the update (its revert restores the weights)")


class WeightsOut(BaseModel):
    agent_id: str | None
    recency: float
    importance: float
    relevance: float
    updates: int = Field(description="Hedge steps taken; 0: the configured weights (no feedback yet)")
    updated_at: int | None = Field(description="ms; none before the first update")
