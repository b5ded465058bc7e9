// The cluster keys whose operations a cycle has recorded: a re-run of the cycle after an interruption
// consolidates what is left of those clusters (a large cluster's episodes are marked in several
// transactions) instead of planning them again from a part.
:param cycle_id => 'golem-1:cycle:1';
:param keys => ['swap|ethereum|ETH/USDC'];
MATCH (c:CuratorCycle {id: $cycle_id})
WITH c, coalesce(c.distilled_keys, []) AS known
SET c.distilled_keys = known + [k IN $keys WHERE NOT k IN known]
