// The protocol pairs whose counts reach 'consistently' (graph/topology/cooccurrence.py) and whose fact is not
// inferred yet: at least $min_count co-occurring episode pairs, and at least $min_share of the episodes mentioning
// either protocol (mentions of a + of b - both) taking part. The counts are checked exactly before a fact is made.
:param min_count => 3;
:param min_share => 0.5;
MATCH (p:CoOccurrencePair)
WHERE p.count >= $min_count AND p.inferred IS NULL
WITH p, p.partition_scope + '|' + p.partition_agent + '|' + p.partition_clade + '|' + p.chain + '|' AS prefix
MATCH (ma:CoOccurrenceMentions {id: prefix + p.a})
MATCH (mb:CoOccurrenceMentions {id: prefix + p.b})
WITH p, ma, mb, ma.episodes + mb.episodes - p.both AS mentioning
WHERE mentioning > 0 AND toFloat(p.participants) / mentioning >= $min_share
RETURN p.id AS id, p.partition_scope AS scope, p.partition_agent AS agent_id, p.partition_clade AS clade,
       p.chain AS chain, p.a AS a, p.b AS b,
       p.count AS count, p.participants AS participants, p.both AS both, p.first_block AS first_block,
       ma.episodes AS mentions_a, mb.episodes AS mentions_b
ORDER BY id
