// Every protocol's mentions the co-occurrence inference keeps (graph/topology/cooccurrence_counts.py): how many
// counted episodes of a partition and chain mention it.
MATCH (m:CoOccurrenceMentions)
RETURN m.scope AS scope, m.agent_id AS agent_id, m.clade AS clade, m.chain AS chain, m.protocol AS protocol,
       m.episodes AS episodes
