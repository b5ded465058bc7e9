// Assert facts in order. A fact the writer sees already (by fact_id), or whose object the subject
// already holds in a fact the writer sees, changes nothing; what the writer cannot see plays no part.
// Unless the new fact is multi-valued (row.exclusive false: its predicate is one of GRIMOIRE_FACTS
// multi_valued, or it said exclusive: false), each active fact of the same subject and predicate with
// another object is closed at the new fact's valid_from without losing what was believed before (the old version is expired in recorded time,
// expired_at, and a closed copy with valid_to set is recorded beside it) — but only a fact the writer
// owns (or, for the admin and loaders, $world, a world fact), and none wider than the new fact's scope:
// a private assertion never changes what others see.
:param audit_id => 'audit-1';
:param admin => true;
:param viewer => '';
:param clade => '';
:param world => true;
:param rows => [{fact_id: 'fact-1', type: 'ORACLE_DEPENDENCY', name: null, subject: '1:0xreserve', object: '1:0xfeed', value_id: null, value: null, value_type: null, valid_from: 19000000, valid_to: null, recorded_at: 1700000000000, exclusive: true, props: {predicate: 'OracleDependency', confidence: 1.0, approximate: false, scope: 'public', agent_id: 'loader', clade: ''}}];
UNWIND $rows AS row
CALL (row) {
  MATCH (s:Entity {id: row.subject})
  OPTIONAL MATCH (target:Entity {id: row.object})
  WITH s, target, row WHERE row.object IS NULL OR target IS NOT NULL
  CALL (row, target) {
    WITH row, target WHERE target IS NOT NULL
    RETURN target AS o
    UNION
    WITH row WHERE row.object IS NULL
    MERGE (v:Value {id: row.value_id}) ON CREATE SET v.value = row.value, v.value_type = row.value_type
    RETURN v AS o
  }
  OPTIONAL MATCH (s)-[known]->() WHERE known.fact_id = row.fact_id
    AND ($admin OR known.agent_id = $viewer OR known.scope = 'public' OR (known.scope = 'shared' AND known.clade = $clade))
  WITH s, o, row, count(known) AS seen
  OPTIONAL MATCH (s)-[same]->(o)
    WHERE type(same) = row.type AND same.expired_at IS NULL AND coalesce(same.name, '') = coalesce(row.name, '')
      AND same.valid_from <= row.valid_from AND same.valid_to IS NULL
      AND ($admin OR same.agent_id = $viewer OR same.scope = 'public' OR (same.scope = 'shared' AND same.clade = $clade))
  WITH s, o, row, seen, count(same) AS held
  WHERE seen = 0 AND held = 0
  CALL (s, o, row) {
    MATCH (s)-[old]->(prev)
    WHERE row.exclusive AND type(old) = row.type AND old.expired_at IS NULL
      AND coalesce(old.name, '') = coalesce(row.name, '') AND prev <> o
      AND (old.valid_to IS NULL OR old.valid_to > row.valid_from)
      AND (old.agent_id = row.props.agent_id OR ($world AND coalesce(old.world, false)))
      AND CASE coalesce(old.scope, 'private') WHEN 'public' THEN 2 WHEN 'shared' THEN 1 ELSE 0 END
          <= CASE row.props.scope WHEN 'public' THEN 2 WHEN 'shared' THEN 1 ELSE 0 END
    SET old.expired_at = row.recorded_at, old.superseded_by = row.fact_id
    WITH s, old, prev, row WHERE old.valid_from < row.valid_from
    CREATE (s)-[closed:$(type(old))]->(prev)
    SET closed = old {.*, id: old.fact_id + '/v' + toString(old.version + 1), version: old.version + 1,
                      valid_to: row.valid_from, recorded_at: row.recorded_at, expired_at: null,
                      superseded_by: null, closed_by: row.fact_id, audit_id: $audit_id}
    RETURN count(closed) AS closed
  }
  CREATE (s)-[f:$(row.type)]->(o)
  SET f = row.props
  SET f.id = row.fact_id + '/v1', f.fact_id = row.fact_id, f.version = 1, f.name = row.name,
      f.valid_from = row.valid_from, f.valid_to = row.valid_to, f.recorded_at = row.recorded_at,
      f.audit_id = $audit_id
  RETURN f.fact_id AS fact_id, closed
}
RETURN fact_id, closed
