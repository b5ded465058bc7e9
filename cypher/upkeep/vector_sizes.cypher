// Each kept vector index's vectors now (the count store) and its newest write (the recorded_at range index,
// read backwards, one entry): cheap enough for every look (graph/upkeep/vector_indexes.py).
CALL () { MATCH (n:Episode) RETURN count(n) AS size }
CALL () { MATCH (n:Episode) WHERE n.recorded_at IS NOT NULL
          WITH n.recorded_at AS t ORDER BY t DESC LIMIT 1 RETURN collect(t)[0] AS newest }
RETURN 'episode_embedding' AS name, size, newest
UNION ALL
CALL () { MATCH (n:Entry) RETURN count(n) AS size }
CALL () { MATCH (n:Entry) WHERE n.recorded_at IS NOT NULL
          WITH n.recorded_at AS t ORDER BY t DESC LIMIT 1 RETURN collect(t)[0] AS newest }
RETURN 'entry_embedding' AS name, size, newest
