// Node counts by label, and relationship counts by type.
CALL () { MATCH (n) UNWIND labels(n) AS label RETURN collect(label) AS labels }
CALL () { MATCH ()-[r]->() RETURN collect(type(r)) AS types }
RETURN labels, types
