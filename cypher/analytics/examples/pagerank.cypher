// Systemic importance in Neo4j Browser: run cypher/analytics/project_topology.cypher first (it
// projects the topology valid at a block under $graph_name), then this, then drop.cypher.
:param graph_name => 'grimoire-topology-example';
CALL gds.pageRank.stream($graph_name, {dampingFactor: 0.85, maxIterations: 20})
YIELD nodeId, score
WITH gds.util.asNode(nodeId) AS n, score
RETURN n.id AS id, n.kind AS kind, n.name AS name, score
ORDER BY score DESC, id
LIMIT 20
