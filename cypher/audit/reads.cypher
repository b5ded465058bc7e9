// Reads that count as access for a crystal's relevance (graph/audit/access.py, Reads.flush): each read
// crystal's read count grows by the reads noted and its last read moves forward (never back). A decision's
// access clock (last_accessed_at, access_count) is not touched.
:param rows => [{id: 'ep-1', count: 2, at: 1770000000000}];
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Episode {id: row.id}) RETURN n
  UNION
  MATCH (n:Entry {id: row.id}) RETURN n
}
SET n.read_count = coalesce(n.read_count, 0) + row.count,
    n.last_read_at = CASE WHEN n.last_read_at IS NULL OR n.last_read_at < row.at THEN row.at ELSE n.last_read_at END
RETURN count(n) AS touched
