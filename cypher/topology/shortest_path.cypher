// The shortest dependency path between two entities the viewer may see, every hop a fact the
// viewer may see, valid at $block (either direction).
:param from => '1:0x5300a1a15135ea4dc7ad5a167152c01efc9b192a';
:param to => 'reserve:aavev3ethereum dai';
:param block => 20000000;
:param known_at => null;
:param types => ['DEPLOYED_BY', 'TOKEN_FLOW', 'ORACLE_DEPENDENCY', 'PRICE_CORRELATION', 'GOVERNANCE_CONTROL', 'COLLATERAL_BACKING', 'HAS_POSITION', 'IS_ROUTER_FOR', 'CUSTOM'];
:param admin => true;
:param viewer => '';
:param clade => '';
UNWIND [$from, $to] AS wanted
MATCH (en:Entity {id: wanted})
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
WITH collect(en) AS ends
WHERE size(ends) = 2
WITH ends[0] AS a, ends[1] AS b
MATCH p = ANY SHORTEST (a)(()-[r]-(:Entity)
    WHERE type(r) IN $types
      AND r.valid_from <= $block AND (r.valid_to IS NULL OR r.valid_to > $block)
      AND CASE WHEN $known_at IS NULL THEN r.expired_at IS NULL
               ELSE r.recorded_at <= $known_at AND (r.expired_at IS NULL OR r.expired_at > $known_at) END
      AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
  ){1,8}(b)
RETURN length(p) AS depth, [x IN nodes(p) | x.id] AS path,
       [x IN relationships(p) | {fact_id: x.fact_id, predicate: coalesce(x.name, x.predicate),
                                 subject: startNode(x).id, object: endNode(x).id, confidence: x.confidence,
                                 recorded_at: x.recorded_at, last_reinforced: x.last_reinforced}] AS facts
