// Crystals written before their payload was kept (no content hash), a batch of one label at a time, in id order after
// $after (the last id of the batch before): their id and text (an entry's content, an episode's or memory's text)
// and the source (MemorySource) their kind has. The id's uniqueness index walks each label once over all the batches
// (a scan from the start for each batch would read the crystals already given a hash again: quadratic in a large
// store, whose start-up it would hold).
:param label => 'Entry';
:param after => '';
:param batch => 1000;
CALL () {
  WITH 1 AS only WHERE $label = 'Episode'  // the other labels' branches end here, before their index
  MATCH (n:Episode) WHERE n.id > $after AND n.content_hash IS NULL
  RETURN n ORDER BY n.id LIMIT $batch
  UNION
  WITH 1 AS only WHERE $label = 'Memory'  // the other labels' branches end here, before their index
  MATCH (n:Memory) WHERE n.id > $after AND n.content_hash IS NULL
  RETURN n ORDER BY n.id LIMIT $batch
  UNION
  WITH 1 AS only WHERE $label = 'Entry'  // the other labels' branches end here, before their index
  MATCH (n:Entry) WHERE n.id > $after AND n.content_hash IS NULL
  RETURN n ORDER BY n.id LIMIT $batch
}
RETURN n.id AS id, coalesce(n.content, n.text, '') AS text,
       CASE WHEN n:Skill THEN 'skills' WHEN n:Entry OR n:Memory THEN 'memory' ELSE 'sessions' END AS source
