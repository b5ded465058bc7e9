// Graph traversal from an entity the viewer may see: the episodes that mention it and the entries
// derived from those episodes, every node on the way visible to the viewer.
:param id => '1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
:param limit => 100;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
MATCH (en:Entity {id: $id})
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
MATCH (en)<-[:MENTIONS]-(ep:Episode)
WHERE $admin OR ep.agent_id = $viewer OR ep.scope = 'public' OR (ep.scope = 'shared' AND ep.clade = $clade)
WITH en, ep
ORDER BY ep.valid_from DESC
LIMIT $limit
OPTIONAL MATCH (entry:Entry)-[:DERIVED_FROM]->(ep)
WHERE $admin OR entry.agent_id = $viewer OR entry.scope = 'public'
   OR (entry.scope = 'shared' AND entry.clade = $clade)
RETURN en {.id, .kind, .name} AS entity, ep.id AS episode_id, ep.text AS text, collect(entry.id) AS entry_ids
