// Dedup by hash before cosine (knowledge-crystals.md, line 29): for each candidate, the oldest entry with its
// content hash in its own partition — the same owner, scope and clade (never another owner's, never a wider or
// narrower scope's) — that admission compares with (active or candidate, not expired or archived), other than
// the entry it copies ($rows' `except`). A seek on the entry_content_hash index.
:param rows => [{i: 0, hash: 'ab12', agent_id: 'golem-1', scope: 'private', clade: '', except: ''}];
UNWIND $rows AS row
CALL (row) {
  MATCH (e:Entry {content_hash: row.hash})
  WHERE e.agent_id = row.agent_id AND e.scope = row.scope AND coalesce(e.clade, '') = row.clade
    AND e.status IN ['active', 'candidate'] AND NOT coalesce(e.lifecycle, '') IN ['expired', 'archived']
    AND e.id <> row.except
  RETURN e.id AS twin ORDER BY e.recorded_at, e.id LIMIT 1
}
RETURN row.i AS i, twin
