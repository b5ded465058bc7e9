// Episodes whose derived work is still to do (graph/enrichment.py): the oldest $limit of those marked pending
// (a seek on episode_enrichment), with the work each carries: its mentions (JSON) and the episode it follows.
:param limit => 1000;
MATCH (e:Episode)
WHERE e.enrichment = 'pending'
RETURN e.id AS id, e.agent_id AS agent_id, e.pending_mentions AS mentions, e.pending_follows AS follows
ORDER BY e.recorded_at, e.id
LIMIT $limit
