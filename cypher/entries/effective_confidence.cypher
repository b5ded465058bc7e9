// Effective confidence of entries at $now (the decay formula, as in graph/knowledge/decay.py):
//   retention = exp(-(now - last_accessed_at) / (half_life_ms * strength)), 1 when half_life_ms is null
//   effective = max(floor, confidence * retention)
:param ids => [];
:param now => 1700000000000;
:param floor => 0.05;
UNWIND $ids AS id
MATCH (e:Entry {id: id})
WITH e,
     CASE WHEN e.half_life_ms IS NULL THEN 1.0
          ELSE exp(-toFloat(CASE WHEN $now > e.last_accessed_at THEN $now - e.last_accessed_at ELSE 0 END)
                   / (e.half_life_ms * CASE WHEN e.strength > 1.0 THEN e.strength ELSE 1.0 END)) END AS retention
RETURN e.id AS id, retention,
       CASE WHEN e.confidence * retention < $floor THEN $floor ELSE e.confidence * retention END AS effective_confidence
