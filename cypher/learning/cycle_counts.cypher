// How many operations of each kind a cycle performed (read back from the stored operations, so a
// resumed cycle counts what its interrupted run did too).
:param cycle_id => 'golem-1:cycle:1';
MATCH (o:CuratorOperation {cycle_id: $cycle_id})
RETURN o.op AS op, o.category AS category, count(*) AS n
