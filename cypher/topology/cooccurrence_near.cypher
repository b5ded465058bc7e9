// The counted episodes near new ones (graph/topology/cooccurrence_counts.py): for each range of blocks of one
// partition and chain ($ranges: scope, agent_id for a private partition, clade for a shared one, chain, lo, hi),
// the episodes at or before the watermark that feed an inference (as cooccurrence_new's `feeds`), with the
// protocols they mention. A seek on the block index.
:param kinds => ['Contract', 'Pool', 'Oracle', 'Vault', 'Governance', 'Bridge', 'Reserve'];
:param mark_at => 1770000000000;
:param mark_id => 'ep-1';
:param ranges => [{key: 0, scope: 'public', agent_id: '', clade: '', chain: '1', lo: 994, hi: 1006}];
UNWIND $ranges AS r
MATCH (e:Episode) USING INDEX e:Episode(block)
WHERE e.block >= r.lo AND e.block <= r.hi AND e.scope = r.scope
  AND (e.recorded_at < $mark_at OR (e.recorded_at = $mark_at AND e.id <= $mark_id))
  AND (r.scope = 'public' OR (r.scope = 'private' AND e.agent_id = r.agent_id)
       OR (r.scope = 'shared' AND e.clade = r.clade))
  AND coalesce(toString(e.chain), '') = r.chain
  AND e.archived_at IS NULL AND NOT coalesce(e.lifecycle, '') IN ['archived', 'expired']
  AND coalesce(e.sensitivity, '') <> 'confidential'
OPTIONAL MATCH (e)-[:MENTIONS]->(en:Entity)
WHERE any(l IN labels(en) WHERE l IN $kinds)
WITH r, e, collect(DISTINCT en.id) AS protocols
RETURN r.key AS key, e.id AS id, e.block AS block, protocols
