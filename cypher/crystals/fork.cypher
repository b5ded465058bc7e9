// Fork a crystal the viewer may see into a new crystal of the viewer's: the same kind (an episode, a
// memory, an entry; a fork of a skill is not that skill), text, embedding and fields, a new id, generated, in
// the narrower of the scope asked for and the source's (private < shared < public: a fork never widens what it
// copies; private when the source is confidential or shared in another clade than the fork's owner's; a skill's
// fork is a task pattern with no execution record), linked to its source by a PROVENANCE
// relationship (operation forked, the actor, the time, metadata).
:param id => 'en-1';
:param label => 'Entry';
:param new_id => 'en-1-fork';
:param scope => 'private';
:param actor => 'golem-2';
:param now => 1770000000000;
:param metadata => '{}';
:param owner => 'golem-2';
:param owner_clade => 'clade-a';
:param viewer => 'golem-2';
:param clade => 'clade-a';
:param admin => false;
CALL () {
  MATCH (c:Episode {id: $id}) WHERE $label = 'Episode' RETURN c
  UNION
  MATCH (c:Memory {id: $id}) WHERE $label = 'Memory' RETURN c
  UNION
  MATCH (c:Entry {id: $id}) WHERE $label = 'Entry' RETURN c
}
WITH DISTINCT c AS src
WHERE $admin OR src.agent_id = $viewer OR src.scope = 'public' OR (src.scope = 'shared' AND src.clade = $clade)
CREATE (f)
SET f = properties(src), f.id = $new_id
SET f:$([l IN labels(src) WHERE l <> 'Skill']),
    f.agent_id = $owner, f.clade = $owner_clade,
    f.scope = CASE WHEN src.sensitivity = 'confidential' OR $scope = 'private'
                     OR coalesce(src.scope, 'private') = 'private'
                     OR (src.scope = 'shared' AND coalesce(src.clade, '') <> coalesce($owner_clade, '')) THEN 'private'
                   WHEN $scope = 'shared' OR src.scope = 'shared' THEN 'shared'
                   ELSE 'public' END,
    f.lifecycle = 'generated', f.lifecycle_at = $now, f.lifecycle_reason = null, f.recorded_at = $now,
    f.access_count = 0, f.last_accessed_at = $now, f.parent_id = null, f.audit_id = null,
    f.provenance_operation = null, f.provenance_actor = null, f.stable_skill_id = null, f.skill_version = null,
    f.previous_version_id = null, f.deprecated = null, f.deprecated_by = null,
    f.embedding_procedural = null, f.embedding_causal = null, f.embedding_entity = null,
    f.semantic_type = CASE WHEN src:Skill THEN 'task_pattern' ELSE src.semantic_type END,
    f.lifespan = CASE WHEN src:Skill THEN 'decay' ELSE src.lifespan END, f.execution_count = null,
    f.success_count = null, f.reward_sum = null, f.steering_reward = 0.0, f.skill_tags = null,
    f.skill_category = null, f.unique_buyers = null, f.bounty_matches = null, f.last_executed_at = null,
    f.is_verified = false, f.verified_by = null, f.verified_key_id = null, f.verified_at = null,
    f.bounty_match_id = null, f.bounty_priority_boost = 1.0,
    f.expired_labels = null,
    // the agents it passed through, its author first; the peer it came from, when another agent's
    f.provenance_chain = CASE WHEN last(coalesce(src.provenance_chain, [src.agent_id])) = $owner
                              THEN coalesce(src.provenance_chain, [src.agent_id])
                              ELSE coalesce(src.provenance_chain, [src.agent_id]) + [$owner] END,
    f.peer_origin = CASE WHEN src.agent_id <> $owner THEN src.agent_id ELSE src.peer_origin END,
    f.origin = CASE WHEN src.agent_id <> $owner THEN 'peer' ELSE src.origin END,
    // an endorsement or a bounty is the source's, not its copy's
    f.is_verified = false, f.verified_by = null, f.bounty_match_id = null, f.bounty_priority_boost = 1.0,
    f.dream_count = 0, f.last_dreamed_at = null, f.last_ripple_count = null
SET f.requested_scope = CASE WHEN f.scope <> $scope THEN $scope END
CREATE (f)-[:PROVENANCE {operation: 'forked', actor: $actor, at: $now, metadata: $metadata}]->(src)
RETURN f.id AS id, [l IN labels(f) WHERE l IN ['Episode', 'Memory', 'Entry']] AS kinds
