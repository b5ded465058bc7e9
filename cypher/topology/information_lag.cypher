// Information lag (spec: Bi-Temporal Knowledge Graph): how long after a governance execution
// changed an oracle the change was recorded, per market, from facts whose valid time is the
// block of a matched execution (an Aave governance episode at that block).
:param since_block => 0;
MATCH (r:Reserve)-[f:ORACLE_DEPENDENCY]->()
WHERE NOT f.approximate AND f.version = 1 AND f.valid_from >= $since_block
MATCH (ep:Episode {block: f.valid_from}) WHERE ep.tool = 'aave-governance-v3'
WITH split(r.name, ' ')[0] AS market, (f.recorded_at - ep.valid_from) / 3600000.0 AS lag_hours
RETURN market, count(*) AS changes, round(avg(lag_hours), 1) AS mean_lag_hours,
       round(min(lag_hours), 1) AS min_lag_hours, round(max(lag_hours), 1) AS max_lag_hours
ORDER BY changes DESC
