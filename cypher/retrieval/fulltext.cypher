// BM25 candidates over episodes and entries, with the same filters as vector.cypher. $query: the
// escaped words over the text fields, with the caller's scope required of each hit when it narrows
// (graph/db/lucene.py `scoped`, `scope_clauses`); the rule below still decides.
// $memories: agent memories only (:Episode:Memory, agent-memory recall's keyword search:
// graph/retrieval/lookup.py).
:param query => '+(text:(oracle) content:(oracle)) +(agent_id:"golem-1" scope:public (+scope:shared +clade:"clade-a"))^0';
:param top => 20;
:param candidates => 200;
:param labels => ['Episode', 'Entry'];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param categories => null;
:param statuses => ['active', 'candidate'];
:param regimes => null;
:param valid_at => null;
:param known_as_of => null;
:param levels => null;
:param agent_id => null;
:param memories => false;
CALL (){
  WITH 1 AS one WHERE 'Episode' IN $labels
  CALL db.index.fulltext.queryNodes('episode_search', $query, {limit: $candidates}) YIELD node AS n, score
  RETURN n, score
  UNION ALL
  WITH 1 AS one WHERE 'Entry' IN $labels
  CALL db.index.fulltext.queryNodes('entry_search', $query, {limit: $candidates}) YIELD node AS n, score
  RETURN n, score
}
WITH n, score
WHERE ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND (NOT $memories OR n:Memory)
  AND (n:Episode OR ((n.status IN $statuses) AND ($categories IS NULL OR n.category IN $categories)))
  AND ($regimes IS NULL OR coalesce(n.regime, n.market_regime) IN $regimes)
  AND ($valid_at IS NULL OR (n.valid_from <= $valid_at AND (n.valid_until IS NULL OR n.valid_until > $valid_at)))
  AND ($known_as_of IS NULL OR n.recorded_at <= $known_as_of)
  AND ($levels IS NULL OR coalesce(n.level, 0) IN $levels)
WITH n, score
ORDER BY score DESC
LIMIT $top
RETURN n.id AS id, score, CASE WHEN n:Entry THEN 'entry' ELSE 'episode' END AS kind, n {.id, .text, .content, .category, .status, .agent_id, .valid_from, .recorded_at, .block, .last_accessed_at, .confidence, .half_life_ms, .strength, .quality_score, .importance, .regime, .market_regime, .pad, .is_bloodstain, .epistemic_layer, .priority, .bounty_priority_boost, .gain, .scope, .clade, .level, .interrupted} AS item
