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
- Noop: nothing to undo, and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from graph.model.enums import REL_TYPES

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
    CuratorOperation = "CuratorOperation"
    EntryVersion = "EntryVersion"
    CoreBlock = "CoreBlock"
    CoreBlockVersion = "CoreBlockVersion"
    Memory = "Memory"
    MemoryReflection = "MemoryReflection"
    Alert = "Alert"
    MemoryProposal = "MemoryProposal"


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


FACT_TYPES = frozenset(RelationshipType(t) for t in REL_TYPES.values())


class BadRevert(ValueError):
    """An audit record's revert data that is not a list of known, well-formed revert operations."""


class _Model(BaseModel):
    # Not StrictModel: values are kept exactly as stored (no whitespace stripping).
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Op(_Model):
    def changes_nothing(self) -> bool:
        """An operation with nothing to do (an empty list of ids): left out of the record."""
        return False


class DeleteNodes(_Op):
    op: Literal["delete_nodes"] = "delete_nodes"
    label: NodeLabel
    ids: list[Id]

    def changes_nothing(self) -> bool:
        return not self.ids


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


class SetProperties(_Op):
    op: Literal["set_properties"] = "set_properties"
    label: NodeLabel
    id: Id
    before: dict[PropertyName, PropertyValue]

    def changes_nothing(self) -> bool:
        return not self.before


class SetRelationshipProperties(_Op):
    op: Literal["set_relationship_properties"] = "set_relationship_properties"
    type: RelationshipType
    id: Id
    before: dict[PropertyName, PropertyValue]

    def changes_nothing(self) -> bool:
        return not self.before


class RemoveProperties(_Op):
    op: Literal["remove_properties"] = "remove_properties"
    label: NodeLabel
    ids: list[Id]
    properties: list[PropertyName] = Field(min_length=1)

    def changes_nothing(self) -> bool:
        return not self.ids


class RevokeKey(_Op):
    op: Literal["revoke_key"] = "revoke_key"
    key_id: Id


class RestoreKey(_Op):
    op: Literal["restore_key"] = "restore_key"
    key_id: Id


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


class RestoreMemories(_Op):
    """Undo an archive of an agent's memories (cypher/memory/restore.cypher): searchable again, with the
    relations archived with them."""

    op: Literal["restore_memories"] = "restore_memories"
    agent_id: Id
    ids: list[Id]

    def changes_nothing(self) -> bool:
        return not self.ids


class Noop(_Op):
    op: Literal["noop"] = "noop"
    reason: str = Field(min_length=1)


RevertOp = Annotated[DeleteNodes | DeleteRelationships | SetProperties | SetRelationshipProperties
                     | RemoveProperties | RevokeKey | RestoreKey | RevertAdmission | RestoreMemories
                     | Noop, Field(discriminator="op")]
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


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The previous values (None: absent) of the properties that differ between two states of an item."""
    return {k: before.get(k) for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)}
