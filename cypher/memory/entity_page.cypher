// One entity's page for one agent (graph/memory/entity_pages.py): the entities its live memories name by the
// page's id ($key: the spec's kind--name, or the graph's id); of those entities, the agent's live memories of the
// page's stores (not a file an import wrote for an entity: a whole page), the $limit said last; and the agent's
// relations in force that touch them (neither expired nor archived, one of their memories live). Another agent's
// memories and relations never: a page is its agent's own.
:param agent_id => 'agent-a';
:param key => 'person--alex';
:param stores => ['episodic', 'semantic'];
:param limit => 1000;
:param imported => 'entity:';
MATCH (named:Memory {agent_id: $agent_id})-[:MENTIONS]->(en:Entity)
WHERE named:Episode AND named.archived_at IS NULL AND (en.slug = $key OR en.id = $key)
WITH collect(DISTINCT en) AS ens
WHERE size(ens) > 0
CALL (ens) {
  UNWIND ens AS en
  MATCH (en)<-[:MENTIONS]-(m:Memory:Episode)
  WHERE m.agent_id = $agent_id AND m.archived_at IS NULL AND m.store IN $stores
    AND NOT coalesce(m.workspace_key, '') STARTS WITH $imported
  WITH DISTINCT m ORDER BY m.valid_from DESC, m.id DESC LIMIT $limit
  RETURN collect(m {.id, .store, .memory_type, .confidence_level, .tags, .text, .valid_from, .last_accessed_at,
                    .access_count, .base_relevance, .pinned}) AS memories
}
CALL (ens) {
  UNWIND ens AS en
  MATCH (en)-[f:CUSTOM]-(other:Entity)
  WHERE f.agent_id = $agent_id AND f.expired_at IS NULL AND f.archived_at IS NULL AND NOT other IN ens
    AND EXISTS { MATCH (s:Memory:Episode) WHERE s.id IN f.sources AND s.agent_id = $agent_id }
  RETURN collect(DISTINCT {outgoing: startNode(f) = en, relation: f.name, other: other {.id, .slug, .name, .kind},
                           confidence: f.confidence_level, since: f.valid_from}) AS relations
}
RETURN [en IN ens | en {.id, .slug, .name, .kind}] AS entities, memories, relations
