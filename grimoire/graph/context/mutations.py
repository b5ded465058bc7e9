"""Loop 3 (context-governor.md S4, "Strategy Performance -> Context Policy -> Regime Learning"): from the worst
recent decisions, policy mutations are staged at confidence 0.2 — the spec's two alternatives: the categories the
decision said it missed boosted by 0.02 each, and up to 0.06 moved from the playbook to the causal edges.

With a language model configured (GRIMOIRE_REASONER_URL, the cheap tier), each poor decision is replayed under each
alternative first (graph/context/replay.py) and the alternative is staged only when the replay's quality beats the
decision's by more than 0.15, the mutation recording its quality improvement; an alternative the model gave no
usable score is not staged. A decision is replayed once (marked `replayed_at`; one the model gave no score is asked
again next run), so the next-worst decisions get their turn. The model is asked before the transaction opens; the
staging, the marks, their audit record (which names each replay's outcome) and the Loop 3 event are one
transaction. Without a model every alternative is staged.

Either way the waking decisions judge a staged mutation: while staged, one cold assembly in N is built with its
allocations (graph/context/governor.py), and each decision made under it moves its confidence, Beta(1, 4) at first,
up when its quality beats the mean quality under the current policy since it was staged, down otherwise. At 0.6
(after at least ten trials) it is validated and promoted into a policy revision (through Loop 2's cap); at 0.1, or
undecided after thirty trials, refuted."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, RevertOp, SetProperties
from grimoire.graph.context import events as context_events
from grimoire.graph.context import policy as cp
from grimoire.graph.context.categories import Allocations, ContextCategory
from grimoire.graph.context.config import GovernorConfig
from grimoire.graph.context.models import ContextMutation
from grimoire.graph.context.overrides import normalize
from grimoire.graph.context.recalibration import DecisionRead, apply, decisions_since, signal_category
from grimoire.graph.context.replay import ReplayDecision, Replayed, Replayer
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.events.store import write as write_events
from grimoire.graph.ids import now_ms, uuid7

C = ContextCategory
WORST = 3
POOR = 0.5
STRENGTH = 5.0   # the prior's weight: Beta(1, 4) is confidence 0.2


class Judged(BaseModel):
    """A staged mutation's verdict (None: still staged), its confidence and the policy revision it became."""

    mutation_id: str
    verdict: str | None
    confidence: float | None = None
    revision: int | None = None


class Mutation(BaseModel):
    """A policy mutation Loop 3 staged: its allocations and the ones it replaces, its confidence and trials, and
    what became of it."""

    id: str
    kind: str
    regime: str | None
    status: str                          # staged | validated | refuted
    confidence: float
    trials: int
    offered: int
    trial_quality: float | None          # the mean quality of its trials
    replay_quality: float | None = None  # the replay's quality under it (a model configured: graph/context/replay.py)
    quality_improvement: float | None = None  # the replay's quality less the source decision's
    baseline_quality: float | None       # under the current policy since it was staged
    source_decision: str
    proposed: dict[str, float]
    original: dict[str, float]
    created_at: int                      # ms
    decided_at: int | None
    promoted_to: int | None              # the policy revision it became


class Staged(BaseModel):
    staged: list[str]                    # the mutations staged now


def alternatives(allocations: Mapping[ContextCategory, float], missing: list[str]) -> dict[str, Allocations]:
    """The spec's generate_alternative_policies for one poor decision."""
    out: dict[str, Allocations] = {}
    asked = {c for c in (signal_category(s) for s in missing) if c is not None and c in allocations}
    if asked:
        out["boost_missing"] = normalize({c: v + (0.02 if c in asked else 0.0) for c, v in allocations.items()})
    playbook = allocations.get(C.playbook, 0.15)
    moved = max(0.0, min(playbook - 0.02, 0.06))
    if moved > 0:
        alt = dict(allocations)
        alt[C.playbook] = playbook - moved
        alt[C.causal_edges] = alt.get(C.causal_edges, 0.08) + moved
        out["causal_over_playbook"] = normalize(alt)
    return out


def _json(a: Mapping[ContextCategory, float]) -> str:
    return json.dumps({c.value: round(v, 6) for c, v in a.items()}, sort_keys=True)


def _taken(agent_id: str) -> tuple[set[tuple[str, str | None]], set[str]]:
    """In the open transaction: the (kind, regime) pairs a staged mutation holds, and the decisions already the
    source of one."""
    return ({(m.kind, m.regime) for m in ContextMutation.nodes.filter(agent_id=agent_id, status="staged")},
            {m.source_decision for m in ContextMutation.nodes.filter(agent_id=agent_id)})


