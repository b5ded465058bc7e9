// Invalidate a fact the writer owns at a block (its agent's keys, its person's, or the admin's): the
// version believed now is expired in recorded time and a copy valid until the block is recorded beside
// it (none when the block is not after valid_from). A fact of another owner is not found here.
:param fact_id => 'fact-1';
:param at_block => 19500000;
:param now => 1700000000000;
:param audit_id => 'audit-1';
:param admin => true;
:param viewer => '';
MATCH (s:Entity)-[f:DEPLOYED_BY|TOKEN_FLOW|ORACLE_DEPENDENCY|PRICE_CORRELATION|GOVERNANCE_CONTROL|COLLATERAL_BACKING|HAS_POSITION|IS_ROUTER_FOR|CUSTOM]->(o)
WHERE f.fact_id = $fact_id AND f.expired_at IS NULL AND (f.valid_to IS NULL OR f.valid_to > $at_block)
  AND ($admin OR f.agent_id = $viewer)
SET f.expired_at = $now
WITH s, f, o
CALL (s, f, o) {
  WITH s, f, o WHERE f.valid_from < $at_block
  CREATE (s)-[closed:$(type(f))]->(o)
  SET closed = f {.*, id: f.fact_id + '/v' + toString(f.version + 1), version: f.version + 1,
                  valid_to: $at_block, recorded_at: $now, expired_at: null, audit_id: $audit_id}
  RETURN count(closed) AS closed
}
RETURN f.fact_id AS fact_id, s.id AS subject, closed
