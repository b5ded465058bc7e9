// An item's kept versions in order, each with the version its PREVIOUS link names (tests only: the chain
// audit/keep_versions.cypher builds).
:param label => 'Agent';
:param id => 'golem-1';
MATCH (n {id: $id})-[:PREVIOUS_VERSION]->(v) WHERE $label IN labels(n)
OPTIONAL MATCH (v)-[:PREVIOUS]->(o)
RETURN v.id AS version, v.n AS n, collect(o.id) AS previous
ORDER BY n
