"""A clade mate's strategy package imported (../shared/spec/grimoire.md, "Strategy Generation": "[CORE]: Strategy
sharing is free within the Clade"): the package's heuristics, warnings and insights become candidates of the
importer's, each through the Admission Gate, at the knowledge weighting hierarchy's weight for clade knowledge
(grimoire.md line 1505: Vault 1.0x, Clade 0.8x, Lethe 0.5x) times the source entry's confidence.

The package must be the one its owner's graph packages now: its digest is checked against its content (a tampered
package is refused, 422) and against the package the owner's graph builds (a stale or forged one, 409), so what is
admitted is the owner's knowledge, never the caller's text under the owner's name. What the gate keeps is the
importer's: at most the source entry's scope (private unless asked otherwise), a candidate again (heuristics must
earn the playbook locally: grimoire.md line 823), with its provenance on it — the entry and agent it came from, the
strategy and the package's digest. Idempotent: each copy's id is derived from the importer and the source entry's
revision, and a candidate the importer's gate has decided before (admitted, merged, skipped or rejected) is not
decided again, so importing the same package twice admits nothing new and writes nothing."""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import BaseModel, Field

from grimoire.graph.agents import AgentOut
from grimoire.graph.errors import Conflict, Invalid
from grimoire.graph.knowledge.entries import Knowledge, admit
from grimoire.graph.learning import strategies
from grimoire.graph.learning.strategies import StrategyPackageOut
from grimoire.graph.model.common import StrictModel
from grimoire.graph.model.entry import EntryIn, EntrySource
from grimoire.graph.model.enums import EntryCategory, MarketRegime, Provenance, Scope
from grimoire.graph.visibility import Visibility

SCOPE_RANK = {Scope.private: 0, Scope.shared: 1, Scope.public: 2}
ALREADY = "already_imported"


class ImportSource(BaseModel):
    """The properties an imported copy carries besides a candidate's: where it came from."""

    imported_from: str
    imported_from_agent: str
    import_strategy: str
    import_digest: str
    source_confidence: float | None = None
    requested_scope: str | None = None  # the scope asked for, when the source's was narrower


class StrategyImportIn(StrictModel):
    package: StrategyPackageOut = Field(description="the package as GET /strategies/{strategy}/package returned it "
                                                    "to its owner, digest included")
    scope: Scope = Field(default=Scope.private, description="the imported entries' scope, narrowed to each source "
                                                           "entry's (never wider)")


class ImportedEntry(BaseModel):
    source_id: str = Field(description="the package's entry (the owner's)")
    category: EntryCategory
    candidate_id: str = Field(description="the importer's copy: derived from the importer and the source's revision")
    outcome: str = Field(description="the gate's outcome (admitted, admitted_low, merged, skipped, rejected, "
                                     "quarantined), or already_imported when decided by an earlier import")
    entry_id: str | None = Field(default=None, description="the entry written, or merged into / duplicated")
    confidence: float | None = Field(default=None, description="what a written entry got")
    scope: Scope
    decision_id: str | None = None


class StrategyImported(BaseModel):
    agent_id: str = Field(description="the importer")
    source_agent_id: str = Field(description="the package's owner")
    strategy: str
    digest: str
    provenance: Provenance = Field(description="what the copies are weighed as: the clade's knowledge")
    weight: float = Field(description="the clade weight each source confidence is multiplied by (grimoire.md: 0.8x)")
    admitted: list[str] = Field(description="entries this import wrote (none when it was imported before)")
    entries: list[ImportedEntry]


def check_digest(package: StrategyPackageOut) -> None:
    """The digest names the content: a package changed after it was built is refused (422)."""
    if strategies.digest_of(package.model_dump(exclude={"digest"})) != package.digest:
        raise Invalid("the package's digest does not match its content: it was changed after it was built")


