// Anti-rumination: visible entries whose emotional valence (PAD pleasure) is opposite to the
// current mood's, most similar to the query first: contrarian.cypher for a key with the admin scope,
// which sees every entry.
:param embedding => [];
:param pleasure => -0.5;
:param n => 2;
:param exclude => [];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => true;
MATCH (e:Entry) WHERE $admin
WITH e
WHERE e.status IN ['active', 'candidate'] AND e.pad IS NOT NULL AND e.pad[0] * $pleasure < 0
  AND NOT e.id IN $exclude
  AND ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
RETURN e.id AS id, vector.similarity.cosine(e.embedding, $embedding) * 2 - 1 AS score
ORDER BY score DESC
LIMIT $n
