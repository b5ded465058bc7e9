// Drops every projection in the GDS graph catalogue.
CALL gds.graph.list() YIELD graphName
CALL gds.graph.drop(graphName, false) YIELD graphName AS dropped
RETURN count(dropped) AS dropped
