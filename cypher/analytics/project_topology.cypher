// The DeFi topology as valid at $block (and believed at $known_at, or now) projected into the GDS
// catalogue under $graph_name: one DEPENDS_ON relationship subject -> object for each pair with
// facts valid then (parallel facts, e.g. two predicates, make one link), with the best confidence
// and a cost (1 / confidence) for weighted paths. Only facts the viewer may see. $undirected: ['*'] for community detection and embeddings, [] to keep the direction.
:param graph_name => 'grimoire-topology-example';
:param block => 21000000;
:param known_at => null;
:param types => ['DEPLOYED_BY', 'TOKEN_FLOW', 'ORACLE_DEPENDENCY', 'PRICE_CORRELATION', 'GOVERNANCE_CONTROL', 'COLLATERAL_BACKING', 'HAS_POSITION', 'IS_ROUTER_FOR', 'CUSTOM'];
:param undirected => [];
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (s:Entity)-[r]->(t:Entity)
WHERE type(r) IN $types AND r.fact_id IS NOT NULL
  AND r.valid_from <= $block AND (r.valid_to IS NULL OR r.valid_to > $block)
  AND CASE WHEN $known_at IS NULL THEN r.expired_at IS NULL
           ELSE r.recorded_at <= $known_at AND (r.expired_at IS NULL OR r.expired_at > $known_at) END
  AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
WITH s, t, max(coalesce(r.confidence, 1.0)) AS confidence
RETURN gds.graph.project($graph_name, s, t, {
  relationshipType: 'DEPENDS_ON',
  relationshipProperties: {confidence: confidence,
                           cost: 1.0 / CASE WHEN confidence > 0.01 THEN confidence ELSE 0.01 END}
}, {undirectedRelationshipTypes: $undirected}) AS projection
