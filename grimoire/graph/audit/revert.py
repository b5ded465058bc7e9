"""Revert operations: what undoes a mutation, as typed data an audit record carries.

Each mutation's audit record holds the list of operations that undo it, in the order they are to
run. The rollback (issue 17) executes them and interprets nothing: every id, label, relationship
type and property value it needs is in the operation. Labels and relationship types are closed
vocabularies (the fact types come from graph/model/enums.py), property names are identifiers, so
nothing from a request ever reaches Cypher as a label, a type or a key.

What each operation means, for whoever executes it:

- DeleteNodes: the nodes of `label` with these ids, with their relationships (DETACH DELETE).
- DeleteRelationships: the relationships of `type` with these ids; or, for relationships without ids
  of their own, those from the node `start_label {id: start_id}` to the nodes with `end_ids`.
- SetProperties / SetRelationshipProperties: the node (relationship) gets back the values in `before`;
  a None there means the property was absent (remove it).
- RemoveProperties: these properties are removed from these nodes (they were absent before).
- RevokeKey: the key stops working (the undoing of making it). RestoreKey: a key this record revoked
  works again (its revoked_at removed).
- RevertAdmission: the admission's decisions are deleted, the entries it wrote deleted (DETACH), and
  each merge into an existing entry taken back: validated_count - 1, the tags and DERIVED_FROM
  relationships it added removed (one MergeUndo per merged candidate: two merges into one entry, two).
- RestoreMemories / ArchiveMemories: memories archived (restored) by the record brought back (archived again).
- UndoRemember: memories a write created deleted with what hangs off them alone (the relations they alone
  assert, the entities they made that nothing else touches, the agent's name among an entity's creators), the
  relations they added a source to given back their sources and confidence, the memories they reinforced one
  access less.
- RestoreImage: nodes put back exactly as an image taken before a rollback shows them (properties, labels,
  embedding, the relationships among them and to their neighbours), and those it lists as absent deleted: what
  undoes a rollback (graph/audit/rollback.py).
- Noop: nothing to undo, and why.

`touches()` names the nodes an operation changes (to image them before a rollback runs it); `restricted(ids)`
is the operation limited to some items (rolling back one item of a record that changed many), or None.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from grimoire.graph.model.enums import REL_TYPES, EntityKind, EntryCategory
from grimoire.graph.model.rows import Properties

PROPERTY_NAME = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"
PropertyName = Annotated[str, Field(pattern=PROPERTY_NAME)]
Scalar = bool | int | float | str
PropertyValue = Scalar | list[Scalar] | None
Id = Annotated[str, Field(min_length=1)]


class NodeLabel(StrEnum):
    """The node kinds a revert operation may name (an entry's category and an entity's kind are extra
    labels of Entry and Entity)."""

    Agent = "Agent"
    ApiKey = "ApiKey"
    Episode = "Episode"
    Entry = "Entry"
    Entity = "Entity"
    AdmissionDecision = "AdmissionDecision"
    AnalysisRun = "AnalysisRun"
    RetrievalWeights = "RetrievalWeights"
    Reflection = "Reflection"
    Delta = "Delta"
    CuratorCycle = "CuratorCycle"
    ConsolidationRun = "ConsolidationRun"
    CuratorOperation = "CuratorOperation"
    StrategyCounter = "StrategyCounter"
    EntryVersion = "EntryVersion"
    CoreBlock = "CoreBlock"
    CoreBlockVersion = "CoreBlockVersion"
    WorkspaceFile = "WorkspaceFile"
    Memory = "Memory"
    MemoryReflection = "MemoryReflection"
    Alert = "Alert"
    MemoryProposal = "MemoryProposal"
    Version = "Version"
    AuditRecord = "AuditRecord"
    ContextPolicy = "ContextPolicy"
    ContextPolicyRevision = "ContextPolicyRevision"
    ContextDecision = "ContextDecision"
    ContextBelief = "ContextBelief"
    ContextMutation = "ContextMutation"
    AgentHormones = "AgentHormones"
    NetworkWeather = "NetworkWeather"
    ManagementNode = "ManagementNode"  # a management node's Ed25519 key (graph/crystals/endorsements.py)
    Bounty = "Bounty"                  # graph/crystals/bounties.py


class RelationshipType(StrEnum):
    """Facts are relationships of one type per predicate (REL_TYPES in graph/model/enums.py; a test
    keeps the two equal); the others are written by causal links (CAUSES), analysis runs (SCORED)
    and imports (MENTIONS, DERIVED_FROM, DECIDED)."""

    DEPLOYED_BY = "DEPLOYED_BY"
    TOKEN_FLOW = "TOKEN_FLOW"
    ORACLE_DEPENDENCY = "ORACLE_DEPENDENCY"
    PRICE_CORRELATION = "PRICE_CORRELATION"
    GOVERNANCE_CONTROL = "GOVERNANCE_CONTROL"
    COLLATERAL_BACKING = "COLLATERAL_BACKING"
    HAS_POSITION = "HAS_POSITION"
    IS_ROUTER_FOR = "IS_ROUTER_FOR"
    CUSTOM = "CUSTOM"
    CAUSES = "CAUSES"
    SCORED = "SCORED"
    MENTIONS = "MENTIONS"
    DERIVED_FROM = "DERIVED_FROM"
    DECIDED = "DECIDED"
    FOLLOWS = "FOLLOWS"
    LEARNED_FROM = "LEARNED_FROM"
    PROVENANCE = "PROVENANCE"  # a crystal's derivation from its parents (graph/crystals/provenance.py)


KNOWN_LABELS = frozenset({*(x.value for x in NodeLabel), *(x.value for x in EntityKind),
                           *(x.value for x in EntryCategory), "EntryVersion", "CoreBlockVersion"})
FACT_TYPES = frozenset(RelationshipType(t) for t in REL_TYPES.values())


class BadRevert(ValueError):
    """An audit record's revert data that is not a list of known, well-formed revert operations."""


