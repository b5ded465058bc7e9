"""Each agent's Generative Agents weights (recency, importance, relevance), learned from the
outcomes of its decisions (graph/retrieval/feedback.py, by Hedge: graph/retrieval/hedge.py) and
kept on a (:RetrievalWeights {id, agent_id, recency, importance, relevance, updates, updated_at,
last_decision_id}) node; an agent without one scores with the configured weights (0.3, 0.3, 0.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grimoire.graph.db.connection import Database
from grimoire.graph.retrieval.config import GenerativeAgentsWeights


@dataclass(frozen=True)
class Weights:
    recency: float
    importance: float
    relevance: float
    updates: int = 0           # Hedge steps taken; 0: the configured weights
    updated_at: int | None = None

    def as_dict(self) -> dict[str, float]:
        return {"recency": self.recency, "importance": self.importance, "relevance": self.relevance}


def node_id(agent_id: str) -> str:
    return f"retrieval-weights:{agent_id}"


def configured(config: GenerativeAgentsWeights) -> Weights:
    return Weights(config.recency, config.importance, config.relevance)


def from_row(row: dict[str, Any] | None, config: GenerativeAgentsWeights) -> Weights:
    """The stored weights, or the configured ones when there are none."""
    if not row or row.get("recency") is None:
        return configured(config)
    return Weights(float(row["recency"]), float(row["importance"]), float(row["relevance"]),
                   int(row.get("updates") or 0), row.get("updated_at"))


def of_agent(db: Database, agent_id: str | None, config: GenerativeAgentsWeights) -> Weights:
    """The agent's learned weights; the configured ones for no agent or one that has learned none."""
    if not agent_id:
        return configured(config)
    rows = db.rows("retrieval/weights", agent_id=agent_id)
    return from_row(rows[0] if rows else None, config)
