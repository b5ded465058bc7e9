// Undo an admission (RevertAdmission, graph/audit/revert.py): its decisions and the entries it wrote go (with
// their relationships); each merge into an existing entry is taken back: one validation less, the tags and
// source episodes (DERIVED_FROM) it added removed.
:param decision_ids => [];
:param created => [];
:param merged => [{entry_id: 'entry-1', added_tags: [], added_episodes: []}];
CALL () {
  MATCH (d:AdmissionDecision) WHERE d.id IN $decision_ids
  DETACH DELETE d
}
CALL () {
  MATCH (e:Entry) WHERE e.id IN $created
  DETACH DELETE e
}
CALL () {
  UNWIND $merged AS x
  MATCH (e:Entry {id: x.entry_id})
  SET e.validated_count = coalesce(e.validated_count, 1) - 1,
      e.tags = [t IN coalesce(e.tags, []) WHERE NOT t IN x.added_tags]
  WITH e, x
  OPTIONAL MATCH (e)-[r:DERIVED_FROM]->(ep:Episode) WHERE ep.id IN x.added_episodes
  DELETE r
}
RETURN size($created) AS entries
