// Crystals written before their payload was kept (no content hash), a batch of one label at a time: their id
// and text (an entry's content, an episode's or memory's text) and the source (MemorySource) their kind has.
:param label => 'Entry';
:param batch => 1000;
CALL () {
  MATCH (n:Episode) WHERE $label = 'Episode' AND n.content_hash IS NULL RETURN n LIMIT $batch
  UNION
  MATCH (n:Memory) WHERE $label = 'Memory' AND n.content_hash IS NULL RETURN n LIMIT $batch
  UNION
  MATCH (n:Entry) WHERE $label = 'Entry' AND n.content_hash IS NULL RETURN n LIMIT $batch
}
RETURN n.id AS id, coalesce(n.content, n.text, '') AS text,
       CASE WHEN n:Skill THEN 'skills' WHEN n:Entry OR n:Memory THEN 'memory' ELSE 'sessions' END AS source
