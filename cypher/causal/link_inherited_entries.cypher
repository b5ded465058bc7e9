// Each inherited entry points at the predecessor's original, when it is still stored.
:param rows => [{copy: 'heir:e1', original: 'e1'}];
UNWIND $rows AS row
MATCH (c:Entry {id: row.copy}), (o:Entry {id: row.original})
MERGE (c)-[r:INHERITED_FROM]->(o)
RETURN count(r) AS linked
