// Entities stored before entity visibility existed (no `public`), a batch at a time. Sent through
// POST /entities by an agent's key (the audit record of their creation says whose): that agent's,
// not public. Created by a loader or the admin: public. Created by an episode's mention (no
// audit record, or the lazy enrichment's, episode.enrich): visible through the mentions, not public; with no mention at all, public (no one
// could see it otherwise). Entities touched by visible facts stay visible through them.
:param batch => 10000;
MATCH (e:Entity) WHERE e.public IS NULL
WITH e LIMIT $batch
OPTIONAL MATCH (a:AuditRecord {id: e.audit_id})
OPTIONAL MATCH (k:ApiKey {id: a.actor})-[:KEY_OF]->(agent:Agent)
WITH e, a, CASE WHEN 'admin' IN k.scopes THEN null ELSE agent.id END AS creator
SET e.public = CASE WHEN creator IS NOT NULL THEN false
                    WHEN a IS NOT NULL AND a.action <> 'episode.enrich' THEN true
                    ELSE NOT EXISTS { (e)<-[:MENTIONS]-() } END,
    e.creators = CASE WHEN creator IS NULL THEN [] ELSE [creator] END
RETURN e.id AS id, e.public AS public
