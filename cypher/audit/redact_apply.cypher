// An erasure's redaction written (graph/audit/erasure.py): each node's redacted text properties set in place
// (the erased text replaced by the redaction mark), its redaction stamp added, and an embedding of erased text
// removed; the versions of an erased item deleted with it.
:param rows => [{eid: '4:x:1', props: {trigger: '[erased 2026-01-01T00:00Z by key-1]', redaction: '[]'}, unembed: false}];
:param doomed => [];
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.eid
SET n += row.props
FOREACH (_ IN CASE WHEN row.unembed THEN [1] ELSE [] END | REMOVE n.embedding)
WITH count(n) AS redacted
CALL () {
  UNWIND $doomed AS eid
  MATCH (v) WHERE elementId(v) = eid
  DETACH DELETE v
  RETURN count(*) AS removed
}
RETURN redacted, removed
