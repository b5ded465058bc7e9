// The causal edges within $depth hops (at most 3) of the seed entries, between entries the viewer may see, the
// strongest first: the link's weight times its recency (exp(-ln 2 * age / half-life), age since last updated).
:param seeds => ['e1'];
:param depth => 3;
:param top => 20;
:param now => 1700000000000;
:param half_life_ms => 1209600000;
:param admin => true;
:param viewer => '';
:param clade => '';
UNWIND $seeds AS sid
MATCH (s:Entry {id: sid})
MATCH p = (s)((a)-[r:CAUSES]-(b:Entry)
    WHERE ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
      AND ($admin OR b.agent_id = $viewer OR b.scope = 'public' OR (b.scope = 'shared' AND b.clade = $clade))
  ){1,3}(x:Entry)
WHERE length(p) <= $depth
UNWIND relationships(p) AS link
WITH DISTINCT link AS r
WITH r, startNode(r) AS cause, endNode(r) AS effect,
     coalesce(r.weight, 0.0) * exp(-0.6931471805599453 * toFloat(CASE WHEN $now > coalesce(r.updated_at, $now)
       THEN $now - r.updated_at ELSE 0 END) / $half_life_ms) AS score
ORDER BY score DESC, r.id
LIMIT $top
RETURN r.id AS id, cause.id AS cause, cause.content AS cause_text, effect.id AS effect, effect.content AS effect_text,
       r.weight AS weight, r.confidence AS confidence, r.updated_at AS updated_at, score
