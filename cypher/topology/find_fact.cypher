// Every version of one fact, oldest first, with its subject and object.
:param fact_id => 'fact-1';
MATCH (s:Entity)-[f:DEPLOYED_BY|TOKEN_FLOW|ORACLE_DEPENDENCY|PRICE_CORRELATION|GOVERNANCE_CONTROL|COLLATERAL_BACKING|HAS_POSITION|IS_ROUTER_FOR|CUSTOM]->(o)
WHERE f.fact_id = $fact_id
RETURN f {.*, valid_to: f.valid_to, expired_at: f.expired_at} AS fact, s.id AS subject, o.id AS object, o.value AS value, type(f) AS type
ORDER BY f.version