def _replay(db: Database, agent_id: str, poor: list[DecisionRead], allocations: Allocations,
            replayer: Replayer) -> dict[tuple[str, str], Replayed]:
    """Each alternative of the decisions staging would pick, replayed (the model asked outside any transaction).
    A decision replayed before is not picked again: the next-worst get their turn. Decision by decision, worst
    first: once a replay has beaten the gate for a (kind, regime), staging takes that pair from it, so the model is
    not asked about the pair again in this run (what is staged is the same; the calls are fewer)."""
    live, used = ogm.read(db, lambda tx: _taken(agent_id))
    done = {r["id"] for r in db.rows("context/replayed_decisions", ids=[r.id for r in poor])} if poor else set()
    picked = [r for r in poor if r.id not in used and r.id not in done][:WORST]
    if not picked:
        return {}
    details = {d.id: d for d in db.typed(ReplayDecision, ids=[r.id for r in picked])}
    out: dict[tuple[str, str], Replayed] = {}
    for r in picked:
        decision = details.get(r.id)
        if decision is None:
            continue
        for kind, proposed in alternatives(allocations, list(r.missing or [])).items():
            if (kind, r.regime) not in live:
                out[(r.id, kind)] = replayed = replayer.replay(decision, kind, allocations, proposed)
                if replayed.passes:
                    live.add((kind, r.regime))   # staged from this replay: the worse decisions' would be skipped
    return out


def stage(db: Database, agent_id: str, clade: str | None, config: GovernorConfig,
          actor: str = "context.loop3", replayer: Replayer | None = None) -> list[str]:
    """Stage mutations from the agent's worst recent decisions (not yet the source of one); their ids. With a
    `replayer`, only the alternatives whose replay passes the gate."""
    if not config.enable_loop3:
        return []
    rows = decisions_since(db, agent_id, 0, config.record_window)
    poor = sorted((r for r in rows if r.outcome_quality is not None and r.outcome_quality < POOR),
                  key=lambda r: r.outcome_quality or 0.0)
    policy = cp.current(db, agent_id)
    alpha = config.dream_mutation_confidence * STRENGTH
    replays = _replay(db, agent_id, poor, policy.allocations, replayer) if replayer is not None else {}
    if replayer is not None:
        if not replays:
            return []
        poor = [r for r in poor if any(d == r.id for d, _ in replays)]   # what was replayed, in its order

    def work(tx: Tx) -> list[str]:
        live, used = _taken(agent_id)
        out: list[str] = []
        replayed: list[Replayed] = []
        picked = [r for r in poor if r.id not in used][:WORST]
        for r in picked:
            for kind, proposed in alternatives(policy.allocations, list(r.missing or [])).items():
                if (kind, r.regime) in live:
                    continue
                replay = replays.get((r.id, kind))
                if replayer is not None:
                    if replay is None:   # picked since the replay (another run staged meanwhile): next run's
                        continue
                    replayed.append(replay)
                    if not replay.passes:
                        continue
                before = float(r.outcome_quality or 0.0)
                score = replay.quality if replay is not None else None
                m = ContextMutation(uid=uuid7(), agent_id=agent_id, regime=r.regime, kind=kind,
                                    source_decision=r.id, original=_json(policy.allocations),
                                    proposed=_json(proposed), quality_before=before,
                                    replay_quality=score, quality_improvement=None if score is None else score - before,
                                    status="staged", alpha=alpha, beta=STRENGTH - alpha, created_at=now_ms()).save()
                live.add((kind, r.regime))
                out.append(m.uid)
        outcome = "; ".join(x.line() for x in replayed)
        # replayed once each (cypher/context/replayed_decisions.cypher); one the model gave no score is asked again
        failed = {x.decision_id for x in replayed if x.quality is None}
        sources = sorted({x.decision_id for x in replayed} - failed)
        if sources:
            tx.run(cypher.query("context/mark_replayed"), ids=sources, at=now_ms()).consume()
        if out or sources:
            audit = Audit(action="context.mutation.stage", actor=actor, agent_id=agent_id,
                          trigger=f"replay: {outcome}"[:2_000] if replayed else None)
            revert: list[RevertOp] = [SetProperties(label=NodeLabel.ContextDecision, id=d, before={"replayed_at": None})
                                      for d in sources]
            if out:
                revert.append(DeleteNodes(label=NodeLabel.ContextMutation, ids=out))
            audit.write(tx, out + sources, f"loop 3 staged {len(out)} policy mutations from {len(picked)} poor "
                                           f"decisions" + (f" (replayed: {outcome})" if replayed else ""), revert)
        if out or replayed:
            adjustments: dict[str, Any] = {"staged": out}
            if replayed:
                adjustments["replayed"] = [x.model_dump() for x in replayed]
            write_events(tx, [context_events.feedback_loop(agent_id, clade, loop_id=3, tick=None,
                                                           record_count=len(picked), adjustments=adjustments)])
        return out

    return ogm.write(db, work)


