// The registered agents, whose metrics the daily job records.
MATCH (a:Agent)
RETURN a.id AS id
ORDER BY id