def import_package(k: Knowledge, body: StrategyImportIn, *, importer: AgentOut, owner: AgentOut,
                   actor: str) -> StrategyImported:
    """The caller checks that `importer` and `owner` share a clade (the route answers 403 otherwise)."""
    package = body.package
    check_digest(package)
    if importer.id == owner.id:
        raise Invalid("a strategy package is imported by another agent of its owner's clade, not by its owner")
    current = strategies.package(k.db, owner.id, package.strategy, Visibility.of(owner.id, owner.clade),
                                 memory_scope=k.memory_scope)
    if current.digest != package.digest:
        raise Conflict(f"the package is not {owner.id}'s current package of {package.strategy!r} (stale, or not "
                       f"built by the service): fetch it again")
    weight = k.admission.provenance_weight[Provenance.Clade]
    sources = [*current.heuristics, *current.warnings, *current.insights]
    copies = {str(e["id"]): _copy_id(importer.id, e) for e in sources}
    decided = {r["id"]: r["entry_id"] for r in k.db.rows("entries/decided_candidates", agent_id=importer.id,
                                                         ids=list(copies.values()))}
    scopes = {str(e["id"]): _narrowed(body.scope, e.get("scope")) for e in sources}
    fresh = [e for e in sources if copies[str(e["id"])] not in decided]
    candidates = [EntryIn(
        id=copies[str(e["id"])], agent_id=importer.id, scope=scopes[str(e["id"])],
        category=EntryCategory(e["category"]), content=e["content"], strategy=package.strategy,
        market_regime=MarketRegime(e["market_regime"]) if e.get("market_regime") else None,
        provenance=_provenance(e.get("provenance"), k.admission.provenance_weight),
        confidence=round(min(1.0, float(e.get("confidence") or 0.0) * weight), 6),
        source=EntrySource(golem_id=owner.id)) for e in fresh]
    extra = {copies[str(e["id"])]: _provenance_props(e, owner.id, package, body.scope, scopes[str(e["id"])])
             .model_dump(exclude_none=True) for e in fresh}
    # The source entry (which the importer may see, when shared) is what the copy copies, not its duplicate.
    decisions = admit(k, candidates, actor=actor, clade=importer.clade or None, extra=extra,
                      copy_of={copies[str(e["id"])]: str(e["id"]) for e in fresh}) if candidates else []
    by_candidate = {d.candidate_id: d for d in decisions}
    answers = []
    for e in sources:
        source_id, cid = str(e["id"]), copies[str(e["id"])]
        d = by_candidate.get(cid)
        made = {"source_id": source_id, "category": EntryCategory(e["category"]), "candidate_id": cid,
                "scope": scopes[source_id]}
        if d is None or d.existing:  # decided by an earlier import: nothing decided again
            answers.append(ImportedEntry(**made, outcome=ALREADY, entry_id=d.entry_id if d else decided.get(cid)))
        else:
            answers.append(ImportedEntry(**made, outcome=d.result.outcome.value, entry_id=d.entry_id,
                                         confidence=d.result.confidence, decision_id=d.decision_id))
    admitted = [d.candidate_id for d in decisions if d.result.writes_entry and not d.existing]
    return StrategyImported(agent_id=importer.id, source_agent_id=owner.id, strategy=package.strategy,
                            digest=package.digest, provenance=Provenance.Clade, weight=weight, admitted=admitted,
                            entries=answers)


def _copy_id(importer: str, entry: dict[str, Any]) -> str:
    """A copy's id: one per importer and source revision (an id of the project's pattern, whatever their lengths)."""
    key = f"{importer}\n{entry['id']}\n{entry.get('revision') or 1}"
    return f"import-{hashlib.sha256(key.encode()).hexdigest()[:40]}"


def _narrowed(asked: Scope, source: Any) -> Scope:
    """The narrower of the scope asked for and the source entry's: an import never widens what it copies."""
    src = Scope(source) if source in Scope.__members__ else Scope.private
    return min(asked, src, key=lambda s: SCOPE_RANK[s])


def _provenance(given: Any, weights: dict[Provenance, float]) -> Provenance:
    """The clade's, unless the source entry itself came from somewhere weighed lower (then that)."""
    own = Provenance(given) if given in Provenance.__members__ else Provenance.Clade
    return min((Provenance.Clade, own), key=lambda p: weights[p])


def _provenance_props(entry: dict[str, Any], owner: str, package: StrategyPackageOut, asked: Scope,
                      scope: Scope) -> ImportSource:
    """What the copy keeps of where it came from: the source entry and agent, the strategy, the package's digest."""
    return ImportSource(imported_from=str(entry["id"]), imported_from_agent=owner, import_strategy=package.strategy,
                        import_digest=package.digest, source_confidence=entry.get("confidence"),
                        requested_scope=asked.value if scope != asked else None)
