// Expire crystals: an expired crystal is never visible, to anyone, on any read path. It loses its labels
// (Episode, Memory, Entry, its category, Skill) and so every index and every MATCH, and every relationship but
// its lineage (PROVENANCE) and its kept versions (PREVIOUS_VERSION) — no traversal reaches it and no entity is
// visible through it; it keeps its id and properties as an Expired node, with the labels it had, until the purge
// deletes it.
:param ids => ['ep-1'];
:param now => 1770000000000;
:param reason => 'importance below the forget threshold';
UNWIND $ids AS id
CALL (id) {
  MATCH (c:Episode {id: id}) RETURN c
  UNION
  MATCH (c:Memory {id: id}) RETURN c
  UNION
  MATCH (c:Entry {id: id}) RETURN c
}
WITH DISTINCT c
CALL (c) {
  MATCH (c)-[r]-() WHERE NOT type(r) IN ['PROVENANCE', 'PREVIOUS_VERSION']
  DELETE r
}
WITH c, labels(c) AS had
REMOVE c:$(had)
SET c:Expired, c.expired_labels = had, c.lifecycle = 'expired', c.lifecycle_at = $now, c.lifecycle_reason = $reason
RETURN c.id AS id, c.agent_id AS agent_id
