// Test-only: every inferred fact (graph/topology/inference.py) with its ends and its partition.
MATCH (s:Entity)-[f:TOKEN_FLOW]->(o:Entity)
WHERE f.inferred IS NOT NULL
RETURN f.fact_id AS fact_id, s.id AS subject, o.id AS object, f.agent_id AS agent_id, f.scope AS scope,
       f.clade AS clade, f.co_occurrences AS co_occurrences
ORDER BY subject, object
