// Agents with episodes recorded after their last Curator cycle's watermark (or with no cycle yet), or whose
// last cycle is still open (its replica died mid-cycle: the sweep resumes it, graph/leases.py), and their
// clade: what a periodic sweep runs cycles for.
MATCH (a:Agent)
OPTIONAL MATCH (c:CuratorCycle {agent_id: a.id})
WHERE c.kind IS NULL  // ExpeL's distillations of one strategy have their own watermark
WITH a, max(c.through) AS through, max(c.seq) AS seq,
     collect(CASE WHEN c.status = 'running' THEN c.seq END) AS open
WHERE seq IN open
   OR EXISTS { MATCH (ep:Episode {agent_id: a.id}) WHERE ep.recorded_at > coalesce(through, -1) }
RETURN a.id AS agent_id, a.clade AS clade
ORDER BY a.id
