// Every access record (graph/audit/access.py), oldest first, for tests.
MATCH (a:AccessRecord)
RETURN a {.*} AS record
ORDER BY a.at, a.id
