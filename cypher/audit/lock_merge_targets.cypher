// The entries candidates are about to be merged into (cypher/entries/merge_evidence.cypher), locked
// for the rest of the transaction, with their tags and the episodes they are derived from: what a
// merge adds is what the admission's audit record says to take back.
:param ids => ['entry-1'];
MATCH (e:Entry) WHERE e.id IN $ids
WITH e ORDER BY e.id
WITH collect(e) AS entries
CALL apoc.lock.nodes(entries)
UNWIND entries AS e
RETURN e.id AS id, coalesce(e.tags, []) AS tags, [(e)-[:DERIVED_FROM]->(ep:Episode) | ep.id] AS episodes
