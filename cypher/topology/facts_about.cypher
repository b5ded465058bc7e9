// Facts the viewer may see about an entity it may see (as subject or object), on either time axis
// or both: valid at a block ($block), as Grimoire knew them at a time ($known_at, ms; null = now).
// The other end of a visible fact is visible too (the fact touches it).
:param id => 'reserve:aavev3ethereum dai';
:param block => 20000000;
:param known_at => 1700000000000;
:param types => ['DEPLOYED_BY', 'TOKEN_FLOW', 'ORACLE_DEPENDENCY', 'PRICE_CORRELATION', 'GOVERNANCE_CONTROL', 'COLLATERAL_BACKING', 'HAS_POSITION', 'IS_ROUTER_FOR', 'CUSTOM'];
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (en:Entity {id: $id})
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
MATCH (en)-[f]-(other)
WHERE type(f) IN $types
  AND ($block IS NULL OR (f.valid_from <= $block AND (f.valid_to IS NULL OR f.valid_to > $block)))
  AND CASE WHEN $known_at IS NULL THEN f.expired_at IS NULL
           ELSE f.recorded_at <= $known_at AND (f.expired_at IS NULL OR f.expired_at > $known_at) END
  AND ($admin OR f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade))
WITH f, startNode(f) AS s, endNode(f) AS o
RETURN f {.*, type: type(f), valid_to: f.valid_to, expired_at: f.expired_at} AS fact, s.id AS subject, CASE WHEN o:Value THEN null ELSE o.id END AS object,
       o.value AS value, o {.kind, .name, .symbol} AS object_entity, s {.kind, .name, .symbol} AS subject_entity
ORDER BY fact.valid_from, fact.recorded_at, fact.id
