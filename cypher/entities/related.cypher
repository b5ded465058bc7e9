// Graph traversal from an entity: the episodes that mention it and the entries derived from
// those episodes, every node on the way visible to the viewer.
:param id => '1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
:param limit => 100;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (en:Entity {id: $id})<-[:MENTIONS]-(ep:Episode)
WHERE $admin OR ep.agent_id = $viewer OR ep.scope = 'public' OR (ep.scope = 'shared' AND ep.clade = $clade)
WITH en, ep
ORDER BY ep.valid_from DESC
LIMIT $limit
OPTIONAL MATCH (entry:Entry)-[:DERIVED_FROM]->(ep)
WHERE $admin OR entry.agent_id = $viewer OR entry.scope = 'public'
   OR (entry.scope = 'shared' AND entry.clade = $clade)
RETURN en {.id, .kind, .name} AS entity, ep.id AS episode_id, ep.text AS text, collect(entry.id) AS entry_ids
