// How many vectors each kept index took in since it was built (recorded_at range index), counted no further
// than $episode_cap / $entry_cap: past the share that makes it fragmented the exact number changes nothing, and
// a million-episode store is not walked once a minute (graph/upkeep/vector_indexes.py).
:param episode_since => 0;
:param entry_since => 0;
:param episode_cap => 1000;
:param entry_cap => 1000;
CALL () { MATCH (n:Episode) WHERE n.recorded_at >= $episode_since
          WITH n LIMIT $episode_cap RETURN count(n) AS written }
RETURN 'episode_embedding' AS name, written
UNION ALL
CALL () { MATCH (n:Entry) WHERE n.recorded_at >= $entry_since
          WITH n LIMIT $entry_cap RETURN count(n) AS written }
RETURN 'entry_embedding' AS name, written
