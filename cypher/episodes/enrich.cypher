// Pending episodes' derived work (graph/enrichment.py), as the synchronous ingest does it (episodes/ingest):
// their MENTIONS (an entity a mention creates is never public: it is visible to who may see an item that
// mentions it) and their FOLLOWS; then each is marked done and its pending work dropped. Only an episode still
// pending under its lock is touched: one deleted meanwhile (a rollback of its ingest) is not matched, one done
// already is left as it is, so running it twice changes nothing. Each row carries its audit record's id, which
// an entity it creates keeps (`created`: what the record names at its first version).
:param now => 1700000000000;
:param rows => [{id: 'ep-1', audit_id: 'audit-2', mentions: [{id: '1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', kind: 'Token', props: {name: 'WETH'}}], follows: null}];
UNWIND $rows AS row
MATCH (e:Episode {id: row.id})
CALL apoc.lock.nodes([e])
WITH e, row
WHERE e.enrichment = 'pending'
CALL (e, row) {
  UNWIND row.mentions AS m
  MERGE (en:Entity {id: m.id})
    ON CREATE SET en += m.props, en.recorded_at = $now, en.public = false, en.creators = [],
                  en.audit_id = row.audit_id
  SET en:$(m.kind)
  MERGE (e)-[:MENTIONS]->(en)
  RETURN collect(DISTINCT en.id) AS mentioned,
         collect(DISTINCT CASE WHEN en.audit_id = row.audit_id THEN en.id END) AS created
}
CALL (e, row) {
  OPTIONAL MATCH (prev:Episode {id: row.follows})
  FOREACH (p IN CASE WHEN prev IS NULL THEN [] ELSE [prev] END | MERGE (e)-[:FOLLOWS]->(p))
  RETURN prev.id AS followed
}
SET e.enrichment = 'done'
REMOVE e.pending_mentions, e.pending_follows
RETURN e.id AS id, e.agent_id AS agent_id, mentioned, created, followed
