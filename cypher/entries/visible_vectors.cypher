// Every entry a viewer can see that admission compares with (active or candidate), with its vector and
// effective confidence at $now: the Admission Gate's exact neighbour scan for a large batch of
// candidates (one read, cosine in memory, instead of a vector-index query per candidate).
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param now => 1700000000000;
:param floor => 0.05;
MATCH (e:Entry)
WHERE e.status IN ['active', 'candidate'] AND e.embedding IS NOT NULL
  AND ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
WITH e,
     CASE WHEN e.half_life_ms IS NULL THEN 1.0
          ELSE exp(-toFloat(CASE WHEN $now > e.last_accessed_at THEN $now - e.last_accessed_at ELSE 0 END)
                   / (e.half_life_ms * CASE WHEN e.strength > 1.0 THEN e.strength ELSE 1.0 END)) END AS retention
RETURN e.id AS id, e.content AS content, e.embedding AS embedding, e.agent_id AS agent_id, e.scope AS scope,
       CASE WHEN e.confidence * retention < $floor THEN $floor ELSE e.confidence * retention END AS effective_confidence
ORDER BY e.id
