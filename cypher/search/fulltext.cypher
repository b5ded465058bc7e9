// BM25 matches the viewer may see, best first (the index streams them in score order, so the
// filter and LIMIT stop early). $query must already be escaped (graph/search.py).
:param index => 'episode_text';
:param query => 'oracle';
:param k => 10;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
CALL db.index.fulltext.queryNodes($index, $query) YIELD node AS n, score
WHERE $admin OR n.agent_id = $viewer OR n.scope = 'public' OR (n.scope = 'shared' AND n.clade = $clade)
RETURN n.id AS id, score
LIMIT $k
