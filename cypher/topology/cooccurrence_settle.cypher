// A pair's counts after its exact check (graph/topology/cooccurrence_counts.py): the numbers of the episodes as
// they are now (an episode archived, erased or narrowed since it was counted no longer counts), and whether its
// fact is inferred (or was there already), so it is not checked again.
:param rows => [{id: 'p-1', count: 3, participants: 6, both: 0, first_block: 1000, inferred: true, mentions: [{id: 'm-1', episodes: 3}]}];
UNWIND $rows AS row
MATCH (p:CoOccurrencePair {id: row.id})
SET p.count = row.count, p.participants = row.participants, p.both = row.both, p.first_block = row.first_block,
    p.inferred = CASE WHEN row.inferred THEN true ELSE null END
WITH row
UNWIND row.mentions AS m
MATCH (n:CoOccurrenceMentions {id: m.id})
SET n.episodes = m.episodes
RETURN count(*) AS settled
