// How much each kept vector index has taken in since it was last built (graph/upkeep/vector_indexes.py):
// its vectors now, those written since $episode_since / $entry_since (range index on recorded_at), and the
// newest write (the bulk write is over once it is old enough). Counts come from the count store.
:param episode_since => 0;
:param entry_since => 0;
CALL () { MATCH (n:Episode) RETURN count(n) AS size }
CALL () { MATCH (n:Episode) WHERE n.recorded_at >= $episode_since RETURN count(n) AS written }
CALL () { MATCH (n:Episode) WHERE n.recorded_at IS NOT NULL
          WITH n.recorded_at AS t ORDER BY t DESC LIMIT 1 RETURN collect(t)[0] AS newest }
RETURN 'episode_embedding' AS name, size, written, newest
UNION ALL
CALL () { MATCH (n:Entry) RETURN count(n) AS size }
CALL () { MATCH (n:Entry) WHERE n.recorded_at >= $entry_since RETURN count(n) AS written }
CALL () { MATCH (n:Entry) WHERE n.recorded_at IS NOT NULL
          WITH n.recorded_at AS t ORDER BY t DESC LIMIT 1 RETURN collect(t)[0] AS newest }
RETURN 'entry_embedding' AS name, size, written, newest
