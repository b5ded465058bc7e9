// A MemoryPipeline's store step (graph/crystals/pipeline.py): the crystal fields its augment step changed, on
// crystals the caller owns (checked before), written back.
:param rows => [{id: 'ep-1', changes: {priority: 10}}];
UNWIND $rows AS row
CALL (row) {
  MATCH (c:Episode {id: row.id}) RETURN c
  UNION
  MATCH (c:Memory {id: row.id}) RETURN c
  UNION
  MATCH (c:Entry {id: row.id}) RETURN c
}
WITH DISTINCT row, c
SET c += row.changes
RETURN c.id AS id
