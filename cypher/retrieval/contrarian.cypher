// Anti-rumination: visible entries whose emotional valence (PAD pleasure) is opposite to the
// current mood's, most similar to the query first. The visible entries are gathered through the
// ownership and scope indexes, as in vector_exact.cypher, not by scanning everyone's entries.
:param embedding => [];
:param pleasure => -0.5;
:param n => 2;
:param exclude => [];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
CALL () {
  MATCH (e:Entry) USING INDEX e:Entry(agent_id)
  WHERE e.agent_id = CASE WHEN NOT $admin THEN $viewer END
  RETURN e
  UNION
  MATCH (e:Entry) USING INDEX e:Entry(scope, clade)
  WHERE e.scope = CASE WHEN NOT $admin THEN 'shared' END AND e.clade = $clade
  RETURN e
  UNION
  MATCH (e:Entry) USING INDEX e:Entry(scope)
  WHERE e.scope = CASE WHEN NOT $admin THEN 'public' END
  RETURN e
}
// Every branch is an index seek whose value is null unless the branch applies (by $admin), so no
// plan can run a branch for nothing; a key with the admin scope, which sees every entry, uses
// contrarian_all.cypher. Each branch is one clause of the visibility predicate, so the
// union is what the caller may see:
// ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade)).
WITH e
WHERE e.status IN ['active', 'candidate'] AND e.pad IS NOT NULL AND e.pad[0] * $pleasure < 0
  AND NOT e.id IN $exclude
  AND ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
RETURN e.id AS id, vector.similarity.cosine(e.embedding, $embedding) * 2 - 1 AS score
ORDER BY score DESC
LIMIT $n
