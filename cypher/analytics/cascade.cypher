// What fails with an entity at $block: everything that depends on it, following dependency facts
// valid at $block backwards (a reserve depends on its oracle, a pool on its reserves, a holder on
// its position) up to $hops; one shortest path each, with the predicates it runs through.
:param id => '1:0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419';
:param block => 21000000;
:param hops => 3;
:param types => ['ORACLE_DEPENDENCY', 'COLLATERAL_BACKING', 'HAS_POSITION', 'CUSTOM', 'TOKEN_FLOW', 'IS_ROUTER_FOR'];
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (failed:Entity {id: $id})
MATCH p = ANY SHORTEST (failed)(()<-[r]-(:Entity)
    WHERE type(r) IN $types AND r.fact_id IS NOT NULL AND r.expired_at IS NULL
      AND r.valid_from <= $block AND (r.valid_to IS NULL OR r.valid_to > $block)
      AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
  ){1,4}(n:Entity)
WHERE n <> failed AND length(p) <= $hops
RETURN n.id AS id, n.kind AS kind, n.name AS name, length(p) AS hops,
       [x IN relationships(p) | coalesce(x.name, x.predicate)] AS through,
       [x IN nodes(p) | x.id] AS path,
       type(last(relationships(p))) = 'HAS_POSITION' AS holds_position
ORDER BY hops, id