class _Model(BaseModel):
    # Not StrictModel: values are kept exactly as stored (no whitespace stripping).
    model_config = ConfigDict(extra="forbid", frozen=True)


Ref = tuple[NodeLabel, str]


class _Op(_Model):
    def changes_nothing(self) -> bool:
        """An operation with nothing to do (an empty list of ids): left out of the record."""
        return False

    def touches(self) -> list[Ref]:
        """The nodes it changes (to be imaged before it runs, so that what a rollback did can be undone)."""
        return []

    def restricted(self, ids: set[str]) -> _Op | None:
        """The operation on these items only; None when it changes none of them."""
        return self if set(self.items()) & ids else None

    def items(self) -> list[str]:
        return [i for _, i in self.touches()]


class _OnIds(_Op):
    """An operation on nodes of one label named by their ids: without ids it changes nothing, it touches each,
    and restricted to some items it keeps the ids among them (the shared handling of DeleteNodes,
    RemoveProperties, RestoreMemories, ArchiveMemories and UndoRemember)."""

    ids: list[Id]

    def node_label(self) -> NodeLabel:
        raise NotImplementedError

    def changes_nothing(self) -> bool:
        return not self.ids

    def touches(self) -> list[Ref]:
        return [(self.node_label(), i) for i in self.ids]

    def restricted(self, ids: set[str]) -> Self | None:
        kept = [i for i in self.ids if i in ids]
        return self.model_copy(update={"ids": kept}) if kept else None


class DeleteNodes(_OnIds):
    op: Literal["delete_nodes"] = "delete_nodes"
    label: NodeLabel

    @model_validator(mode="after")
    def _not_the_trail(self) -> DeleteNodes:
        if self.label in (NodeLabel.AuditRecord, NodeLabel.Version):
            raise ValueError("the trail and the version chain are never deleted by a revert")
        return self

    def node_label(self) -> NodeLabel:
        return self.label


