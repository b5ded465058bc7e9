// The information lag of the facts about an entity (spec: Bi-Temporal Knowledge Graph, "Information
// lag detection"): for each fact the viewer may see, as first recorded (version 1), how long after it
// became true Grimoire recorded it.
//   valid_time: when its valid_from block happened (ms): the time its asserter gave (valid_from_time),
//     else the earliest episode the viewer may see at that block, else unknown (null);
//   lag_ms = recorded_at - valid_time;
//   lag_blocks = the block of its source episode (where the agent saw it) - valid_from.
// $since_block and $until_block bound valid_from; $known_at keeps what was recorded by then (ms);
// $agent_id keeps the facts that agent recorded.
:param id => 'reserve:aavev3ethereum dai';
:param types => ['DEPLOYED_BY', 'TOKEN_FLOW', 'ORACLE_DEPENDENCY', 'PRICE_CORRELATION', 'GOVERNANCE_CONTROL', 'COLLATERAL_BACKING', 'HAS_POSITION', 'IS_ROUTER_FOR', 'CUSTOM'];
:param since_block => null;
:param until_block => null;
:param known_at => null;
:param agent_id => null;
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (en:Entity {id: $id})
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
MATCH (en)-[f]-()
WHERE type(f) IN $types AND f.version = 1
  AND ($since_block IS NULL OR f.valid_from >= $since_block)
  AND ($until_block IS NULL OR f.valid_from <= $until_block)
  AND ($known_at IS NULL OR f.recorded_at <= $known_at)
  AND ($agent_id IS NULL OR f.agent_id = $agent_id)
  AND ($admin OR f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade))
CALL (f) {
  OPTIONAL MATCH (ep:Episode {block: f.valid_from})
  WHERE ($admin OR ep.agent_id = $viewer OR ep.scope = 'public' OR (ep.scope = 'shared' AND ep.clade = $clade))
  RETURN min(ep.valid_from) AS block_time
}
CALL (f) {
  OPTIONAL MATCH (src:Episode {id: f.source_episode})
  WHERE ($admin OR src.agent_id = $viewer OR src.scope = 'public' OR (src.scope = 'shared' AND src.clade = $clade))
  RETURN max(src.block) AS seen_block
}
WITH f, startNode(f) AS s, endNode(f) AS o, coalesce(f.valid_from_time, block_time) AS valid_time, block_time,
     seen_block
RETURN f.fact_id AS fact_id, f.predicate AS predicate, f.name AS name, type(f) AS type, s.id AS subject,
       CASE WHEN o:Value THEN null ELSE o.id END AS object, f.valid_from AS valid_from,
       f.recorded_at AS recorded_at, coalesce(f.approximate, false) AS approximate, f.agent_id AS agent_id,
       f.scope AS scope, valid_time,
       CASE WHEN f.valid_from_time IS NOT NULL THEN 'asserted' WHEN block_time IS NOT NULL THEN 'episode' END
         AS valid_time_source,
       f.recorded_at - valid_time AS lag_ms, seen_block, seen_block - f.valid_from AS lag_blocks
ORDER BY valid_from, recorded_at, fact_id