def confidence(m: Mapping[str, Any]) -> float:
    a, b = float(m.get("alpha") or 0.0), float(m.get("beta") or 0.0)
    return a / (a + b) if a + b > 0 else 0.0


def verdict(m: Mapping[str, Any], config: GovernorConfig) -> str | None:
    """validated, refuted or None (still staged) for a mutation's tallies."""
    trials, conf = int(m.get("trials") or 0), confidence(m)
    if trials >= config.mutation_min_trials and conf >= config.validate_at:
        return "validated"
    if (trials >= config.mutation_min_trials and conf <= config.refute_at) or trials >= config.mutation_max_trials:
        return "refuted"
    return None


def judge(db: Database, agent_id: str, clade: str | None, mutation_id: str, config: GovernorConfig,
          actor: str = "context.loop3") -> Judged | None:
    """Validate (and promote) or refute a staged mutation whose tallies call for it; None while undecided, or when
    another judge got there first (the mutation leaves 'staged' once: cypher/context/claim_mutation.cypher)."""
    node = ogm.read(db, lambda tx: ContextMutation.nodes.get_or_none(uid=mutation_id))
    if node is None or node.status != "staged":
        return None
    state = {"trials": node.trials, "alpha": node.alpha, "beta": node.beta}
    outcome = verdict(state, config)
    if outcome is None:
        return None
    at = now_ms()

    def claim(tx: Tx) -> bool:
        if tx.run(cypher.query("context/claim_mutation"), id=mutation_id, status=outcome, at=at).single() is None:
            return False
        Audit(action="context.mutation.judge", actor=actor, agent_id=agent_id).write(
            tx, [mutation_id], f"loop 3: mutation {mutation_id} {outcome} (confidence {confidence(state):.2f}, "
                               f"{node.trials} trials)",
            [SetProperties(label=NodeLabel.ContextMutation, id=mutation_id,
                           before={"status": "staged", "decided_at": None})])
        write_events(tx, [context_events.feedback_loop(agent_id, clade, loop_id=3, tick=None, record_count=node.trials,
                                                       adjustments={"mutation": mutation_id, "verdict": outcome})])
        return True

    if not db.write(claim):
        return None
    revision = None
    if outcome == "validated":
        policy = cp.current(db, agent_id)
        proposed = {C(c): float(v) for c, v in json.loads(node.proposed).items()}
        changed = policy.copy_as()
        moves = {c: proposed.get(c, v) - v for c, v in policy.allocations.items()}
        changed.allocations = apply(policy.allocations, moves, config.max_allocation_delta)
        moved = {c.value: round(changed.allocations[c] - policy.allocations.get(c, 0.0), 6)
                 for c in changed.allocations}
        new = cp.revise(db, agent_id, changed, actor=actor, base=policy.revision,
                        reason=f"loop 3: mutation {mutation_id} ({node.kind}) validated after {node.trials} trials",
                        events=lambda old, new: [context_events.policy_updated(
                            agent_id, clade, revision=new.revision, trigger="loop3", delta=moved)],
                        also=lambda tx, new: _promoted(tx, mutation_id, new.revision))
        revision = new.revision
    return Judged(mutation_id=mutation_id, verdict=outcome, confidence=confidence(state), revision=revision)


def _promoted(tx: Tx, mutation_id: str, revision: int) -> None:
    tx.run(cypher.query("context/promote_mutation"), id=mutation_id, revision=revision).consume()


def listing(db: Database, agent_id: str) -> list[Mutation]:
    """The agent's mutations, newest first."""
    def work(tx: Tx) -> list[Mutation]:
        return [Mutation(
            id=m.uid, kind=m.kind, regime=m.regime, status=m.status,
            confidence=confidence({"alpha": m.alpha, "beta": m.beta}), trials=m.trials, offered=m.offered,
            trial_quality=m.trial_quality_sum / m.trials if m.trials else None,
            replay_quality=m.replay_quality, quality_improvement=m.quality_improvement,
            baseline_quality=m.base_quality_sum / m.base_n if m.base_n else m.quality_before,
            source_decision=m.source_decision, proposed=json.loads(m.proposed), original=json.loads(m.original),
            created_at=m.created_at, decided_at=m.decided_at, promoted_to=m.promoted_to)
            for m in ContextMutation.nodes.filter(agent_id=agent_id).order_by("-created_at")]

    return ogm.read(db, work)
