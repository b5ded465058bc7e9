// Merge crystals (the consolidation engine, or an owner by hand): each winner becomes consolidated and
// derives (PROVENANCE, operation merged) from each of its losers; each loser is archived with parent_id
// pointing at its winner. Checked again here (a winner generated or activated, a loser activated, neither a
// skill, both of one owner, scope and clade), as the engine decides outside this transaction; all of one kind
// ($label: ids are unique per label).
:param rows => [{winner: 'en-1', losers: ['en-2'], cosine: 0.95}];
:param label => 'Entry';
:param actor => 'consolidation';
:param now => 1770000000000;
:param reason => 'merged';
UNWIND $rows AS row
CALL (row) {
  MATCH (w:Episode {id: row.winner}) WHERE $label = 'Episode' RETURN w
  UNION
  MATCH (w:Memory {id: row.winner}) WHERE $label = 'Memory' RETURN w
  UNION
  MATCH (w:Entry {id: row.winner}) WHERE $label = 'Entry' RETURN w
}
WITH DISTINCT row, w WHERE coalesce(w.lifecycle, 'generated') IN ['generated', 'activated'] AND NOT w:Skill
CALL (row, w) {
  UNWIND row.losers AS loser_id
  CALL (loser_id) {
    MATCH (l:Episode {id: loser_id}) WHERE $label = 'Episode' RETURN l
    UNION
    MATCH (l:Memory {id: loser_id}) WHERE $label = 'Memory' RETURN l
    UNION
    MATCH (l:Entry {id: loser_id}) WHERE $label = 'Entry' RETURN l
  }
  // One source only: never another owner's crystal, another scope's or another clade's (a merge adds nothing
  // of one partition to another).
  WITH DISTINCT w, l WHERE l.lifecycle = 'activated' AND NOT l:Skill AND l <> w
    AND l.agent_id = w.agent_id AND coalesce(l.scope, 'private') = coalesce(w.scope, 'private')
    AND coalesce(l.clade, '') = coalesce(w.clade, '')
  RETURN collect(l) AS losers
}
WITH row, w, losers WHERE size(losers) > 0
SET w.lifecycle = 'consolidated', w.lifecycle_at = $now, w.lifecycle_reason = $reason
WITH row, w, losers
UNWIND losers AS l
SET l.lifecycle = 'archived', l.lifecycle_at = $now, l.lifecycle_reason = $reason, l.parent_id = w.id
FOREACH (_ IN CASE WHEN l:Entry THEN [1] ELSE [] END | SET l.status = 'archived')
MERGE (w)-[r:PROVENANCE {operation: 'merged'}]->(l)
  ON CREATE SET r.actor = $actor, r.at = $now, r.metadata = apoc.convert.toJson({cosine: row.cosine, by_hash: coalesce(row.by_hash, false)})
RETURN w.id AS winner, collect(l.id) AS losers
