// A MemoryPipeline's store step (graph/crystals/pipeline.py): the crystal fields its augment step changed, on
// crystals the caller owns (checked before), written back.
:param rows => [{id: 'ep-1', label: 'Episode', changes: {priority: 10}}];
UNWIND $rows AS row
CALL (row) {
  MATCH (c:Episode {id: row.id}) WHERE row.label = 'Episode' RETURN c
  UNION
  MATCH (c:Memory {id: row.id}) WHERE row.label = 'Memory' RETURN c
  UNION
  MATCH (c:Entry {id: row.id}) WHERE row.label = 'Entry' RETURN c
}
WITH DISTINCT row, c
SET c += row.changes
RETURN c.id AS id
