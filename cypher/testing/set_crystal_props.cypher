// Set properties on episodes or entries by id (tests that script a crystal's access history).
:param rows => [{id: 'ep-1', props: {access_count: 3}}];
UNWIND $rows AS row
CALL (row) {
  MATCH (c:Episode {id: row.id}) RETURN c
  UNION
  MATCH (c:Entry {id: row.id}) RETURN c
}
SET c += row.props
