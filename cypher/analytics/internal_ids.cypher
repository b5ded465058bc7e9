// The internal node ids GDS knows nodes by, for our ids (entities and entries) the viewer may see;
// an id the viewer may not see is left out, as one that does not exist.
:param ids => ['1:0x54586be62e3c3580375ae3723c145253060ca0c2'];
:param admin => true;
:param viewer => '';
:param clade => '';
UNWIND $ids AS wanted
CALL (wanted) {
  MATCH (en:Entity {id: wanted})
  WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
  RETURN en AS n
  UNION
  MATCH (n:Entry {id: wanted})
  WHERE $admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade)
  RETURN n
}
RETURN n.id AS id, id(n) AS node_id
