// Threat coverage: of the agent's Tier 1 threats — the warnings it holds (Warning entries, candidate or active,
// its bloodstains among them) — the share rehearsed in the window: read or given to the agent (last_read_at:
// searches, retrievals, workspaces) or retrieved for a decision (access_count > 0 and last_accessed_at, which a
// validation moves too) in the last 7 days, the document's "last 7 dream cycles" (one a day). Null without warnings.
:param agent_id => 'golem-1';
:param now => 1767225600000;
:param window_ms => 604800000;
MATCH (e:Entry {agent_id: $agent_id})
WHERE e.category = 'Warning' AND e.status IN ['candidate', 'active']
  AND NOT coalesce(e.lifecycle, '') IN ['expired', 'archived']
WITH e, $now - $window_ms AS since
WITH count(e) AS threats,
     count(CASE WHEN (e.last_read_at > since AND e.last_read_at <= $now)
                  OR (coalesce(e.access_count, 0) > 0 AND e.last_accessed_at > since AND e.last_accessed_at <= $now)
                THEN 1 END) AS rehearsed,
     count(CASE WHEN e.is_bloodstain THEN 1 END) AS bloodstains
RETURN CASE WHEN threats = 0 THEN null ELSE toFloat(rehearsed) / threats END AS value,
       {threats: threats, rehearsed: rehearsed, bloodstains: bloodstains} AS detail
