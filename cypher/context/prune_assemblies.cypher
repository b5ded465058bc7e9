// Workspace records (ContextAssembly) assembled before $before, $batch at a time: kept as long as the access log.
:param before => 1700000000000;
:param batch => 1000;
MATCH (a:ContextAssembly)
WHERE a.at < $before
WITH a LIMIT $batch
DETACH DELETE a
RETURN count(*) AS deleted
