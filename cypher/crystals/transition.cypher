// Move crystals to a lifecycle state other than expired (graph/crystals/store.py checks the move first): each
// row names the crystal's label (ids are unique per label only) and the state it must still be in, so a move
// decided outside this transaction applies only if nothing moved the crystal since; an archived entry also
// leaves retrieval (status archived); a merge's loser points at its winner (parent_id). The ids moved.
:param rows => [{id: 'ep-1', label: 'Episode', from: 'generated', to: 'activated', parent_id: null}];
:param now => 1770000000000;
:param reason => 'accessed often';
UNWIND $rows AS row
CALL (row) {
  MATCH (c:Episode {id: row.id}) WHERE row.label = 'Episode' RETURN c
  UNION
  MATCH (c:Memory {id: row.id}) WHERE row.label = 'Memory' RETURN c
  UNION
  MATCH (c:Entry {id: row.id}) WHERE row.label = 'Entry' RETURN c
}
WITH DISTINCT row, c WHERE coalesce(c.lifecycle, 'generated') = row.from
SET c.lifecycle = row.to, c.lifecycle_at = $now, c.lifecycle_reason = $reason,
    c.parent_id = coalesce(row.parent_id, c.parent_id)
FOREACH (_ IN CASE WHEN row.to = 'archived' AND c:Entry THEN [1] ELSE [] END | SET c.status = 'archived')
RETURN c.id AS id
