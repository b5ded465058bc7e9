// Document frequencies for the term-overlap rerank (graph/retrieval/term_overlap.py): for each
// query term, how many items the viewer may see (of $labels, the agent filter applied) hold it,
// counted through the full-text indexes (their English analyzer stems the term as it stemmed the
// texts), at most $cap hits per index and term. A term no visible item holds has no row.
// $terms: each term escaped and scoped as fulltext.cypher's $query (graph/db/lucene.py `scoped`).
:param terms => ['steth', 'depeg'];
:param cap => 1000;
:param labels => ['Episode', 'Entry'];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param agent_id => null;
UNWIND $terms AS term
CALL (term) {
  WITH term WHERE 'Episode' IN $labels
  CALL db.index.fulltext.queryNodes('episode_search', term, {limit: $cap}) YIELD node AS n
  RETURN n
  UNION ALL
  WITH term WHERE 'Entry' IN $labels
  CALL db.index.fulltext.queryNodes('entry_search', term, {limit: $cap}) YIELD node AS n
  RETURN n
}
WITH term, n
WHERE ($admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade))
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
RETURN term, count(n) AS df
