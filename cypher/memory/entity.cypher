// Section 11.2 for one agent: resolve the query to the entities it names (fuzzy, on names and aliases,
// among the entities the agent's memories name: the best three), then the entities one and two hops
// away over the agent's relations that are not archived (the $fanout strongest at each hop), and the
// latest $per memories that name the entity and each neighbour one hop out (depth 0 and 1). Bounded at
// every step: a hub entity named by thousands of memories costs one top-k. $query is an escaped Lucene
// query.
:param agent_id => 'agent-a';
:param query => 'moltbot~';
:param hops => 2;
:param fanout => 10;
:param per => 10;
CALL db.index.fulltext.queryNodes('entity_names', $query, {limit: 20}) YIELD node AS en, score
WHERE $agent_id IN en.creators
WITH en, score ORDER BY score DESC LIMIT 3
CALL (en) {
  MATCH (en)-[r1:CUSTOM]-(n1:Entity)
  WHERE r1.agent_id = $agent_id AND r1.expired_at IS NULL AND r1.archived_at IS NULL AND n1 <> en
  WITH r1, n1 ORDER BY r1.confidence DESC, r1.recorded_at DESC LIMIT $fanout
  RETURN n1 AS n, 1 AS depth, [r1] AS rels
  UNION
  MATCH (en)-[r1:CUSTOM]-(n1:Entity)
  WHERE $hops >= 2 AND r1.agent_id = $agent_id AND r1.expired_at IS NULL AND r1.archived_at IS NULL AND n1 <> en
  WITH en, r1, n1 ORDER BY r1.confidence DESC, r1.recorded_at DESC LIMIT $fanout
  MATCH (n1)-[r2:CUSTOM]-(n2:Entity)
  WHERE r2.agent_id = $agent_id AND r2.expired_at IS NULL AND r2.archived_at IS NULL AND n2 <> en AND n2 <> n1
    AND NOT EXISTS { (en)-[r:CUSTOM]-(n2) WHERE r.agent_id = $agent_id AND r.archived_at IS NULL }
  WITH r1, r2, n2 ORDER BY r2.confidence DESC, r2.recorded_at DESC LIMIT $fanout
  RETURN n2 AS n, 2 AS depth, [r1, r2] AS rels
}
WITH en, score, n, min(depth) AS depth, head(collect(rels)) AS rels
WITH en, score, collect({id: n.id, name: n.name, kind: n.kind, depth: depth,
                         relations: [r IN rels | {from: startNode(r).id, relation: r.name, to: endNode(r).id}]})
     AS around
WITH collect({entity: en {.id, .name, .kind, .slug}, score: score, around: around, ids: [en.id] + [a IN around | a.id],
              depths: [0] + [a IN around | a.depth]}) AS found
UNWIND found AS f
UNWIND range(0, size(f.ids) - 1) AS i
WITH found, f.ids[i] AS id, f.depths[i] AS depth
MATCH (e:Entity {id: id})
WHERE depth <= 1  // memories of the entity and its neighbours: two hops out only name entities
CALL (e) {
  MATCH (e)<-[:MENTIONS]-(m:Memory:Episode)
  WHERE m.agent_id = $agent_id
  RETURN m ORDER BY m.valid_from DESC LIMIT $per
}
WITH found, m, min(depth) AS depth
RETURN [f IN found | f {.entity, .score, .around}] AS found,
       collect({memory: m {.*, embedding: null}, depth: depth}) AS memories