class Endpoints(_Model):
    """Relationships without ids of their own: those from one node to each of `end_ids`."""

    start_label: NodeLabel
    start_id: Id
    end_ids: list[Id]


class DeleteRelationships(_Op):
    op: Literal["delete_relationships"] = "delete_relationships"
    type: RelationshipType
    ids: list[Id] = []
    keys: list[Endpoints] = []

    @model_validator(mode="after")
    def _ids_or_keys(self) -> DeleteRelationships:
        if self.ids and self.keys:
            raise ValueError("relationships are named by ids or by keys, not both")
        return self

    def changes_nothing(self) -> bool:
        return not self.ids and not any(k.end_ids for k in self.keys)

    def touches(self) -> list[Ref]:
        return [(k.start_label, k.start_id) for k in self.keys]

    def items(self) -> list[str]:
        return [*self.ids, *(k.start_id for k in self.keys), *(e for k in self.keys for e in k.end_ids)]


class SetProperties(_Op):
    op: Literal["set_properties"] = "set_properties"
    label: NodeLabel
    id: Id
    before: dict[PropertyName, PropertyValue]

    def changes_nothing(self) -> bool:
        return not self.before

    def touches(self) -> list[Ref]:
        return [(self.label, self.id)]


class SetRelationshipProperties(_Op):
    op: Literal["set_relationship_properties"] = "set_relationship_properties"
    type: RelationshipType
    id: Id
    before: dict[PropertyName, PropertyValue]

    def changes_nothing(self) -> bool:
        return not self.before

    def items(self) -> list[str]:
        return [self.id]


class RemoveProperties(_OnIds):
    op: Literal["remove_properties"] = "remove_properties"
    label: NodeLabel
    properties: list[PropertyName] = Field(min_length=1)

    def node_label(self) -> NodeLabel:
        return self.label


class RevokeKey(_Op):
    op: Literal["revoke_key"] = "revoke_key"
    key_id: Id

    def touches(self) -> list[Ref]:
        return [(NodeLabel.ApiKey, self.key_id)]


class RestoreKey(_Op):
    op: Literal["restore_key"] = "restore_key"
    key_id: Id

    def touches(self) -> list[Ref]:
        return [(NodeLabel.ApiKey, self.key_id)]


class MergeUndo(_Model):
    """One candidate merged into an existing entry, and what the merge added to it."""

    entry_id: Id
    added_tags: list[str] = []
    added_episodes: list[Id] = []  # the DERIVED_FROM relationships to these episodes


class RevertAdmission(_Op):
    op: Literal["revert_admission"] = "revert_admission"
    decision_ids: list[Id]
    created: list[Id] = []
    merged: list[MergeUndo] = []

    def changes_nothing(self) -> bool:
        return not (self.decision_ids or self.created or self.merged)

    def touches(self) -> list[Ref]:
        return ([(NodeLabel.AdmissionDecision, i) for i in self.decision_ids]
                + [(NodeLabel.Entry, i) for i in self.created] + [(NodeLabel.Entry, m.entry_id) for m in self.merged])

    def restricted(self, ids: set[str]) -> RevertAdmission | None:
        # one admission is taken back whole: its decisions and entries are one change
        return self if set(self.items()) & ids else None


class RestoreMemories(_OnIds):
    """Undo an archive of an agent's memories (cypher/memory/restore.cypher): searchable again, with the
    relations archived with them."""

    op: Literal["restore_memories"] = "restore_memories"
    agent_id: Id

    def node_label(self) -> NodeLabel:
        return NodeLabel.Memory


class ArchiveMemories(_OnIds):
    """Undo a restore of archived memories: archived again (cypher/memory/archive.cypher)."""

    op: Literal["archive_memories"] = "archive_memories"
    agent_id: Id

    def node_label(self) -> NodeLabel:
        return NodeLabel.Memory


class FactBefore(_Model):
    id: Id
    confidence: float


class Reinforced(_Model):
    id: Id
    last_accessed_at: int | None = None
    times: int = 1


