"""Reflexion, per episode (../shared/spec/grimoire.md, "Reflexion with On-Chain Grounding"): when an
episode carries a prediction and its verified outcome, steps 1-2 compare them deterministically
(deviation, within tolerance, verdict) and record the comparison as a Reflection linked to the episode;
the Reasoner's steps 3-5 interpret it and, when the agent's recent comparisons show a pattern (three
misses to the same side), propose a candidate Insight at confidence 0.5 through the Admission Gate.

The comparison produces pending delta operations on the entries that informed the decision (the
prediction's `informed_by` and the entries its retrieval for the decision returned, the agent's own):
a vote from the decision's outcome (up when positive, down when negative) and an adjustment from the
prediction's verdict (correct, or wrong/miscalibrated), which the Curator nets and applies.
Idempotent: one Reflection per episode, deltas keyed by episode and entry.

An episode may also carry snapshots of the state it acted on and the invariants that must hold after it
(graph/model/state.py): step 1 compares the snapshots (each value's deviation), step 2 checks the invariants
(graph/learning/invariants.py), and both go into the Reflection. Any violation records a safety_incident episode
(importance emergency, confidence 1.0, the document's "confidence 1.0") in the source episode's scope and clade, never
wider (a confidential episode's incident is private and confidential too), linked to it (INCIDENT_OF), in the
transaction that writes the Reflection and under its audit record: one incident per episode, as one Reflection."""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, BeforeValidator, Field

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.episodes import INCIDENT_PREFIX, episode_properties
from grimoire.graph.events import episodes_written
from grimoire.graph.events import write as write_events
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge.entries import admit
from grimoire.graph.knowledge.reasoner import Comparison
from grimoire.graph.learning.distill import MAX_PARENTS
from grimoire.graph.learning.invariants import InvariantViolation, StateDeviation, check, compare, describe
from grimoire.graph.learning.state import Learning
from grimoire.graph.model.common import StoredTime
from grimoire.graph.model.crystal.lifecycle import archived
from grimoire.graph.model.crystal.privacy import MemoryScope
from grimoire.graph.model.crystal.sensitivity import Sensitivity
from grimoire.graph.model.entry import EntryIn
from grimoire.graph.model.enums import EntryCategory, EpisodeType, Importance, MarketRegime, Outcome, Scope
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.model.governance import GovernanceIn, Lifespan
from grimoire.graph.model.rows import Properties, Record, Row
from grimoire.graph.model.state import InvariantOut
from grimoire.graph.visibility import Visibility

log = logging.getLogger(__name__)
HISTORY = 10
INCIDENT_CONFIDENCE = 1.0  # a violated invariant is a fact, not a guess (grimoire.md step 2: "confidence 1.0")


class ReflexionDelta(BaseModel):
    entry_id: str
    op: str = Field(description="up, down or adjust: what the verdict does to the entry when the Curator applies it")
    verdict: str | None = None
    reason: str | None = None


def _from_json(value: Any) -> Any:
    """A list stored as JSON (a property cannot hold maps); none stored: an empty list."""
    if value is None:
        return []
    return json.loads(value) if isinstance(value, str) else value


class StoredReflection(BaseModel):
    """Reflexion's verdict on an episode (grimoire.md, "Reflexion"), as stored: its prediction's comparison and verdict
    (correct, miscalibrated, wrong; unset for an episode without a prediction), the comparison of its state
    snapshots (step 1) and the invariants that did not hold (step 2), with the safety_incident episode they
    recorded."""

    id: str
    episode_id: str
    metric: str | None = None
    expected: float | None = None
    actual: float | None = None
    tolerance: float | None = None
    deviation: float | None = None
    within_tolerance: bool | None = None
    direction_correct: bool | None = None
    verdict: str | None = None
    interpretation: str | None = None
    reasoner: str | None = None
    fallback: str | None = None
    state_deviations: Annotated[list[StateDeviation], BeforeValidator(_from_json)] = Field(
        default_factory=list, description="step 1: each value of the episode's pre_state and post_state, its change")
    invariants_checked: int | None = Field(default=None, description="step 2: how many invariants the episode "
                                                                     "declared; unset: none")
    violations: Annotated[list[InvariantViolation], BeforeValidator(_from_json)] = Field(
        default_factory=list, description="step 2: the invariants that did not hold")
    incident_id: str | None = Field(default=None, description="the safety_incident episode the violations recorded")
    at: StoredTime | None = None


class ReflectionOut(StoredReflection):
    """Reflexion's verdict on an episode's prediction and what it means for the entries that informed the decision
    (those the viewer may see)."""

    deltas: list[ReflexionDelta] = Field(default_factory=list)


