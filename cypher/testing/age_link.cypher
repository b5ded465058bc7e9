// Make a causal link look last updated $age_ms ago, for recency tests.
:param id => 'agent-a:e1.causes.e2';
:param age_ms => 1209600000;
MATCH ()-[c:CAUSES {id: $id}]->()
SET c.updated_at = timestamp() - $age_ms
RETURN c.id AS id
