// Weakly connected components of the topology, largest first. After project_topology.cypher; then drop.cypher.
:param graph_name => 'grimoire-topology-example';
CALL gds.wcc.stream($graph_name)
YIELD nodeId, componentId
WITH componentId, count(*) AS size, collect(gds.util.asNode(nodeId).name)[..5] AS some_members
RETURN componentId, size, some_members
ORDER BY size DESC, componentId
LIMIT 20
