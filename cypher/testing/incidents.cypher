// Test-only: every safety_incident episode with the episode it is linked to (INCIDENT_OF) and its audit record.
MATCH (i:Episode {type: 'safety_incident'})
OPTIONAL MATCH (i)-[:INCIDENT_OF]->(src:Episode)
RETURN i.id AS id, i.agent_id AS agent_id, i.clade AS clade, i.scope AS scope, i.sensitivity AS sensitivity,
       i.importance AS importance, i.confidence AS confidence, i.audit_id AS audit_id,
       collect(src.id) AS sources
ORDER BY i.id
