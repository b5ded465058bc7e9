// Bare episodes with text and a float32 embedding, for index tests.
:param rows => [{id: 'e1', text: 'hello world', embedding: [0.1, 0.2]}];
UNWIND $rows AS row
CREATE (e:Episode {id: row.id, text: row.text})
WITH e, row
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
