// Merge crystals (the consolidation engine, or an owner by hand): each winner becomes consolidated and
// derives (PROVENANCE, operation merged) from each of its losers; each loser is archived with parent_id
// pointing at its winner. The caller has checked the moves (generated or activated → consolidated/archived).
:param rows => [{winner: 'en-1', losers: ['en-2'], cosine: 0.95}];
:param actor => 'consolidation';
:param now => 1770000000000;
:param reason => 'merged';
UNWIND $rows AS row
CALL (row) {
  MATCH (w:Episode {id: row.winner}) RETURN w
  UNION
  MATCH (w:Memory {id: row.winner}) RETURN w
  UNION
  MATCH (w:Entry {id: row.winner}) RETURN w
}
WITH DISTINCT row, w
SET w.lifecycle = 'consolidated', w.lifecycle_at = $now, w.lifecycle_reason = $reason
WITH row, w
UNWIND row.losers AS loser_id
CALL (loser_id) {
  MATCH (l:Episode {id: loser_id}) RETURN l
  UNION
  MATCH (l:Memory {id: loser_id}) RETURN l
  UNION
  MATCH (l:Entry {id: loser_id}) RETURN l
}
WITH DISTINCT row, w, l
SET l.lifecycle = 'archived', l.lifecycle_at = $now, l.lifecycle_reason = $reason, l.parent_id = w.id
FOREACH (_ IN CASE WHEN l:Entry THEN [1] ELSE [] END | SET l.status = 'archived')
MERGE (w)-[r:PROVENANCE {operation: 'merged'}]->(l)
  ON CREATE SET r.actor = $actor, r.at = $now, r.metadata = apoc.convert.toJson({cosine: row.cosine})
RETURN w.id AS winner, collect(l.id) AS losers
