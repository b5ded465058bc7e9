// Write memories (graph/memory/stores.py): each one an Episode of its agent (type 'conversation') that is
// also a Memory, with its store, relevance inputs and tags; the entities it names (MENTIONS; an entity a
// memory creates records which one, for forgetting), its relations as CUSTOM facts named from the 6.3
// vocabulary (one fact per agent, subject, relation and object: a repeat adds its memory to `sources`),
// the memory before it in its session (FOLLOWS) and, for a procedure, the memories it was learned from
// (LEARNED_FROM). Memories that share an entity with a new one are reinforced (section 9.4: linked by a
// new episode) unless the entity is a hub ($hub memories or more): the $linked said last. Idempotent on the
// memory id.
:param audit_id => 'audit-1';
:param now => 1770000000000;
:param hub => 100;
:param linked => 10;
:param rows => [{id: 'mem-1', props: {agent_id: 'agent-a', clade: 'clade-a', scope: 'private', type: 'conversation', text: 'Alex develops the Moltbot memory project.', store: 'semantic', memory_type: 'fact', confidence_level: 'high', confidence: 0.9, tags: ['alex'], source: 'user-explicit', base_relevance: 1.0, access_count: 1, last_accessed_at: 1770000000000, valid_from: 1770000000000, recorded_at: 1770000000000, day: '2026-02-02', session_id: 's-1', pinned: false, said: 'Remember that Alex develops the Moltbot memory project.'}, embedding: [], entities: [{id: 'person:alex', kind: 'Person', props: {kind: 'Person', name: 'Alex', slug: 'person--alex'}}], relations: [{subject: 'person:alex', object: 'project:moltbot memory', name: 'develops', fact_id: 'mfact-1', props: {predicate: 'Custom', confidence: 0.9, confidence_level: 'high', scope: 'private', agent_id: 'agent-a', clade: 'clade-a', time_axis: 'timestamp', approximate: false}}], learned_from: [], linked_skip: ['person:user']}];
UNWIND $rows AS row
MERGE (m:Memory {id: row.id})
  ON CREATE SET m += row.props, m.audit_id = $audit_id
WITH m, row WHERE m.audit_id = $audit_id
SET m:Episode
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
CALL (m, row) {
  UNWIND row.entities AS x
  MERGE (en:Entity {id: x.id})
    ON CREATE SET en += x.props, en.recorded_at = $now, en.public = false, en.creators = [], en.created_by = m.id,
                  en.memory_made = true,
                  en.audit_id = $audit_id, en.aliases = [x.props.name], en.aliases_text = ' ' + x.props.name
  WITH m, en, x, NOT m.agent_id IN en.creators AS added
  SET en:$(x.kind),
      en.creators = CASE WHEN added THEN en.creators + m.agent_id ELSE en.creators END
  MERGE (m)-[:MENTIONS]->(en)
  RETURN collect(CASE WHEN added THEN en.id END) AS creators_added
}
CALL (m, row) {
  UNWIND row.relations AS r
  MATCH (s:Entity {id: r.subject}), (o:Entity {id: r.object})
  OPTIONAL MATCH (s)-[same:CUSTOM {name: r.name}]->(o)
    WHERE same.agent_id = m.agent_id AND same.expired_at IS NULL AND same.archived_at IS NULL
  WITH m, r, s, o, head(collect(same)) AS same
  CALL (m, r, s, o, same) {
    WITH m, r, s, o, same WHERE same IS NULL
    CREATE (s)-[f:CUSTOM]->(o)
    SET f = r.props, f.id = r.fact_id + '/v1', f.fact_id = r.fact_id, f.version = 1, f.name = r.name,
        f.valid_from = m.valid_from, f.valid_to = null, f.recorded_at = $now, f.audit_id = $audit_id,
        f.sources = [m.id], f.memory_id = m.id
    RETURN f, null AS was
    UNION
    WITH m, r, same WHERE same IS NOT NULL
    WITH m, r, same, {id: same.id, confidence: same.confidence} AS was
    SET same.sources = CASE WHEN m.id IN same.sources THEN same.sources ELSE same.sources + m.id END,
        same.confidence = CASE WHEN r.props.confidence > same.confidence THEN r.props.confidence ELSE same.confidence END
    RETURN same AS f, was
  }
  RETURN collect(was) AS facts_extended
}
CALL (m) {
  WITH m WHERE m.session_id IS NOT NULL
  MATCH (prev:Memory {agent_id: m.agent_id, session_id: m.session_id})
  WHERE prev <> m AND prev.valid_from <= m.valid_from
  WITH m, prev ORDER BY prev.valid_from DESC, prev.id DESC LIMIT 1
  MERGE (m)-[:FOLLOWS]->(prev)
}
CALL (m, row) {
  UNWIND row.learned_from AS source_id
  MATCH (source:Memory {id: source_id}) WHERE source.agent_id = m.agent_id AND source <> m
  MERGE (m)-[:LEARNED_FROM]->(source)
}
CALL (m, row) {
  MATCH (m)-[:MENTIONS]->(en:Entity)
  WHERE NOT en.id IN row.linked_skip AND COUNT { (en)<-[:MENTIONS]-() } < $hub
  MATCH (en)<-[:MENTIONS]-(old:Memory:Episode)
  WHERE old <> m AND old.agent_id = m.agent_id
  WITH DISTINCT old ORDER BY old.valid_from DESC LIMIT $linked
  WITH old, {id: old.id, last_accessed_at: old.last_accessed_at} AS was
  SET old.access_count = coalesce(old.access_count, 0) + 1, old.last_accessed_at = $now
  RETURN collect(old.id) AS linked, collect(was) AS reinforced
}
// What undoes it (graph/audit/revert.py UndoRemember): the entities this agent was added to as a creator, the
// facts it added a source to (with their confidence before), the memories it reinforced (with their last access).
RETURN m.id AS id, linked, creators_added, facts_extended, reinforced
