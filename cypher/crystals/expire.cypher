// Expire crystals: an expired crystal is never visible, to anyone, on any read path. It loses its labels
// (Episode, Memory, Entry, its category, Skill) and so every index and every MATCH, and every relationship but
// its lineage (PROVENANCE) and its kept versions (PREVIOUS_VERSION) — no traversal reaches it and no entity is
// visible through it; it keeps its id and properties as an Expired node, with the labels it had, until the purge
// deletes it. Its kept versions go with it: they hold its text. Only a generated crystal that is not a skill
// expires (rows decided outside this transaction apply only if nothing moved the crystal since).
:param rows => [{id: 'ep-1', label: 'Episode'}];
:param now => 1770000000000;
:param reason => 'importance below the forget threshold';
UNWIND $rows AS row
CALL (row) {
  MATCH (c:Episode {id: row.id}) WHERE row.label = 'Episode' RETURN c
  UNION
  MATCH (c:Memory {id: row.id}) WHERE row.label = 'Memory' RETURN c
  UNION
  MATCH (c:Entry {id: row.id}) WHERE row.label = 'Entry' RETURN c
}
WITH DISTINCT c WHERE coalesce(c.lifecycle, 'generated') = 'generated' AND NOT c:Skill
CALL (c) {
  OPTIONAL MATCH (c)-[:PREVIOUS_VERSION]->(v)
  DETACH DELETE v
}
CALL (c) {
  MATCH (c)-[r]-() WHERE type(r) <> 'PROVENANCE'
  DELETE r
}
WITH c, labels(c) AS had
REMOVE c:$(had)
SET c:Expired, c.expired_labels = had, c.lifecycle = 'expired', c.lifecycle_at = $now, c.lifecycle_reason = $reason
RETURN c.id AS id, c.agent_id AS agent_id
