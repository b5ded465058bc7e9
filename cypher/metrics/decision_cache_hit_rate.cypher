// DecisionCache hit rate: of the agent's decisions of the window (ContextDecision by `at`: each a tick that called
// a model — a probe-only T0 turn is never recorded), the share decided on a workspace served from the kept one (the
// context governor's cache, graph/context/preassembly.py) rather than assembled for it: its assembly was built
// ahead (source preassembly), or the decision is not the first on its assembly (a workspace built cold, then
// served again). detail.days: how long ago the agent's first decision was (the rule's 7 and 14 days).
:param agent_id => 'golem-1';
:param now => 1767225600000;
:param window_ms => 604800000;
MATCH (d:ContextDecision {agent_id: $agent_id})
WHERE d.at <= $now
WITH d ORDER BY d.at, d.id
WITH d.assembly_id AS assembly, collect(d) AS ds, min(d.at) AS first
CALL (assembly) {
  OPTIONAL MATCH (a:ContextAssembly {id: assembly})
  RETURN a.source AS source
}
UNWIND range(0, size(ds) - 1) AS i
WITH ds[i] AS d, i, source, first
WITH min(first) AS first,
     count(CASE WHEN d.at > $now - $window_ms THEN 1 END) AS decisions,
     count(CASE WHEN d.at > $now - $window_ms AND (i > 0 OR source = 'preassembly') THEN 1 END) AS cached
RETURN CASE WHEN decisions = 0 THEN null ELSE toFloat(cached) / decisions END AS value,
       {decisions: decisions, from_cache: cached,
        days: CASE WHEN first IS NULL THEN null ELSE toFloat($now - first) / 86400000 END} AS detail
