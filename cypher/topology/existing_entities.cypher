// Which of these entity ids exist and the viewer may see (an invisible entity is as unknown as a
// missing one, so asking does not tell whether it exists).
:param ids => ['1:0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2'];
:param admin => false;
:param viewer => 'golem-1';
:param clade => 'clade-a';
UNWIND $ids AS id
MATCH (en:Entity {id: id})
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
RETURN en.id AS id
