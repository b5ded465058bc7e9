// Undo a write of memories (UndoRemember, graph/audit/revert.py): the relations the write added a source to
// get back their sources and confidence; the relations these memories alone assert go; the memories they
// reinforced are one access (per reinforcement) less, and their last access back where this write moved it;
// the thread closes over them; the memories go with their relationships (their versions stay: the chain keeps
// everything); the entities the write made that nothing touches any more go; the agent leaves the creators of
// the entities it was added to, unless another of its memories still names them.
:param agent_id => 'agent-a';
:param audit_id => 'audit-1';
:param at => 1770000000000;
:param ids => ['mem-1'];
:param creators_added => [];
:param facts => [];
:param reinforced => [];
OPTIONAL MATCH (m:Memory) WHERE m.id IN $ids AND m.agent_id = $agent_id
WITH collect(m) AS ms
WITH ms, [m IN ms | m.id] AS mids
CALL (mids) {
  UNWIND $facts AS x
  MATCH ()-[f:CUSTOM {id: x.id}]->()
  SET f.sources = [s IN f.sources WHERE NOT s IN mids], f.confidence = x.confidence
  SET f.memory_id = coalesce(head(f.sources), f.memory_id)
}
CALL (ms, mids) {
  UNWIND ms AS m
  MATCH (m)-[:MENTIONS]->(:Entity)-[f:CUSTOM]-()
  WHERE f.agent_id = $agent_id AND all(s IN f.sources WHERE s IN mids)
  WITH DISTINCT f
  DELETE f
}
CALL () {
  UNWIND $reinforced AS x
  MATCH (o:Memory {id: x.id}) WHERE o.agent_id = $agent_id
  SET o.access_count = coalesce(o.access_count, 0) - x.times,
      o.last_accessed_at = CASE WHEN o.last_accessed_at = $at THEN x.last_accessed_at ELSE o.last_accessed_at END
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
CALL (ms) {
  UNWIND ms AS m
  DETACH DELETE m
}
CALL (entities) {
  UNWIND entities AS en
  WITH en WHERE en.audit_id = $audit_id AND coalesce(en.memory_made, false) AND NOT EXISTS { (en)--() }
  DELETE en
}
CALL () {
  UNWIND $creators_added AS id
  MATCH (en:Entity {id: id})
  WHERE NOT EXISTS { MATCH (en)<-[:MENTIONS]-(other:Memory) WHERE other.agent_id = $agent_id }
  SET en.creators = [c IN en.creators WHERE c <> $agent_id]
}
RETURN mids AS deleted
