// Consequences (forward) or causes (backward) of an entry up to $depth hops (at most 3). Each
// reached entry is scored by its best path: the product over its links of weight times recency
// (exp(-ln 2 * age / half-life), age since the link was last updated).
:param id => 'e1';
:param direction => 'forward';
:param depth => 3;
:param now => 1700000000000;
:param half_life_ms => 1209600000;
:param admin => true;
:param viewer => '';
:param clade => '';
MATCH (start:Entry {id: $id})
MATCH p = (start)((a)-[r:CAUSES]-(b:Entry)
    WHERE (($direction = 'forward' AND startNode(r) = a) OR ($direction = 'backward' AND endNode(r) = a))
      AND ($admin OR r.agent_id = $viewer OR r.scope = 'public' OR (r.scope = 'shared' AND r.clade = $clade))
      AND ($admin OR b.agent_id = $viewer OR b.scope = 'public' OR (b.scope = 'shared' AND b.clade = $clade))
  ){1,3}(x:Entry)
WHERE x <> start AND length(p) <= $depth
WITH x, p, reduce(s = 1.0, r IN relationships(p) |
       s * r.weight * exp(-0.6931471805599453 * toFloat(CASE WHEN $now > r.updated_at THEN $now - r.updated_at ELSE 0 END)
                          / $half_life_ms)) AS score
ORDER BY score DESC, length(p)
WITH x, collect({score: score, depth: length(p), path: [n IN nodes(p) | n.id],
                 links: [r IN relationships(p) | r.id]})[0] AS best
RETURN x.id AS id, x.category AS category, x.content AS content, best.score AS score, best.depth AS depth,
       best.path AS path, best.links AS links
ORDER BY score DESC, id
