// Test-only: for each subject with facts of one relationship type, how many objects its facts ever had and how
// many it holds open now (not expired, no end).
:param type => 'GOVERNANCE_CONTROL';
MATCH (s:Entity)-[f]->(o:Entity)
WHERE type(f) = $type
RETURN s.id AS subject, count(DISTINCT o) AS objects,
       count(DISTINCT CASE WHEN f.expired_at IS NULL AND f.valid_to IS NULL THEN o END) AS open
ORDER BY subject
