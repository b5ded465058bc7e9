// Agents with episodes recorded after their last Curator cycle's watermark (or with no cycle yet),
// and their clade: what a periodic sweep runs cycles for.
MATCH (a:Agent)
OPTIONAL MATCH (c:CuratorCycle {agent_id: a.id})
WITH a, max(c.through) AS through
WHERE EXISTS { MATCH (ep:Episode {agent_id: a.id}) WHERE ep.recorded_at > coalesce(through, -1) }
RETURN a.id AS agent_id, a.clade AS clade
ORDER BY a.id
