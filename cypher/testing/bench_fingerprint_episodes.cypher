// What a Curator cycle changes on episodes (bench/curator.py's reset check).
:param agent_id => 'bench-agent';
MATCH (ep:Episode {agent_id: $agent_id})
RETURN ep.id AS id, ep.consolidated AS consolidated, ep.consolidated_in AS consolidated_in,
       ep.causal_checked_in AS causal_checked_in
ORDER BY ep.id
