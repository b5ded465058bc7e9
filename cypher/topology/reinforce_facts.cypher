// Re-asserting a fact Grimoire already believes reinforces it: every believed version the writer may
// see of the same fact (its fact_id) or of the same statement (subject, predicate, name and object,
// open since no later than the new valid_from) has last_reinforced moved to the new recorded time,
// and its reinforcements counted. A version reinforced (or recorded) less than $min_gap ms before is
// left as it is: a retry or a loader's re-run is not new evidence. Run before topology/assert_facts
// in the same transaction; returns what each version had before, for the audit record.
:param min_gap => 3600000;
:param admin => true;
:param viewer => '';
:param clade => '';
:param rows => [{fact_id: 'fact-1', type: 'ORACLE_DEPENDENCY', name: null, subject: '1:0xreserve', object: '1:0xfeed', value_id: null, valid_from: 19000000, recorded_at: 1700000000000}];
UNWIND $rows AS row
MATCH (en:Entity {id: row.subject})
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
MATCH (en)-[f]->(o)
WHERE f.fact_id IS NOT NULL AND f.expired_at IS NULL
  AND ($admin OR f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade))
  AND (f.fact_id = row.fact_id
       OR (type(f) = row.type AND coalesce(f.name, '') = coalesce(row.name, '') AND f.valid_to IS NULL
           AND f.valid_from <= row.valid_from AND o.id = coalesce(row.object, row.value_id)))
  AND row.recorded_at >= coalesce(f.last_reinforced, f.recorded_at) + $min_gap
WITH row, f, f.last_reinforced AS last_before, f.reinforcements AS count_before
SET f.last_reinforced = row.recorded_at, f.reinforcements = coalesce(f.reinforcements, 0) + 1
RETURN row.fact_id AS asserted, f.fact_id AS fact_id, f.id AS id, type(f) AS type, last_before, count_before
