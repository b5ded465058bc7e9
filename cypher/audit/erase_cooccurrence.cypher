// The co-occurrence inference's counts that name an entity an erasure removed (graph/audit/erasure.py): its id is
// erased text, never named again. Nothing is lost: a pair is counted again, exactly, before any fact is made of it
// (graph/topology/cooccurrence_counts.py). The counts are the job's own bookkeeping, few beside the items.
:param entities => ['pool:alpha'];
MATCH (n:CoOccurrencePair|CoOccurrenceMentions)
WHERE n.a IN $entities OR n.b IN $entities OR n.protocol IN $entities
DETACH DELETE n
RETURN count(*) AS deleted
