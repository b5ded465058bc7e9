"""Core memory's nodes, as neomodel classes on the service's driver (graph/db/ogm.py): a CoreBlock per
agent and block, holding the block's current text, and a CoreBlockVersion for each earlier text, closed
in valid and recorded time when the edit that replaced it was made (PREVIOUS_VERSION from the block).
Their constraints and indexes are in cypher/schema/ under the names neomodel's install_labels gives them
(a test checks it finds them in place). neomodel reserves `id`: the attribute `uid` is the property `id`."""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredNode,
)


class CoreBlockVersion(StructuredNode):  # type: ignore[misc]
    """An earlier text of a block: valid and recorded from when it was written until the edit after it."""

    __label__ = "CoreBlockVersion"
    uid = StringProperty(unique_index=True, required=True, db_property="id")   # <block id>:v<version>
    block_id = StringProperty(index=True, required=True)
    agent_id = StringProperty(required=True)
    block = StringProperty(required=True)
    version = IntegerProperty(required=True)
    content = StringProperty(default="")
    tokens = IntegerProperty(default=0)
    pinned = ArrayProperty(StringProperty(), default=list)
    valid_from = IntegerProperty(required=True)
    valid_until = IntegerProperty(required=True)
    recorded_at = IntegerProperty(required=True)
    recorded_until = IntegerProperty(required=True)
    written_by = StringProperty()     # the key or actor whose edit wrote this text
    replaced_by = StringProperty()    # and whose edit replaced it
    reason = StringProperty()         # why it was replaced


class CoreBlock(StructuredNode):  # type: ignore[misc]
    """One of an agent's four core blocks (graph/memory/blocks.py), its current text and version."""

    __label__ = "CoreBlock"
    uid = StringProperty(unique_index=True, required=True, db_property="id")   # <agent id>:core:<block>
    agent_id = StringProperty(index=True, required=True)
    block = StringProperty(required=True)
    content = StringProperty(default="")
    tokens = IntegerProperty(default=0)
    version = IntegerProperty(default=1)
    pinned = ArrayProperty(StringProperty(), default=list)   # critical facts that never decay
    valid_from = IntegerProperty(required=True)
    recorded_at = IntegerProperty(required=True)
    written_by = StringProperty()
    versions = RelationshipTo(CoreBlockVersion, "PREVIOUS_VERSION")


MODELS: tuple[type[StructuredNode], ...] = (CoreBlock, CoreBlockVersion)
