// Replays noted on the request path (graph/audit/access.py, Reads.flush; knowledge-crystals.md lines 57-62): each
// replayed crystal's dream count grows by its replays, its last dreamed moves forward (never back) and its last
// ripple count is the one sampled for its new dream count. A decision's access clock is not touched.
:param rows => [{id: 'ep-1', count: 1, at: 1770000000000, ripples: 3}];
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Episode {id: row.id}) RETURN n
  UNION
  MATCH (n:Entry {id: row.id}) RETURN n
}
SET n.dream_count = coalesce(n.dream_count, 0) + row.count,
    n.last_ripple_count = row.ripples,
    n.last_dreamed_at = CASE WHEN n.last_dreamed_at IS NULL OR n.last_dreamed_at < row.at THEN row.at
                             ELSE n.last_dreamed_at END
RETURN count(n) AS touched
