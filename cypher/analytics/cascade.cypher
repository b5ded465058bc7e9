// What fails with an entity the viewer may see at $block: everything that depends on it, following
// dependency facts the viewer may see, valid at $block, backwards (a reserve depends on its oracle,
// a pool on its reserves, a holder on its position) up to $hops; one shortest path each, with the
// predicates it runs through. Every entity on a path is visible: a visible fact touches it.
:param id => '1:0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419';
:param block => 21000000;
:param hops => 3;
:param types => ['ORACLE_DEPENDENCY', 'COLLATERAL_BACKING', 'HAS_POSITION', 'CUSTOM', 'TOKEN_FLOW', 'IS_ROUTER_FOR'];
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (en:Entity {id: $id})
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
MATCH p = ANY SHORTEST (en)(()<-[r]-(:Entity)
    WHERE type(r) IN $types AND r.fact_id IS NOT NULL AND r.expired_at IS NULL
      AND r.valid_from <= $block AND (r.valid_to IS NULL OR r.valid_to > $block)
      AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
  ){1,4}(n:Entity)
WHERE n <> en AND length(p) <= $hops
RETURN n.id AS id, n.kind AS kind, n.name AS name, length(p) AS hops,
       [x IN relationships(p) | coalesce(x.name, x.predicate)] AS through,
       [x IN nodes(p) | x.id] AS path,
       type(last(relationships(p))) = 'HAS_POSITION' AS holds_position
ORDER BY hops, id
