// An agent's causal graph projected into the GDS catalogue: its visible entries linked by CAUSES,
// cause -> effect, with the link's weight (share of confirmations) and a cost (1 / weight).
:param graph_name => 'grimoire-causal-example';
:param agent_id => 'golem-1';
:param undirected => [];
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (a:Entry)-[c:CAUSES]->(b:Entry)
WHERE c.agent_id = $agent_id
  AND all(n IN [a, b] WHERE $admin OR n.agent_id = $viewer OR n.scope = 'public'
                            OR (n.scope = 'shared' AND n.clade = $clade))
WITH a, b, coalesce(c.weight, 1.0) AS weight
RETURN gds.graph.project($graph_name, a, b, {
  relationshipType: 'CAUSES',
  relationshipProperties: {weight: weight, cost: 1.0 / CASE WHEN weight > 0.01 THEN weight ELSE 0.01 END}
}, {undirectedRelationshipTypes: $undirected}) AS projection
