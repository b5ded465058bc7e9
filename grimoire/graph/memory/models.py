"""Core memory's nodes, as neomodel classes on the service's driver (graph/db/ogm.py): a CoreBlock per
agent and block, holding the block's current text, and a CoreBlockVersion for each earlier text, closed
in valid and recorded time when the edit that replaced it was made (PREVIOUS_VERSION from the block).
Their constraints and indexes are in cypher/schema/ under the names neomodel's install_labels gives them
(a test checks it finds them in place). neomodel reserves `id`: the attribute `uid` is the property `id`."""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    FloatProperty,
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
    checksum = StringProperty()   # of the text and pins the service wrote (graph/audit/alerts.py verifies it)
    versions = RelationshipTo(CoreBlockVersion, "PREVIOUS_VERSION")


class WorkspaceFile(StructuredNode):  # type: ignore[misc]
    """One of an agent's critical workspace files (SOUL.md, IDENTITY.md, USER.md, TOOLS.md: section 12.1) as an
    import gave it, its current text and version; earlier texts are Version nodes (graph/audit/versions.py)."""

    __label__ = "WorkspaceFile"
    uid = StringProperty(unique_index=True, required=True, db_property="id")   # <agent id>:file:<name>
    agent_id = StringProperty(index=True, required=True)
    name = StringProperty(required=True)
    content = StringProperty(default="")
    version = IntegerProperty(default=1)
    valid_from = IntegerProperty(required=True)
    recorded_at = IntegerProperty(required=True)
    written_by = StringProperty()
    checksum = StringProperty()   # of the text the service wrote (graph/audit/alerts.py verifies it)


class MemoryReflection(StructuredNode):  # type: ignore[misc]
    """A reflection (../shared/spec/moltbot-memory.md, section 10): what it proposed, in section 10.5's
    format, and what the person decided. Pending until a person's key decides (never applied otherwise);
    the reflection log is these nodes of an agent, by number."""

    __label__ = "MemoryReflection"
    uid = StringProperty(unique_index=True, required=True, db_property="id")
    agent_id = StringProperty(index=True, required=True)
    number = IntegerProperty(required=True)           # Reflection #
    status = StringProperty(required=True)            # pending, approved, partial, rejected
    trigger = StringProperty(required=True)           # manual, phrase, schedule, threshold
    about = StringProperty()                          # what the person asked to reflect on, if anything
    markdown = StringProperty(required=True)          # pending-reflection.md
    items = StringProperty(required=True)             # the proposals (JSON): what approval may apply
    evolution = StringProperty(default="[]")          # meta-reflection's insights (JSON), for evolution.md
    questions = ArrayProperty(StringProperty(), default=list)
    themes = ArrayProperty(StringProperty(), default=list)   # the topics of the memories it read
    tokens_used = IntegerProperty(required=True)
    budget = IntegerProperty(required=True)
    episodes = IntegerProperty(default=0)             # memories processed
    entities = IntegerProperty(default=0)
    procedures = IntegerProperty(default=0)
    reviewed = IntegerProperty(default=0)             # past reflections reviewed
    since = IntegerProperty()                         # memories recorded after this were new to it
    valid_from = IntegerProperty(required=True)
    recorded_at = IntegerProperty(required=True)
    decided_at = IntegerProperty()
    decided_by = StringProperty()
    decision = StringProperty()                       # approve, approve_with_changes, approve_part, reject
    applied = ArrayProperty(StringProperty(), default=list)   # the items applied
    changes = StringProperty()                        # the person's changes (JSON)
    note = StringProperty()


class MemoryProposal(StructuredNode):  # type: ignore[misc]
    """A sub-agent's proposal to its main agent's memory (section 13.2), until the main agent commits, rejects
    or defers it (13.3); flagged and linked (CONFLICTS_WITH) when it contradicts another (13.6)."""

    __label__ = "MemoryProposal"
    uid = StringProperty(unique_index=True, required=True, db_property="id")
    agent_id = StringProperty(index=True, required=True)    # the main agent whose memory it would join
    number = IntegerProperty(required=True)                  # Proposal #N, per main agent
    from_agent = StringProperty(index=True, required=True)  # the sub-agent
    at = IntegerProperty(required=True)
    trigger = StringProperty(required=True)
    store = StringProperty(required=True)                    # the suggested store
    content = StringProperty(required=True)
    entities = ArrayProperty(StringProperty(), default=list)
    confidence = StringProperty(required=True)
    core_worthy = BooleanProperty(default=False)
    status = StringProperty(required=True)                   # pending, conflict, deferred, committed, rejected
    conflicts_with = ArrayProperty(StringProperty(), default=list)
    embedding = ArrayProperty(FloatProperty())               # to compare it with the other open proposals
    decided_at = IntegerProperty()
    decided_by = StringProperty()
    reason = StringProperty()
    memory_id = StringProperty()                             # what a commit wrote
    committed_store = StringProperty()


MODELS: tuple[type[StructuredNode], ...] = (CoreBlock, CoreBlockVersion, WorkspaceFile, MemoryReflection,
                                            MemoryProposal)
