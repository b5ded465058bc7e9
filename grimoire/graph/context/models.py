"""The Context Governor's control-plane nodes, as neomodel classes on the service's driver (graph/db/ogm.py): an
agent's ContextPolicy (its current revision) and a ContextPolicyRevision for every revision, closed in valid time
when the next one replaces it (PREVIOUS_REVISION from the policy). Allocations and overrides are JSON: maps of a
category to a fraction, by task type, phase or regime. Their constraints and indexes are in cypher/schema/."""

from __future__ import annotations

from neomodel import FloatProperty, IntegerProperty, RelationshipTo, StringProperty, StructuredNode


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




class ContextMutation(StructuredNode):  # type: ignore[misc]
    """A policy mutation Loop 3 staged (context-governor.md S4, ContextPolicyMutation): the allocations it proposes,
    tried on one cold assembly in N while staged; its confidence, Beta(alpha, beta) from 0.2, moves with each trial
    that beats (or not) the quality under the current policy, until it is validated (and promoted into a revision)
    or refuted."""

    __label__ = "ContextMutation"
    uid = StringProperty(unique_index=True, required=True, db_property="id")
    agent_id = StringProperty(index=True, required=True)
    regime = StringProperty()                      # the regime it is for (none: any)
    kind = StringProperty(required=True)           # boost_missing | causal_over_playbook
    source_decision = StringProperty(required=True)
    original = StringProperty(required=True)       # allocations when staged (JSON)
    proposed = StringProperty(required=True)       # the allocations it proposes (JSON)
    quality_before = FloatProperty()               # the poor decision's quality
    replay_quality = FloatProperty()               # its replay's quality under this mutation (a model configured)
    quality_improvement = FloatProperty()          # replay_quality - quality_before (over Loop 3's 0.15 gate)
    status = StringProperty(required=True)         # staged | validated | refuted
    alpha = FloatProperty(required=True)
    beta = FloatProperty(required=True)
    offered = IntegerProperty(default=0)           # cold assemblies since staged, to pick the trials
    trials = IntegerProperty(default=0)
    trial_quality_sum = FloatProperty(default=0.0)
    base_n = IntegerProperty(default=0)
    base_quality_sum = FloatProperty(default=0.0)
    created_at = IntegerProperty(required=True)
    decided_at = IntegerProperty()
    promoted_to = IntegerProperty()                # the policy revision it became


MODELS: tuple[type[StructuredNode], ...] = (ContextPolicy, ContextPolicyRevision, ContextMutation)
