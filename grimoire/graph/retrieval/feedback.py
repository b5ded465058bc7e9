"""Learning an agent's Generative Agents weights from its decisions.

A retrieval for a decision writes an access record (graph/audit/access.py) whose id is the
decision id the result returns; beside the returned ids, the record keeps the Generative Agents
factors (recency, importance, relevance) of each returned item as the retrieval saw them
(`record_factors`, in the same transaction). They are stored rather than recomputed at feedback
time because recomputing needs what is gone by then: the query's vector (the text is not kept),
the time and block the retrieval scored at, and the items' state then (their last access and
quality move after the decision) — the loss must judge the factors the decision was made with.

Feedback on the decision (POST /retrieve/feedback: useful or not, or the decision's outcome;
`feedback`, which the learning loop may also call when an episode records the outcome of a
decision_id) takes one Hedge step on the agent's weights (graph/retrieval/hedge.py), once per
decision, and audits it: the audit record's revert restores the weights before it (or deletes the
weights node the step created)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, RevertOp, SetProperties, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.ids import now_ms
from grimoire.graph.retrieval import hedge, weights
from grimoire.graph.retrieval.config import RetrievalConfig
from grimoire.graph.visibility import Visibility

ACTION = "retrieval.weights.feedback"
REWARD = {"positive": 1.0, "negative": 0.0}  # neutral and descriptive outcomes say nothing of usefulness


class DecisionNotFound(NotFound):
    """No retrieval for a decision with this id that the caller may see (404)."""


def reward_of(useful: bool | None, outcome: str | None) -> float | None:
    """1 for useful (a positive outcome), 0 for not (a negative one), None when nothing is learned."""
    if (useful is None) == (outcome is None):
        raise Invalid("give useful or outcome, one of them")
    if useful is not None:
        return 1.0 if useful else 0.0
    return REWARD.get(str(outcome))


def record_factors(tx: Tx, access_id: str, mode: str,
                   factors: Sequence[dict[str, float] | None]) -> None:
    """Stores on the access record the Generative Agents factors of each returned item, in order
    (none when an item has none: a retrieval without a query vector)."""
    known = [f for f in factors if f is not None]
    values = ({name: [float(f[name]) for f in known] for name in hedge.FACTORS} if known and len(known) == len(factors)
              else dict.fromkeys(hedge.FACTORS))
    tx.run(cypher.query("retrieval/decision_factors"), id=access_id, mode=mode, **values).consume()


@dataclass
class FeedbackResult:
    decision_id: str
    agent_id: str | None
    applied: bool
    reason: str | None = None
    reward: float | None = None
    items: int = 0
    losses: dict[str, float] | None = None
    before: dict[str, float] | None = None
    after: dict[str, float] | None = None
    updates: int | None = None
    audit_id: str | None = None


def feedback(db: Database, decision_id: str, reward: float | None, *, visibility: Visibility, actor: str,
             config: RetrievalConfig) -> FeedbackResult:
    """One Hedge step on the deciding agent's weights from the usefulness of what the decision's
    retrieval returned. Nothing changes (applied False, with the reason) for a neutral outcome, a
    decision already learned from, one made by no agent, or one whose factors were not recorded."""
    now = now_ms()

    def work(tx: Tx) -> FeedbackResult:
        row = tx.run(cypher.query("retrieval/feedback_decision"), decision_id=decision_id,
                     viewer=visibility.viewer, admin=visibility.admin).single()
        if row is None:
            raise DecisionNotFound(f"no retrieval for a decision with id {decision_id!r}")
        agent_id = row["agent_id"]
        result = FeedbackResult(decision_id=decision_id, agent_id=agent_id, applied=False, reward=reward,
                                items=len(row["ids"] or []))
        current = weights.from_row(row["weights"], config.generative_agents)
        result.before = current.as_dict()
        reason = _nothing_to_learn(row, reward, agent_id)
        if reason:
            result.reason = reason
            return result
        assert reward is not None and agent_id is not None
        values = {name: list(row[name]) for name in hedge.FACTORS}
        result.losses = hedge.losses(values, reward)
        new = hedge.update(current.as_dict(), result.losses, config.hedge.learning_rate, config.hedge.floor)
        wid = row["weights"]["id"] if row["weights"] else weights.node_id(agent_id)
        audit = Audit(action=ACTION, actor=actor, agent_id=agent_id, at=now)
        steps = (versions.keep(tx, Versioned.RetrievalWeights, [wid], now=now, actor=actor, reason="Hedge step",
                               audit_id=audit.id) if row["weights"]
                 else versions.created(Versioned.RetrievalWeights, [wid]))
        stored = tx.run(cypher.query("retrieval/store_weights"), agent_id=agent_id, id=wid, decision_id=decision_id,
                        weights=new, reward=reward, now=now).single()
        revert: list[RevertOp]
        if row["weights"]:
            before = {k: row["weights"].get(k) for k in
                      ("recency", "importance", "relevance", "updates", "updated_at", "last_decision_id")}
            revert = [SetProperties(label=NodeLabel.RetrievalWeights, id=wid, before=before)]
        else:
            revert = [DeleteNodes(label=NodeLabel.RetrievalWeights, ids=[wid])]
        shown = ", ".join(f"{k} {current.as_dict()[k]:.3f}->{new[k]:.3f}" for k in hedge.FACTORS)
        audit.write(tx, [wid, decision_id], f"Hedge step from decision {decision_id} "
                                            f"({'useful' if reward >= 0.5 else 'not useful'}): {shown}", revert, steps)
        result.applied, result.after, result.audit_id = True, new, audit.id
        result.updates = stored["updates"] if stored else None
        return result

    return db.write(work)


def _nothing_to_learn(row: Any, reward: float | None, agent_id: str | None) -> str | None:
    if reward is None:
        return "a neutral outcome says nothing of the retrieval's usefulness"
    if row["feedback"] is not None:
        return "this decision was learned from already"
    if not agent_id:
        return "the decision was made by no agent (the admin key): no agent's weights to learn"
    if not row["ids"]:
        return "the decision's retrieval returned nothing"
    if row["recency"] is None:
        return "the decision's retrieval recorded no factor values (no query vector)"
    return None