class UndoRemember(_OnIds):
    """Undo a write of memories (cypher/memory/remember.cypher); see the module's docstring."""

    op: Literal["undo_remember"] = "undo_remember"
    agent_id: Id
    audit_id: Id
    at: int                           # when the write reinforced (its last_accessed_at)
    creators_added: list[Id] = []     # entities whose creators gained the agent
    facts: list[FactBefore] = []      # relations it added a source to, with their confidence before
    reinforced: list[Reinforced] = []

    def node_label(self) -> NodeLabel:
        return NodeLabel.Memory

    def touches(self) -> list[Ref]:
        return (super().touches() + [(NodeLabel.Entity, i) for i in self.creators_added]
                + [(NodeLabel.Memory, r.id) for r in self.reinforced])

    def items(self) -> list[str]:
        return list(self.ids)

    def restricted(self, ids: set[str]) -> UndoRemember | None:
        kept = super().restricted(ids)
        # one memory of several: its own relations and entities go with it; the others' effects stay
        return None if kept is None else kept.model_copy(update={"creators_added": [], "facts": [], "reinforced": []})


class NodeImage(_Model):
    label: NodeLabel                  # how to find it
    id: Id
    labels: list[str]
    properties: dict[PropertyName, PropertyValue]
    embedding: list[float] | None = None

    @model_validator(mode="after")
    def _known_labels(self) -> NodeImage:
        unknown = [x for x in self.labels if x not in KNOWN_LABELS]
        if unknown:
            raise ValueError(f"labels outside the project's vocabularies: {unknown}")
        return self


class RelationshipImage(_Model):
    type: RelationshipType
    start_label: NodeLabel
    start_id: Id
    end_label: NodeLabel
    end_id: Id
    properties: dict[PropertyName, PropertyValue] = {}


class RestoreImage(_Op):
    """Undo a rollback: see the module's docstring (graph/audit/rollback.py takes and restores images)."""

    op: Literal["restore_image"] = "restore_image"
    nodes: list[NodeImage] = []
    absent: list[tuple[NodeLabel, Id]] = []
    relationships: list[RelationshipImage] = []

    def changes_nothing(self) -> bool:
        return not self.nodes and not self.absent

    def touches(self) -> list[Ref]:
        return [(n.label, n.id) for n in self.nodes] + [(label, i) for label, i in self.absent]

    def restricted(self, ids: set[str]) -> RestoreImage | None:
        return self if set(self.items()) & ids else None


class Noop(_Op):
    op: Literal["noop"] = "noop"
    reason: str = Field(min_length=1)


RevertOp = Annotated[DeleteNodes | DeleteRelationships | SetProperties | SetRelationshipProperties
                     | RemoveProperties | RevokeKey | RestoreKey | RevertAdmission | RestoreMemories
                     | ArchiveMemories | UndoRemember | RestoreImage | Noop, Field(discriminator="op")]
_OPS: TypeAdapter[list[RevertOp]] = TypeAdapter(list[RevertOp])


def dump_revert(ops: Sequence[RevertOp]) -> str:
    """The JSON an audit record stores; operations with nothing to do are left out."""
    return _OPS.dump_json([op for op in ops if not op.changes_nothing()]).decode()


def parse_revert(text: str | bytes) -> list[RevertOp]:
    """An audit record's revert operations, validated: malformed JSON, an unknown operation, a label,
    type or property name outside the vocabularies, a missing field: BadRevert."""
    try:
        return _OPS.validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BadRevert(f"not a list of revert operations: {where + ': ' if where else ''}{first['msg']}") from None


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> Properties:
    """The previous values (None: absent) of the properties that differ between two states of an item, but the
    version chain's bookkeeping (graph/audit/versions.py: a rollback never moves it back)."""
    from grimoire.graph.audit.versions import BOOKKEEPING  # versions imports the database layer; revert stays light

    return {k: before.get(k) for k in sorted(set(before) | set(after))
            if before.get(k) != after.get(k) and k not in BOOKKEEPING}
