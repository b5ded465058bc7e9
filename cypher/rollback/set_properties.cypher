// A rollback gives nodes back earlier values (null: the property was absent, removed).
:param rows => [{eid: '4:x:1', properties: {confidence: 0.5}}];
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.eid
SET n += row.properties
RETURN count(*) AS changed
