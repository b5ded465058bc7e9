"""MemoryPipeline (knowledge-crystals.md, "Indexing Pipeline"): a fluent retrieve → filter → augment → store workflow
in Python over Grimoire's own paths — retrieval (the hybrid pipeline, as the caller may see), the crystals' fields,
and an audited write of what the augment step changed.

    result = (MemoryPipeline.create(retriever, db, visibility, agent_id="golem-1", actor="key-1")
              .retrieve("oracle failures", semantic_type="fact", limit=20)
              .filter(lambda c: c["importance_score"] > 0.05)
              .augment(lambda c: {**c, "priority": 10})
              .store()
              .execute())

Steps run in order when `execute` is called. `store` writes back the crystal fields an augment may change
(STORABLE) on the crystals the caller owns, one audited transaction; it skips the others and says why."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grimoire.graph.audit import Audit, SetProperties
from grimoire.graph.crystals import store as crystals
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.retrieval import RetrievalRequest, Retriever
from grimoire.graph.visibility import Visibility

Crystal = dict[str, Any]
STORABLE = ("importance_score", "priority", "steering_reward", "tags", "skill_tags", "skill_category")


@dataclass
class PipelineResult:
    crystals: list[Crystal]
    stored: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    audit_id: str | None = None


@dataclass
class MemoryPipeline:
    retriever: Retriever
    db: Database
    visibility: Visibility
    agent_id: str | None
    actor: str
    steps: list[tuple[str, Any]] = field(default_factory=list)

    @classmethod
    def create(cls, retriever: Retriever, db: Database, visibility: Visibility, *, agent_id: str | None,
               actor: str) -> MemoryPipeline:
        return cls(retriever=retriever, db=db, visibility=visibility, agent_id=agent_id, actor=actor)

    def _then(self, step: str, arg: Any) -> MemoryPipeline:
        return MemoryPipeline(self.retriever, self.db, self.visibility, self.agent_id, self.actor,
                              [*self.steps, (step, arg)])

    def retrieve(self, query: str, *, semantic_type: str | None = None, limit: int = 20,
                 mode: str = "hybrid") -> MemoryPipeline:
        return self._then("retrieve", {"query": query, "semantic_type": semantic_type, "limit": limit, "mode": mode})

    def filter(self, keep: Callable[[Crystal], bool]) -> MemoryPipeline:
        return self._then("filter", keep)

    def augment(self, change: Callable[[Crystal], Crystal]) -> MemoryPipeline:
        return self._then("augment", change)

    def store(self) -> MemoryPipeline:
        return self._then("store", None)

    def execute(self) -> PipelineResult:
        if not self.steps or self.steps[0][0] != "retrieve":
            raise Invalid("a pipeline starts with retrieve")
        result = PipelineResult(crystals=[])
        read: dict[str, Crystal] = {}
        for step, arg in self.steps:
            if step == "retrieve":
                result.crystals = self._retrieve(**arg)
                read.update({c["id"]: dict(c) for c in result.crystals})
            elif step == "filter":
                result.crystals = [c for c in result.crystals if arg(c)]
            elif step == "augment":
                result.crystals = [arg(dict(c)) for c in result.crystals]
            else:
                self._store(result, read)
        return result

    def _retrieve(self, query: str, semantic_type: str | None, limit: int, mode: str) -> list[Crystal]:
        req = RetrievalRequest(text=query, k=min(100, limit * (3 if semantic_type else 1)), mode=mode,
                               no_budget=True)
        found = self.retriever.retrieve(req, self.visibility, self.agent_id)
        out: list[Crystal] = []
        for item in found.results:
            try:
                crystal = crystals.get(self.db, item.id, self.visibility).model_dump(exclude_unset=True)
            except NotFound:  # expired or changed since it was ranked
                continue
            if semantic_type is None or crystal.get("semantic_type") == semantic_type:
                out.append({**crystal, "score": item.score})
            if len(out) >= limit:
                break
        return out

    def _store(self, result: PipelineResult, read: dict[str, Crystal]) -> None:
        rows, reverts = [], []
        for c in result.crystals:
            before = read.get(str(c.get("id")))
            if before is None:
                result.skipped[str(c.get("id"))] = "not retrieved by this pipeline"
                continue
            if not (self.visibility.admin or before.get("agent_id") == self.visibility.viewer):
                result.skipped[c["id"]] = "not the caller's: only an owner's crystals are stored"
                continue
            if before.get("lifecycle") == "frozen":
                result.skipped[c["id"]] = "frozen: immutable (a change is a new version)"
                continue
            changes = {k: c.get(k) for k in STORABLE if k in c and c.get(k) != before.get(k)}
            if changes:
                label = crystals.label_of(before.get("kinds", []))
                rows.append({"id": c["id"], "label": label.value, "changes": changes})
                reverts.append(SetProperties(label=label, id=c["id"],
                                             before={k: before.get(k) for k in changes}))
        if not rows:
            return
        audit = Audit(action="crystal.pipeline_store", actor=self.actor, agent_id=self.agent_id)

        kinds = {r["id"]: list(read[r["id"]].get("kinds", [])) for r in rows}

        def work(tx: Tx) -> list[str]:
            steps = crystals.keep(tx, kinds, audit, "a MemoryPipeline's store step")
            stored = [r["id"] for r in tx.run(cypher.query("crystals/pipeline_store"), rows=rows)]
            audit.write(tx, stored, f"a MemoryPipeline stored {len(stored)} crystals", reverts, steps)
            return stored

        result.stored = self.db.write(work)
        result.audit_id = audit.id
