// How many hops (at most 3, every hop a fact the viewer may see, valid at $block, either direction)
// separate an event's entity from the nearest of the agent's positions; null when none is within
// reach. No row when the viewer may not see the event's entity.
:param event => '1:0x54586be62e3c3580375ae3723c145253060ca0c2';
:param positions => ['1:0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2'];
:param block => 20000000;
:param types => ['DEPLOYED_BY', 'TOKEN_FLOW', 'ORACLE_DEPENDENCY', 'PRICE_CORRELATION', 'GOVERNANCE_CONTROL', 'COLLATERAL_BACKING', 'HAS_POSITION', 'IS_ROUTER_FOR', 'CUSTOM'];
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (en:Entity {id: $event})
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
OPTIONAL MATCH p = ANY SHORTEST (en)(()-[r]-(:Entity)
    WHERE type(r) IN $types AND r.expired_at IS NULL
      AND r.valid_from <= $block AND (r.valid_to IS NULL OR r.valid_to > $block)
      AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
  ){1,3}(pos:Entity)
WHERE pos.id IN $positions
WITH en, min(length(p)) AS hops
RETURN CASE WHEN en.id IN $positions THEN 0 ELSE hops END AS distance
