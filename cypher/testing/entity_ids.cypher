// Every entity id, for tests that pick random start points.
MATCH (e:Entity)
RETURN e.id AS id