class EpisodeReflectionRow(Row):
    query = "learning/episode_reflection"
    episode: dict[str, Any]  # its lifecycle fields, for lifecycle.archived
    reflection: StoredReflection | None
    deltas: list[ReflexionDelta]


def of_episode(db: Database, episode_id: str, visibility: Visibility, *,
               include_archived: bool = False) -> ReflectionOut | None:
    """The episode's Reflection, if the viewer may see the episode (an archived one only when asked, as GET
    /episodes/{id} answers) and Reflexion has judged its prediction: one read."""
    rows = db.typed(EpisodeReflectionRow, id=episode_id, **visibility.params())
    if not rows or rows[0].reflection is None or (archived(rows[0].episode) and not include_archived):
        return None
    return ReflectionOut(**dict(rows[0].reflection), deltas=rows[0].deltas)


@dataclass
class ReflexionReport:
    reflections: list[str] = field(default_factory=list)
    deltas: int = 0
    insights: list[str] = field(default_factory=list)     # candidate insights the gate admitted
    fallbacks: list[str] = field(default_factory=list)    # why a configured language model was not used
    incidents: list[str] = field(default_factory=list)    # safety_incident episodes recorded


def _comparisons(learning: Learning, eps: list[dict[str, Any]]) -> list[Comparison]:
    """Each episode's comparison with its history: the stored Reflections of its metric, tool and pair
    before it (one read for the batch) and the batch's own earlier ones, the newest HISTORY, so the
    history does not depend on where a batch starts."""
    asked = [{"id": ep["id"], "series": _series(ep), "before": ep["valid_from"]} for ep in eps]
    stored = {r["id"]: r["history"] for r in learning.db.rows(
        "learning/reflection_histories", agent_id=eps[0]["agent_id"], episodes=asked, limit=HISTORY)}
    # (valid_from, reflection id, expected, actual, regime) of this batch's comparisons, by metric, tool and pair
    batch: dict[str, list[tuple[int, str, float, float, str | None]]] = defaultdict(list)
    for ep in eps:
        batch[_series(ep)].append((ep["valid_from"], _reflection_id(ep), float(ep["prediction_expected"]),
                                   float(ep["prediction_actual"]), ep.get("regime")))
    out = []
    for ep in eps:
        earlier = {(h[0], h[1]): h for h in stored.get(ep["id"], [])}
        earlier.update({(h[0], h[1]): h for h in batch[_series(ep)] if h[0] < ep["valid_from"]})
        history = [earlier[k] for k in sorted(earlier)][-HISTORY:]
        out.append(Comparison(metric=ep["prediction_metric"], expected=float(ep["prediction_expected"]),
                              actual=float(ep["prediction_actual"]), tolerance=float(ep["prediction_tolerance"]),
                              tool=ep.get("tool"), token_pair=ep.get("token_pair"), regime=ep.get("regime"),
                              phase=ep.get("emotion_phase"),
                              history=tuple((float(h[2]), float(h[3])) for h in history),
                              previous_regime=history[-1][4] if history else None))
    return out


def _series(ep: dict[str, Any]) -> str:
    """The comparisons a pattern is looked for in: one metric, for one tool and pair."""
    return f"{ep['prediction_metric']}|{ep.get('tool') or ''}|{ep.get('token_pair') or ''}"


def _reflection_id(ep: dict[str, Any]) -> str:
    return f"reflexion:{ep['id']}"[:200]


def _deltas(ep: dict[str, Any], informed: list[str], verdict: str, now: int) -> list[Properties]:
    out = []
    vote = {"positive": "up", "negative": "down"}.get(ep.get("outcome") or "")
    for entry_id in sorted(informed):
        base = {"agent_id": ep["agent_id"], "source": "reflexion", "count": 1, "at": now,
                "episode_ids": [ep["id"]]}
        if vote:
            out.append({"id": f"reflexion:{ep['id']}:{entry_id}:vote"[:200], "entry_id": entry_id,
                        "props": {**base, "op": vote, "reason": f"the decision's outcome was {ep['outcome']}"}})
        out.append({"id": f"reflexion:{ep['id']}:{entry_id}:adjust"[:200], "entry_id": entry_id,
                    "props": {**base, "op": "adjust", "verdict": verdict,
                              "reason": f"the prediction it informed was {verdict}"}})
    return out


def reflect(learning: Learning, agent_id: str, *, actor: str, ids: list[str] | None = None,
            through: int | None = None) -> ReflexionReport:
    """Reflects on the agent's verified predictions that have no Reflection yet (or those of `ids`)."""
    report = ReflexionReport()
    while True:
        rows = learning.db.rows("learning/to_reflect", agent_id=agent_id, ids=ids, through=through or now_ms() + 1,
                                 limit=learning.config.batch)
        if not rows:
            return report
        _reflect_batch(learning, rows, actor, report)
        if ids is not None or len(rows) < learning.config.batch:
            return report


