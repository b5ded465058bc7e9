// Permanently delete memories (section 8.3's hard delete, only when asked): each memory with its
// relationships and its embedding (a node property: gone from the vector index with it); the relations it
// alone asserted (a relation other memories assert loses only this source, and is archived when those are);
// the entities a memory created that nothing touches any more. The thread stays whole (the memory after a deleted one follows the one
// before it). Nothing another item shares is removed.
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
:param now => 1770000000000;
MATCH (m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id
WITH collect(m) AS ms
WITH ms, [m IN ms | m.id] AS mids
CALL (ms, mids) {
  UNWIND ms AS m
  MATCH (m)-[:MENTIONS]->(:Entity)-[f:CUSTOM]-()
  WHERE f.agent_id = $agent_id AND any(s IN f.sources WHERE s IN mids)
  WITH DISTINCT f, [s IN f.sources WHERE NOT s IN mids] AS left
  CALL (f, left) {
    WITH f, left WHERE size(left) = 0
    DELETE f
    RETURN 1 AS deleted
    UNION
    WITH f, left WHERE size(left) > 0
    SET f.sources = left, f.memory_id = left[0]
    WITH f, left
    WHERE f.archived_at IS NULL
      AND all(s IN left WHERE EXISTS { MATCH (x:Memory {id: s}) WHERE x.archived_at IS NOT NULL })
    SET f.archived_at = $now  // what asserts it now is all archived: hidden with them
    RETURN 0 AS deleted
  }
  RETURN sum(deleted) AS relations
}
CALL (ms, mids) {
  UNWIND ms AS m
  MATCH (next:Memory)-[:FOLLOWS]->(m)-[:FOLLOWS]->(prev:Memory)
  WHERE NOT next.id IN mids AND NOT prev.id IN mids
  MERGE (next)-[:FOLLOWS]->(prev)
}
CALL (ms) {
  UNWIND ms AS m
  OPTIONAL MATCH (m)-[:MENTIONS]->(en:Entity)
  RETURN collect(DISTINCT en) AS entities
}
// Hard delete keeps nothing: the memories' earlier states go with them.
CALL (ms) {
  UNWIND ms AS m
  OPTIONAL MATCH (m)-[:PREVIOUS_VERSION]->(v:Version)
  DETACH DELETE v
}
WITH ms, mids, relations, entities, [m IN ms | [m.id, coalesce(m.version, 1)]] AS versions
CALL (ms) {
  UNWIND ms AS m
  DETACH DELETE m
}
CALL (entities, mids) {
  UNWIND entities AS en
  WITH en, en.id AS id WHERE coalesce(en.memory_made, false) AND NOT EXISTS { (en)--() }
  DELETE en
  RETURN collect(id) AS removed
}
RETURN mids AS deleted, relations, removed AS entities, versions
