// Names of nodes by their GDS node ids.
:param ids => [0, 1];
UNWIND $ids AS id
RETURN id AS nodeId, gds.util.asNode(id).name AS name