def _incident_id(episode_id: str) -> str:
    """The safety_incident's id, one per source episode (ids are at most 128 characters: a long one is hashed)."""
    out = f"{INCIDENT_PREFIX}{episode_id}"
    return out if len(out) <= 128 else f"{INCIDENT_PREFIX}{hashlib.sha256(episode_id.encode()).hexdigest()}"


@dataclass(frozen=True)
class Incident:
    """A safety_incident episode to write: its id, the episode it reports on, its properties (no embedding)."""

    id: str
    source_id: str
    props: Properties


def _incident(ep: dict[str, Any], violations: list[InvariantViolation], now: int) -> Incident:
    """The safety_incident episode a violation records (without its embedding): the source episode's owner, clade
    and scope (never wider: a confidential source keeps its incident confidential, and so private), its situation
    and valid time, importance emergency and confidence 1.0, permanent (the consolidation engine never forgets it).
    Its text names the keys and numbers only, nothing of the source's own text."""
    incident = EpisodeIn(
        id=_incident_id(ep["id"]), agent_id=ep["agent_id"], scope=Scope(ep.get("scope") or Scope.private.value),
        type=EpisodeType.safety_incident, outcome=Outcome.negative, importance=Importance.emergency,
        confidence=INCIDENT_CONFIDENCE,
        text=f"Safety incident: {len(violations)} invariant violation(s) after episode {ep['id']}"
             f"{' (' + ep['tool'] + ')' if ep.get('tool') else ''}: {describe(violations)}."[:20_000],
        tool=ep.get("tool"), tick=ep.get("tick"), block=ep.get("block"), strategy=ep.get("strategy"),
        regime=MarketRegime(ep["regime"]) if ep.get("regime") else None, chain=ep.get("chain"),
        token_pair=ep.get("token_pair"), valid_from=datetime.fromtimestamp(ep["valid_from"] / 1000, UTC),
        valid_from_block=ep.get("valid_from_block"), governance=GovernanceIn(lifespan=Lifespan.permanent))
    # the source's scope as stored (already governed): the incident is never wider than the episode it follows
    props = episode_properties(incident, now, ep.get("clade"), MemoryScope.as_written)
    props["valid_from"] = ep["valid_from"]  # exactly the source's (no round trip through a datetime)
    props["source_episode_id"] = ep["id"]
    props["consolidated"] = True  # its source is the evidence: the Curator does not count the outcome twice
    if ep.get("sensitivity") == Sensitivity.confidential.value:
        props.update(sensitivity=Sensitivity.confidential.value, scope=Scope.private.value)
    return Incident(id=str(incident.id), source_id=ep["id"], props=props)


def _snapshots(ep: dict[str, Any]) -> tuple[list[StateDeviation], int | None, list[InvariantViolation]]:
    """Steps 1-2 on the episode's snapshots: the deviations, how many invariants it declared, those broken."""
    pre, post = _from_json(ep.get("pre_state")) or None, _from_json(ep.get("post_state")) or None
    declared = [InvariantOut.model_validate(i) for i in _from_json(ep.get("invariants"))]
    if pre is None and post is None and not declared:
        return [], None, []
    return compare(pre, post), len(declared) or None, check(declared, pre, post)


