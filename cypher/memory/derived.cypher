// Procedures learned only from the given memories (nothing else they were learned from remains): what
// hangs off them alone, deleted with them.
:param agent_id => 'agent-a';
:param ids => ['mem-1'];
MATCH (p:Memory)-[:LEARNED_FROM]->(m:Memory)
WHERE m.id IN $ids AND p.agent_id = $agent_id AND NOT p.id IN $ids
  AND NOT EXISTS { (p)-[:LEARNED_FROM]->(o:Memory) WHERE NOT o.id IN $ids }
RETURN DISTINCT p.id AS id
