// Every protocol pair's counts the co-occurrence inference keeps (graph/topology/cooccurrence_counts.py), with its
// partition and chain.
MATCH (p:CoOccurrencePair)
RETURN p.partition_scope AS scope, p.partition_agent AS agent_id, p.partition_clade AS clade,
       p.chain AS chain, p.a AS a, p.b AS b,
       p.count AS count, p.participants AS participants, p.both AS both, p.first_block AS first_block
