// Every entity-to-entity fact valid at a block and believed now: the whole topology at that block.
:param block => 20000000;
:param types => ['DEPLOYED_BY', 'TOKEN_FLOW', 'ORACLE_DEPENDENCY', 'PRICE_CORRELATION', 'GOVERNANCE_CONTROL', 'COLLATERAL_BACKING', 'HAS_POSITION', 'IS_ROUTER_FOR', 'CUSTOM'];
MATCH (s:Entity)-[f]->(o:Entity)
WHERE type(f) IN $types AND f.expired_at IS NULL
  AND f.valid_from <= $block AND (f.valid_to IS NULL OR f.valid_to > $block)
RETURN s.id AS subject, o.id AS object, type(f) AS type
