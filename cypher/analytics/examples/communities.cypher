// Which protocols cluster together: Louvain communities, largest first, with a few members each.
// After project_topology.cypher (with :param undirected => ['*']); then drop.cypher.
:param graph_name => 'grimoire-topology-example';
CALL gds.louvain.stream($graph_name)
YIELD nodeId, communityId
WITH communityId, collect(gds.util.asNode(nodeId)) AS members
RETURN communityId, size(members) AS size, [m IN members[..8] | coalesce(m.name, m.id)] AS some_members
ORDER BY size DESC, communityId
LIMIT 20
