// A change to a frozen crystal (immutable): a new crystal, the next version — the same kind, fields and
// owner, the new text and embedding, frozen, skill_version + 1, previous_version_id and the chain's
// stable id — deriving from the version before it (PROVENANCE, operation mutated); the version before is
// deprecated, by the chain's stable id. A new text: unendorsed (an endorsement signs a text) and no bounty yet. $props: the new text's sensitivity, scope and hormonal influence. $views: a skill's three views, {embedding_procedural: [...], ...}.
:param label => 'Entry';
:param id => 'skill-1';
:param new_id => 'skill-1-v2';
:param text => 'new steps';
:param embedding => [];
:param views => {};
:param props => {sensitivity: 'normal', scope: 'private', requested_scope: null};
:param actor => 'golem-1';
:param now => 1770000000000;
:param metadata => '{}';
CALL () {
  MATCH (c:Episode {id: $id}) WHERE $label = 'Episode' RETURN c
  UNION
  MATCH (c:Memory {id: $id}) WHERE $label = 'Memory' RETURN c
  UNION
  MATCH (c:Entry {id: $id}) WHERE $label = 'Entry' RETURN c
}
WITH DISTINCT c AS old
CREATE (v)
SET v = properties(old), v.id = $new_id
SET v:$(labels(old)),
    v.recorded_at = $now, v.lifecycle = 'frozen', v.lifecycle_at = $now,
    v.lifecycle_reason = 'a new version of a frozen crystal', v.audit_id = null,
    v.stable_skill_id = coalesce(old.stable_skill_id, old.id), v.skill_version = coalesce(old.skill_version, 1) + 1,
    v.previous_version_id = old.id, v.deprecated = false, v.deprecated_by = null,
    v.content = CASE WHEN old:Entry THEN $text END, v.text = CASE WHEN old:Entry THEN null ELSE $text END,
    v.access_count = 0, v.last_accessed_at = $now, v.execution_count = 0, v.success_count = 0,
    v.steering_reward = 0.0, v.reward_sum = 0.0, v.parent_id = null, v.unique_buyers = 0, v.bounty_matches = 0,
    v.last_executed_at = null, v.tokens = null,
    v.is_verified = false, v.verified_by = null, v.verified_key_id = null, v.verified_at = null,
    v.bounty_match_id = null, v.bounty_priority_boost = 1.0
SET v += $props
SET old.deprecated = true, old.deprecated_by = coalesce(old.stable_skill_id, old.id),
    old.stable_skill_id = coalesce(old.stable_skill_id, old.id), old.skill_version = coalesce(old.skill_version, 1)
WITH old, v
CALL db.create.setNodeVectorProperty(v, 'embedding', $embedding)
CALL (v) {
  UNWIND keys($views) AS view
  CALL db.create.setNodeVectorProperty(v, view, $views[view])
}
CREATE (v)-[:PROVENANCE {operation: 'mutated', actor: $actor, at: $now, metadata: $metadata}]->(old)
RETURN v.id AS id, v.skill_version AS version, v.stable_skill_id AS stable_id
