// The claims PROMOTE checks for consistency (graph/learning/consistency.py): each entry's content, its quality
// score and consistency, and the digest of the content its consistency was measured on (none: not measured yet).
:param agent_id => 'golem-1';
:param ids => ['e-1'];
MATCH (e:Entry {agent_id: $agent_id})
WHERE e.id IN $ids
RETURN e.id AS id, e.content AS content, e.quality_score AS quality_score,
       e.quality_consistency AS quality_consistency, e.quality_consistency_of AS quality_consistency_of,
       e.promotion_held AS promotion_held
