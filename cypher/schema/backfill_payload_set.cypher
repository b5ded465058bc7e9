// Each crystal's content hash (computed by graph/crystals/backfill.py) and its source, where still missing.
:param label => 'Entry';
:param rows => [{id: 'en-1', hash: 'ab12', source: 'memory'}];
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Episode {id: row.id}) WHERE $label = 'Episode' RETURN n
  UNION
  MATCH (n:Memory {id: row.id}) WHERE $label = 'Memory' RETURN n
  UNION
  MATCH (n:Entry {id: row.id}) WHERE $label = 'Entry' RETURN n
}
WITH DISTINCT n, row WHERE n.content_hash IS NULL
SET n.content_hash = row.hash, n.memory_source = coalesce(n.memory_source, row.source)
RETURN n.id AS id
