// The core mental models the viewer may see (they are public: every caller), by their fixed ids, with
// their effective confidence at $now (structural: no decay, so their stored confidence).
:param ids => ['mental-model:first-principles', 'mental-model:inversion'];
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
:param now => 1700000000000;
:param floor => 0.05;
UNWIND $ids AS id
MATCH (e:Entry {id: id})
WHERE ($admin OR e.agent_id = $viewer OR e.scope = 'public' OR (e.scope = 'shared' AND e.clade = $clade))
WITH e,
     CASE WHEN e.half_life_ms IS NULL THEN 1.0
          ELSE exp(-toFloat(CASE WHEN $now > e.last_accessed_at THEN $now - e.last_accessed_at ELSE 0 END)
                   / (e.half_life_ms * CASE WHEN e.strength > 1.0 THEN e.strength ELSE 1.0 END)) END AS retention
RETURN apoc.map.removeKey(properties(e), 'embedding') AS entry,
       CASE WHEN e.confidence * retention < $floor THEN $floor ELSE e.confidence * retention END AS effective_confidence
