// The episodes recorded since the co-occurrence inference's watermark (graph/topology/cooccurrence_counts.py), a
// page at a time in (recorded_at, id) order, up to $upto (the settled past): a seek on the recorded_at index, not a
// read of every episode. Every episode of the range is returned, so the watermark passes those that feed nothing
// too; `feeds` says which can feed an inference (a live episode with a block, not confidential: archived and
// expired ones feed nothing, confidential ones' text stays with their owner), `pending` which still owe their
// mentions (graph/enrichment.py): the watermark stops before the first of those.
:param kinds => ['Contract', 'Pool', 'Oracle', 'Vault', 'Governance', 'Bridge', 'Reserve'];
:param after_at => -1;
:param after_id => '';
:param upto => 1770000000000;
:param limit => 1000;
MATCH (e:Episode) USING INDEX e:Episode(recorded_at)
WHERE e.recorded_at >= $after_at AND e.recorded_at <= $upto AND (e.recorded_at > $after_at OR e.id > $after_id)
WITH e ORDER BY e.recorded_at, e.id LIMIT $limit
OPTIONAL MATCH (e)-[:MENTIONS]->(en:Entity)
WHERE any(l IN labels(en) WHERE l IN $kinds)
WITH e, collect(DISTINCT en.id) AS protocols
RETURN e.id AS id, e.recorded_at AS recorded_at, coalesce(e.enrichment, '') = 'pending' AS pending,
       (e.block IS NOT NULL AND e.scope IN ['private', 'shared', 'public'] AND e.archived_at IS NULL
        AND NOT coalesce(e.lifecycle, '') IN ['archived', 'expired']
        AND coalesce(e.sensitivity, '') <> 'confidential') AS feeds,
       e.scope AS scope, e.agent_id AS agent_id, e.clade AS clade, coalesce(toString(e.chain), '') AS chain,
       e.block AS block, protocols
ORDER BY recorded_at, id
