// The causal edges within $depth hops (at most 3) of the seed entries, between entries the viewer may see that
// hold (active or candidate), the strongest first: the link's weight times its recency (exp(-ln 2 * age /
// half-life), age since last updated). Expanded hop by hop from the distinct entries reached, each hop at most
// $fan links, so a hub does not multiply the paths.
:param seeds => ['e1'];
:param depth => 3;
:param top => 20;
:param fan => 200;
:param now => 1700000000000;
:param half_life_ms => 1209600000;
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (s:Entry) WHERE s.id IN $seeds
WITH collect(s) AS f0
CALL (f0) {
  UNWIND f0 AS a
  MATCH (a)-[r:CAUSES]-(b:Entry)
  WHERE $depth >= 1 AND b.status IN ['active', 'candidate']
    AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
    AND ($admin OR b.agent_id = $viewer OR b.scope = 'public' OR (b.scope = 'shared' AND b.clade = $clade))
  WITH r, b LIMIT $fan
  RETURN collect(DISTINCT r) AS r1, collect(DISTINCT b) AS f1
}
CALL (f1) {
  UNWIND f1 AS a
  MATCH (a)-[r:CAUSES]-(b:Entry)
  WHERE $depth >= 2 AND b.status IN ['active', 'candidate']
    AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
    AND ($admin OR b.agent_id = $viewer OR b.scope = 'public' OR (b.scope = 'shared' AND b.clade = $clade))
  WITH r, b LIMIT $fan
  RETURN collect(DISTINCT r) AS r2, collect(DISTINCT b) AS f2
}
CALL (f2) {
  UNWIND f2 AS a
  MATCH (a)-[r:CAUSES]-(b:Entry)
  WHERE $depth >= 3 AND b.status IN ['active', 'candidate']
    AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
    AND ($admin OR b.agent_id = $viewer OR b.scope = 'public' OR (b.scope = 'shared' AND b.clade = $clade))
  WITH r LIMIT $fan
  RETURN collect(DISTINCT r) AS r3
}
UNWIND r1 + r2 + r3 AS r
WITH DISTINCT r
WITH r, startNode(r) AS cause, endNode(r) AS effect,
     coalesce(r.weight, 0.0) * exp(-0.6931471805599453 * toFloat(CASE WHEN $now > coalesce(r.updated_at, $now)
       THEN $now - r.updated_at ELSE 0 END) / $half_life_ms) AS score
ORDER BY score DESC, r.id
LIMIT $top
RETURN r.id AS id, cause.id AS cause, cause.content AS cause_text, effect.id AS effect, effect.content AS effect_text,
       r.weight AS weight, r.confidence AS confidence, r.updated_at AS updated_at, score
