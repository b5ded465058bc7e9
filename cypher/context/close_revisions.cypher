// Before a new revision of an agent's context policy (graph/context/policy.py), under the agent's lock: the
// revisions still open closed at $now (superseded: closed, never overwritten), their ids returned, and the
// highest revision number written so far (0: none), without reading the policies the revisions hold.
:param agent_id => 'agent-a';
:param now => 1770000000000;
OPTIONAL MATCH (r:ContextPolicyRevision {agent_id: $agent_id})
WITH max(r.revision) AS last, collect(CASE WHEN r.valid_until IS NULL THEN r END) AS open
FOREACH (o IN open | SET o.valid_until = $now)
RETURN coalesce(last, 0) AS last, [o IN open | o.id] AS closed
