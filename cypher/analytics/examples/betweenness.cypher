// Brokers: what the most dependency paths run through. After project_topology.cypher; then drop.cypher.
:param graph_name => 'grimoire-topology-example';
CALL gds.betweenness.stream($graph_name)
YIELD nodeId, score
WITH gds.util.asNode(nodeId) AS n, score
WHERE score > 0
RETURN n.id AS id, n.kind AS kind, n.name AS name, score
ORDER BY score DESC, id
LIMIT 20
