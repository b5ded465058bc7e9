// Every agent's id (the backup test exports each).
MATCH (a:Agent)
RETURN a.id AS id
ORDER BY id
