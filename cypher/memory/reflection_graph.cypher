// The agent's semantic graph as a reflection reads it (section 6.1's index): its relations that are not
// archived, the entities it names, its procedures, its semantic memories it keeps coming back to, and
// the memories that wrote its core lines.
:param agent_id => 'agent-a';
:param min_access => 5;
CALL () {
  MATCH (s:Entity)-[f:CUSTOM]->(o:Entity)
  WHERE f.agent_id = $agent_id AND f.expired_at IS NULL AND f.archived_at IS NULL
  RETURN collect({s: s.id, s_name: s.name, s_kind: s.kind, relation: f.name, o: o.id, o_name: o.name,
                  o_kind: o.kind})[..20000] AS relations
}
CALL () {
  MATCH (en:Entity) WHERE $agent_id IN en.creators
  RETURN count(en) AS entities
}
CALL () {
  MATCH (m:Memory:Episode {agent_id: $agent_id, store: 'procedural'})
  RETURN count(m) AS procedures, collect(m.tags)[..1000] AS procedure_tags
}
CALL () {
  MATCH (m:Memory:Episode {agent_id: $agent_id, store: 'semantic'})
  WHERE m.access_count >= $min_access
  WITH m ORDER BY m.access_count DESC LIMIT 20
  RETURN collect(m {.id, .text, .access_count, .last_accessed_at, .confidence_level}) AS frequent
}
CALL () {
  MATCH (m:Memory {agent_id: $agent_id, store: 'core'})
  RETURN collect(m {.id, .text, .core_block, .base_relevance, .access_count, .last_accessed_at, .store, .pinned,
                    .archived_at}) AS core
}
RETURN relations, entities, procedures, procedure_tags, frequent, core
