"""Strategy packaging (../shared/spec/grimoire.md, "Strategy Generation"): when a strategy's
Performance-Safety Ratio passes 0.90, the strategy can be packaged as an exportable artifact — its
PLAYBOOK.md section, its active heuristics, warnings and insights (never a confidential one), and the causal
links between them. A clade mate imports it through the Admission Gate (graph/learning/strategy_import.py).
The spec's ONNX model and EAS attestation are a marketplace's business; this is the [CORE] part:
an artifact to share within the clade.

PSR here (the spec names it without a formula): performance × safety over the strategy's decided
episodes (positive or negative outcomes) — performance the share that went well, safety one minus
the share that went badly at critical or emergency importance — and only with at least
`MIN_DECIDED` of them, so that a lucky handful does not qualify."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from grimoire.graph.db.connection import Database
from grimoire.graph.errors import Conflict, NotFound
from grimoire.graph.learning import playbook
from grimoire.graph.model.crystal.privacy import MemoryScope, category_type, private_scope
from grimoire.graph.visibility import Visibility

THRESHOLD = 0.90
MIN_DECIDED = 20


class StrategyOut(BaseModel):
    strategy: str
    decided: int = Field(description="episodes of the strategy with a positive or negative outcome")
    positives: int
    safety_failures: int = Field(description="negative outcomes at critical or emergency importance")
    performance: float
    safety: float
    psr: float = Field(description="Performance-Safety Ratio: performance x safety")
    eligible: bool = Field(description="PSR above 0.90 over at least 20 decided episodes: it can be packaged")


class StrategyPackageOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    format: str
    agent_id: str
    strategy: str
    performance: StrategyOut
    playbook_section: str
    heuristics: list[dict[str, Any]]
    warnings: list[dict[str, Any]]
    insights: list[dict[str, Any]]
    causal_links: list[dict[str, Any]]
    digest: str = Field(description="sha-256 of the artifact: the same graph packages the same bytes")


class NotEligible(Conflict):
    """The strategy's PSR has not passed 0.90 (409)."""


@dataclass(frozen=True)
class StrategyRecord:
    strategy: str
    decided: int
    positives: int
    safety_failures: int

    @property
    def performance(self) -> float:
        return self.positives / self.decided if self.decided else 0.0

    @property
    def safety(self) -> float:
        return 1.0 - self.safety_failures / self.decided if self.decided else 0.0

    @property
    def psr(self) -> float:
        return round(self.performance * self.safety, 6)

    @property
    def eligible(self) -> bool:
        return self.decided >= MIN_DECIDED and self.psr > THRESHOLD

    def out(self) -> StrategyOut:
        return StrategyOut(strategy=self.strategy, decided=self.decided, positives=self.positives,
                           safety_failures=self.safety_failures, performance=round(self.performance, 6),
                           safety=round(self.safety, 6), psr=self.psr, eligible=self.eligible)


def records(db: Database, agent_id: str) -> list[StrategyRecord]:
    return [StrategyRecord(r["strategy"], r["decided"], r["positives"], r["safety_failures"])
            for r in db.fetch("learning/strategy_performance", agent_id=agent_id, since=0)]


def package(db: Database, agent_id: str, strategy: str, visibility: Visibility,
            memory_scope: MemoryScope = MemoryScope.private) -> StrategyPackageOut:
    """The artifact, stable for a given graph (its digest names its content). Under the private memory-scope rule
    a memory crystal (a warning or a causal link is a fact) is never packaged: it never leaves the node."""
    record = next((r for r in records(db, agent_id) if r.strategy == strategy), None)
    if record is None:
        raise NotFound(f"agent {agent_id} has no decided episodes of strategy {strategy!r}")
    if not record.eligible:
        raise NotEligible(f"strategy {strategy!r}: PSR {record.psr:.3f} over {record.decided} decided episodes; "
                          f"packaging needs more than {THRESHOLD} over at least {MIN_DECIDED}")
    rows = db.fetch("learning/strategy_package", agent_id=agent_id, strategy=strategy)
    entries = [r["entry"] for r in rows
               if private_scope(category_type(r["entry"]["category"]), "shared", memory_scope) != "private"]
    # a causal link is a fact crystal: packaged only when facts may leave the node (as_written)
    links = (sorted({json.dumps(lk, sort_keys=True) for r in rows for lk in r["links"] if lk})
             if private_scope(category_type("CausalLink"), "shared", memory_scope) != "private" else [])
    section = _section(playbook.render(db, agent_id, visibility, shareable=True,
                                       memory_private=memory_scope is MemoryScope.private), strategy)
    body = {"format": "grimoire.strategy/1", "agent_id": agent_id, "strategy": strategy,
            "performance": record.out().model_dump(), "playbook_section": section,
            "heuristics": [e for e in entries if e["category"] == "Heuristic" and e.get("in_playbook")],
            "warnings": [e for e in entries if e["category"] == "Warning"],
            "insights": [e for e in entries if e["category"] not in ("Heuristic", "Warning")],
            "causal_links": [json.loads(lk) for lk in links]}
    return StrategyPackageOut.model_validate({**body, "digest": digest_of(body)})


def digest_of(body: dict[str, Any]) -> str:
    """The sha-256 of a package's content (everything but its digest), as canonical JSON."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


def _section(text: str, strategy: str) -> str:
    head = f"## Strategy: {strategy}"
    if head not in text:
        return ""
    rest = text[text.index(head):]
    nxt = rest.find("\n## ", len(head))
    return (rest if nxt < 0 else rest[:nxt]).rstrip("\n") + "\n"
