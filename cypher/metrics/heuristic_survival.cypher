// Heuristic survival: of the Heuristic entries the agent's Curator promoted (PROMOTE operations, in
// cycles whose tick is at least $min_ticks before the agent's latest episode tick), the share still
// active. Operations carry no tick: the cycle's (IN_CYCLE) is theirs. Null without such promotions.
:param agent_id => 'golem-1';
:param min_ticks => 100;
CALL () {
  MATCH (ep:Episode {agent_id: $agent_id})
  RETURN max(ep.tick) AS latest_tick
}
CALL (latest_tick) {
  MATCH (o:CuratorOperation {agent_id: $agent_id})-[:ON]->(e:Entry),
        (o)-[:IN_CYCLE]->(c:CuratorCycle)
  WHERE o.op = 'PROMOTE' AND e.category = 'Heuristic' AND c.tick <= latest_tick - $min_ticks
  WITH DISTINCT e
  RETURN count(e) AS promoted, count(CASE WHEN e.status = 'active' THEN 1 END) AS surviving
}
RETURN CASE WHEN promoted = 0 THEN null ELSE toFloat(surviving) / promoted END AS value,
       {promoted: promoted, surviving: surviving, latest_tick: latest_tick} AS detail
