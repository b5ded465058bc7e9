// Every protocol's mentions the co-occurrence inference keeps (graph/topology/cooccurrence_counts.py): how many
// counted episodes of a partition and chain mention it.
MATCH (m:CoOccurrenceMentions)
RETURN m.partition_scope AS scope, m.partition_agent AS agent_id, m.partition_clade AS clade,
       m.chain AS chain, m.protocol AS protocol,
       m.episodes AS episodes
