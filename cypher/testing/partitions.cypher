// Every node that carries a scope (episodes, memories, entries, their versions, reflections...) with its
// partition — owner, scope, clade — its owner's clade, sensitivity, what it was merged under and what it derives
// from (DERIVED_FROM; a safety_incident: INCIDENT_OF, its source episode): a test compares them before and after
// the background jobs (nothing widened, nothing merged or linked across partitions).
MATCH (n) WHERE n.scope IS NOT NULL
OPTIONAL MATCH (a:Agent {id: n.agent_id})
OPTIONAL MATCH (n)-[:DERIVED_FROM|INCIDENT_OF]->(src)
WITH n, a, collect(DISTINCT CASE WHEN src IS NULL THEN null
                                 ELSE {id: src.id, agent_id: src.agent_id, scope: src.scope, clade: src.clade} END)
       AS sources
RETURN elementId(n) AS key, n.id AS id, [l IN labels(n) WHERE l IN ['Episode', 'Memory', 'Entry']] AS kinds,
       n.agent_id AS agent_id, n.scope AS scope, n.clade AS clade, a.clade AS owner_clade,
       n.sensitivity AS sensitivity, n.parent_id AS parent_id, n.validated_count AS validated_count,
       n.tags AS tags, sources
ORDER BY key
