// Entities within $hops of a start entity the viewer may see, every hop a fact the viewer may see,
// valid at $block (and believed at $known_at, or now), following the given predicates in the given
// direction: one shortest path each, with its depth, predicates and the entities along it (a
// breadth-first search, done by the planner). No invisible entity can be on a path: a visible fact
// makes both its ends visible.
:param id => '1:0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2';
:param block => 20000000;
:param hops => 3;
:param direction => 'both';
:param known_at => null;
:param types => ['DEPLOYED_BY', 'TOKEN_FLOW', 'ORACLE_DEPENDENCY', 'PRICE_CORRELATION', 'GOVERNANCE_CONTROL', 'COLLATERAL_BACKING', 'HAS_POSITION', 'IS_ROUTER_FOR', 'CUSTOM'];
:param admin => true;
:param viewer => '';
:param clade => '';
:param limit => 1000;
MATCH (en:Entity {id: $id})
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
MATCH p = ANY SHORTEST (en)((a)-[r]-(b:Entity)
    WHERE type(r) IN $types
      AND ($direction = 'both' OR ($direction = 'out' AND startNode(r) = a) OR ($direction = 'in' AND endNode(r) = a))
      AND r.valid_from <= $block AND (r.valid_to IS NULL OR r.valid_to > $block)
      AND CASE WHEN $known_at IS NULL THEN r.expired_at IS NULL
               ELSE r.recorded_at <= $known_at AND (r.expired_at IS NULL OR r.expired_at > $known_at) END
      AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
  ){1,3}(n:Entity)
WHERE n <> en AND length(p) <= $hops
RETURN n.id AS id, n.kind AS kind, n.name AS name, length(p) AS depth,
       [x IN relationships(p) | coalesce(x.name, x.predicate)] AS predicates,
       [x IN relationships(p) | x.fact_id] AS facts,
       [x IN nodes(p) | x.id] AS path
ORDER BY depth, id
LIMIT $limit
