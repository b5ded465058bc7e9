// How many hops (at most 3, every hop valid at $block, either direction) separate an event's
// entity from the nearest of the agent's positions; null when none is within reach.
:param event => '1:0x54586be62e3c3580375ae3723c145253060ca0c2';
:param positions => ['1:0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2'];
:param block => 20000000;
:param types => ['DEPLOYED_BY', 'TOKEN_FLOW', 'ORACLE_DEPENDENCY', 'PRICE_CORRELATION', 'GOVERNANCE_CONTROL', 'COLLATERAL_BACKING', 'HAS_POSITION', 'IS_ROUTER_FOR', 'CUSTOM'];
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (e:Entity {id: $event})
OPTIONAL MATCH p = ANY SHORTEST (e)(()-[r]-(:Entity)
    WHERE type(r) IN $types AND r.expired_at IS NULL
      AND r.valid_from <= $block AND (r.valid_to IS NULL OR r.valid_to > $block)
      AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
  ){1,3}(pos:Entity)
WHERE pos.id IN $positions
WITH e, min(length(p)) AS hops
RETURN CASE WHEN e.id IN $positions THEN 0 ELSE hops END AS distance
