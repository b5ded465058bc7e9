// A candidate merged into an existing entry counts as one more independent validation;
// its tags and source episodes are added to the entry.
:param now => 1700000000000;
:param rows => [];
UNWIND $rows AS row
MATCH (e:Entry {id: row.target_id})
SET e.validated_count = e.validated_count + 1,
    e.tags = apoc.coll.toSet(coalesce(e.tags, []) + row.tags),
    e.updated_at = $now
WITH e, row
CALL (e, row) {
  UNWIND row.parent_episode_ids AS pid
  MATCH (ep:Episode {id: pid})
  MERGE (e)-[r:DERIVED_FROM]->(ep)
    ON CREATE SET r.at = $now
}
RETURN e.id AS id
