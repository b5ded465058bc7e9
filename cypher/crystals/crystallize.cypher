// Crystallize a crystal as a skill (generated or activated → frozen, checked by graph/crystals/skills.py):
// the Skill label, semantic type skill, frozen, a stable skill id kept across its versions, version 1, its
// tags and category, its source (MemorySource) skills, its execution record at zero, and its three perspective embeddings (indexed:
// skill_procedural, skill_causal, skill_entity).
:param label => 'Entry';
:param id => 'en-1';
:param stable_id => 'skill:en-1';
:param tags => ['lending'];
:param category => 'risk-management';
:param views => {};
:param now => 1770000000000;
CALL () {
  MATCH (c:Episode {id: $id}) WHERE $label = 'Episode' RETURN c
  UNION
  MATCH (c:Memory {id: $id}) WHERE $label = 'Memory' RETURN c
  UNION
  MATCH (c:Entry {id: $id}) WHERE $label = 'Entry' RETURN c
}
WITH DISTINCT c
SET c:Skill, c.semantic_type = 'skill', c.memory_source = 'skills', c.lifecycle = 'frozen', c.lifecycle_at = $now,
    c.lifecycle_reason = 'crystallized as a skill', c.stable_skill_id = $stable_id, c.skill_version = 1,
    c.previous_version_id = null, c.deprecated = false, c.deprecated_by = null, c.skill_tags = $tags,
    c.skill_category = $category, c.execution_count = 0, c.success_count = 0, c.reward_sum = 0.0,
    c.steering_reward = 0.0, c.unique_buyers = 0, c.bounty_matches = 0, c.lifespan = 'permanent'
WITH c
CALL (c) {
  UNWIND keys($views) AS view
  CALL db.create.setNodeVectorProperty(c, view, $views[view])
}
RETURN c.id AS id, c.stable_skill_id AS stable_id
