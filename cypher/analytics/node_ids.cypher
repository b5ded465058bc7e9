// Our ids (and kind, name) of the nodes a GDS algorithm streamed back by GDS node id.
:param node_ids => [0, 1];
UNWIND $node_ids AS node_id
WITH node_id, gds.util.asNode(node_id) AS n
WHERE n IS NOT NULL
RETURN node_id, n.id AS id, coalesce(n.kind, n.category) AS kind, coalesce(n.name, left(n.content, 80)) AS name