def _reflect_batch(learning: Learning, rows: list[dict[str, Any]], actor: str, report: ReflexionReport) -> None:
    now = now_ms()
    records: list[dict[str, Any]] = []
    incidents: list[Incident] = []
    # A pattern that holds over several of the batch's comparisons (a systematic miss of one series in one
    # regime, to one side) is proposed once, with the newest comparison's numbers and every episode that showed it:
    # the gate would skip the near-copies anyway, after embedding each of them.
    patterns: dict[tuple[str, str | None, bool], tuple[str, dict[str, Any], list[str]]] = {}
    predicted = [r for r in rows if r["episode"].get("prediction_actual") is not None]
    comparisons = dict(zip([r["episode"]["id"] for r in predicted],
                           _comparisons(learning, [r["episode"] for r in predicted]) if predicted else [],
                           strict=True))
    for r in rows:
        ep, informed = r["episode"], r["informed"]
        deviations, checked, violations = _snapshots(ep)
        props: dict[str, Any] = {
            "agent_id": ep["agent_id"], "clade": ep.get("clade"), "scope": ep.get("scope"), "episode_id": ep["id"],
            "tool": ep.get("tool"), "token_pair": ep.get("token_pair"), "regime": ep.get("regime"),
            "tick": ep.get("tick"), "outcome": ep.get("outcome"), "informed": informed,
            "valid_from": ep["valid_from"], "at": now, "recorded_at": now,
            "state_deviations": json.dumps([d.model_dump(exclude_none=True) for d in deviations]) if deviations
            else None,
            "invariants_checked": checked,
            "violations": json.dumps([v.model_dump(mode="json", exclude_none=True) for v in violations])
            if violations else None,
            "incident_id": _incident_id(ep["id"]) if violations else None}
        if violations:
            incidents.append(_incident(ep, violations, now))
        c = comparisons.get(ep["id"])
        deltas: list[Properties] = []
        if c is not None:
            text, lesson, judged = learning.knowledge.reasoner.reflect(c)
            if judged.fallback:
                report.fallbacks.append(judged.fallback)
            props.update({"metric": c.metric, "expected": c.expected, "actual": c.actual, "tolerance": c.tolerance,
                          "deviation": c.deviation, "within_tolerance": c.within_tolerance,
                          "direction_correct": c.direction_correct, "verdict": c.verdict, "series": _series(ep),
                          "interpretation": text, "reasoner": judged.reasoner, "fallback": judged.fallback})
            deltas = _deltas(ep, informed, c.verdict, now)
            if lesson is not None:
                # The pattern's side is its newest miss's (the last misses lie to one side): an underestimate and
                # an overestimate of one series in one batch are two lessons.
                key = (_series(ep), ep.get("regime"), c.actual > c.expected)
                shown = [*patterns[key][2], ep["id"]] if key in patterns else [ep["id"]]
                patterns[key] = (lesson.content, ep, shown[-MAX_PARENTS:])
        records.append({"id": _reflection_id(ep), "episode_id": ep["id"],
                        "props": {k: v for k, v in props.items() if v is not None}, "deltas": deltas})
    # The incidents' embeddings before the transaction opens.
    vectors = (learning.knowledge.embedder.embed([i.props["text"] for i in incidents]) if incidents
               else np.zeros((0, 0), dtype=np.float32))
    incident_rows = [{"id": i.id, "source_id": i.source_id, "props": i.props, "embedding": vec.tolist()}
                     for i, vec in zip(incidents, vectors, strict=True)]
    lessons = [EntryIn(id=f"reflexion-{ep['id']}"[:128], agent_id=ep["agent_id"], category=EntryCategory.Insight,
                       content=content, market_regime=MarketRegime(ep["regime"]) if ep.get("regime") else None,
                       parent_episode_ids=shown, tags=["reflexion"], confidence=0.5)
               for content, ep, shown in patterns.values()]
    owners = {r["props"]["agent_id"] for r in records}
    audit = Audit(action="learning.reflexion", actor=actor, agent_id=owners.pop() if len(owners) == 1 else None,
                  at=now)

    def work(tx: Tx) -> tuple[list[Record], list[str]]:
        made = [rec.data() for rec in tx.run(cypher.query("learning/write_reflections"), rows=records,
                                             audit_id=audit.id)]
        created = [m["id"] for m in made]
        delta_ids = [d["id"] for rec in records if rec["id"] in created for d in rec["deltas"]]
        # An incident only with its Reflection: the episode a concurrent run reflected on has its incident already.
        reflected = {rec["episode_id"] for rec in records if rec["id"] in created}
        raised = [rec["id"] for rec in tx.run(cypher.query("learning/write_incidents"), audit_id=audit.id,
                                              rows=[i for i in incident_rows if i["source_id"] in reflected])]
        audit.write(tx, created + raised, f"{len(created)} reflections, {len(delta_ids)} deltas, "
                                          f"{len(raised)} safety incidents",
                    [DeleteNodes(label=NodeLabel.Episode, ids=raised),
                     DeleteNodes(label=NodeLabel.Delta, ids=delta_ids),
                     DeleteNodes(label=NodeLabel.Reflection, ids=created)])
        owners = Counter((i["props"].get("agent_id"), i["props"].get("clade")) for i in incident_rows
                         if i["id"] in raised)
        write_events(tx, [episodes_written(agent, clade, n, source="reflexion")
                          for (agent, clade), n in owners.items()])
        return made, raised

    made, raised = learning.db.write(work)
    report.reflections += [m["id"] for m in made]
    report.deltas += sum(m["deltas"] for m in made)
    report.incidents += raised
    if lessons:
        clade = rows[0]["episode"].get("clade")
        for d in admit(learning.knowledge, lessons, actor=actor, clade=clade, chunk=max(1, learning.config.batch // 3)):
            if d.result.writes_entry and not d.existing:
                report.insights.append(d.candidate_id)
    log.info("reflexion: %d reflections, %d deltas, %d candidate insights, %d safety incidents", len(made),
             report.deltas, len(report.insights), len(raised))
