// An agent's causal graph: its links and the entries at both ends (with their embeddings).
:param agent_id => 'agent-a';
MATCH (a:Entry)-[c:CAUSES]->(b:Entry)
WHERE c.agent_id = $agent_id
RETURN c {.*, cause: a.id, effect: b.id} AS link,
       a {.*, labels: labels(a)} AS cause, b {.*, labels: labels(b)} AS effect
ORDER BY link.id
