// Every episode a full co-occurrence count reads (graph/topology/cooccurrence_counts.py `full_count`: what the
// counts kept beside the watermark must equal), a page at a time in id order: each live episode with a block
// that mentions a protocol (an entity of one of $kinds), with its partition (scope, owner, clade), chain and
// block and the protocols it mentions. Archived and
// expired episodes feed nothing, nor confidential ones (their text stays with their owner alone).
:param kinds => ['Contract', 'Pool', 'Oracle', 'Vault', 'Governance', 'Bridge', 'Reserve'];
:param after => '';
:param limit => 1000;
MATCH (e:Episode)
WHERE e.block IS NOT NULL AND e.id > $after AND e.scope IN ['private', 'shared', 'public']
  AND e.archived_at IS NULL AND NOT coalesce(e.lifecycle, '') IN ['archived', 'expired']
  AND coalesce(e.sensitivity, '') <> 'confidential'
WITH e ORDER BY e.id LIMIT $limit
OPTIONAL MATCH (e)-[:MENTIONS]->(en:Entity)
WHERE any(l IN labels(en) WHERE l IN $kinds)
WITH e, collect(DISTINCT en.id) AS protocols
RETURN e.id AS id, e.scope AS scope, e.agent_id AS agent_id, e.clade AS clade, e.chain AS chain,
       e.block AS block, protocols
ORDER BY id
