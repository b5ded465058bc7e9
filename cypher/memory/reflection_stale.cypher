// Memories not accessed since $before (their relevance may be under 0.05: proposed for archival), never
// pinned or vault ones; and the fading ones among those naming the entities given (still relevant?).
:param agent_id => 'agent-a';
:param before => 1770000000000;
:param entities => [];
:param since => 0;
:param limit => 1000;
CALL () {
  MATCH (m:Memory:Episode)
  WHERE m.agent_id = $agent_id AND m.last_accessed_at < $before AND NOT coalesce(m.pinned, false)
    AND m.store <> 'vault'
  RETURN m, false AS linked
  ORDER BY m.last_accessed_at
  LIMIT $limit
  UNION
  UNWIND $entities AS id
  MATCH (en:Entity {id: id})
  WHERE COUNT { (en)<-[:MENTIONS]-() } < 100
  MATCH (en)<-[:MENTIONS]-(m:Memory:Episode)
  WHERE m.agent_id = $agent_id AND m.recorded_at <= $since AND NOT coalesce(m.pinned, false)
  RETURN m, true AS linked
}
WITH m, max(CASE WHEN linked THEN 1 ELSE 0 END) = 1 AS linked
RETURN m {.id, .store, .text, .day, .base_relevance, .access_count, .last_accessed_at, .pinned, .recorded_at,
          .valid_from, .memory_type, .confidence_level} AS memory, linked
