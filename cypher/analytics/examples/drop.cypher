// Drop the example projection when done (a projection holds memory until dropped).
:param graph_name => 'grimoire-topology-example';
CALL gds.graph.drop($graph_name, false) YIELD graphName
RETURN graphName AS dropped
