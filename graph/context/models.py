"""The Context Governor's control-plane nodes, as neomodel classes on the service's driver (graph/db/ogm.py): an
agent's ContextPolicy (its current revision) and a ContextPolicyRevision for every revision, closed in valid time
when the next one replaces it (PREVIOUS_REVISION from the policy). Allocations and overrides are JSON: maps of a
category to a fraction, by task type, phase or regime. Their constraints and indexes are in cypher/schema/."""

from __future__ import annotations

from neomodel import IntegerProperty, RelationshipTo, StringProperty, StructuredNode


class ContextPolicyRevision(StructuredNode):  # type: ignore[misc]
    """One revision of an agent's policy, as it was: immutable but for its close (valid_until)."""

    __label__ = "ContextPolicyRevision"
    uid = StringProperty(unique_index=True, required=True, db_property="id")   # <agent id>:context-policy:r<n>
    agent_id = StringProperty(index=True, required=True)
    revision = IntegerProperty(required=True)
    policy = StringProperty(required=True)       # the whole policy, JSON (graph/context/policy.py Policy)
    valid_from = IntegerProperty(required=True)
    valid_until = IntegerProperty()
    recorded_at = IntegerProperty(required=True)
    written_by = StringProperty()
    reason = StringProperty()
    audit_id = StringProperty()


class ContextPolicy(StructuredNode):  # type: ignore[misc]
    """An agent's context policy (context-governor.md S2.3) at its current revision."""

    __label__ = "ContextPolicy"
    uid = StringProperty(unique_index=True, required=True, db_property="id")   # <agent id>:context-policy
    agent_id = StringProperty(index=True, required=True)
    # the revision it is at: not named `revision`, which a rollback never moves back (an entry's counter)
    current = IntegerProperty(required=True, db_property="current_revision")
    policy = StringProperty(required=True)       # JSON, as the revision holds it
    valid_from = IntegerProperty(required=True)
    recorded_at = IntegerProperty(required=True)
    written_by = StringProperty()
    reason = StringProperty()
    revisions = RelationshipTo(ContextPolicyRevision, "PREVIOUS_REVISION")


MODELS: tuple[type[StructuredNode], ...] = (ContextPolicy, ContextPolicyRevision)
