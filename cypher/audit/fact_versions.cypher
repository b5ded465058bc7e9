// Every version of one fact, from its subject: after an invalidation (cypher/topology/invalidate_fact.cypher),
// which version it expired and which closed copy it recorded, for its audit record.
:param subject => '1:0xreserve';
:param fact_id => 'fact-1';
MATCH (s:Entity {id: $subject})-[f]->()
WHERE f.fact_id = $fact_id
RETURN f.id AS id, type(f) AS type, f.audit_id AS audit_id, f.expired_at AS expired_at
