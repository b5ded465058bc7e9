// EDIT: refine an entry's content and conditions, keeping the earlier version. The version closes
// (valid_until, recorded_until) when the refinement begins; the entry carries the new text, its new
// embedding and a higher revision. Guarded by the expected revision, so a repeated edit changes nothing.
:param id => 'entry-1';
:param revision => 1;
:param changes => {content: 'refined'};
:param embedding => [];
:param now => 1700000000000;
:param reason => 'conditions refined';
MATCH (e:Entry {id: $id})
WHERE coalesce(e.revision, 1) = $revision
CREATE (v:EntryVersion {id: e.id + ':r' + toString($revision)})
SET v.entry_id = e.id, v.revision = $revision, v.content = e.content, v.market_regime = e.market_regime,
    v.tags = e.tags, v.confidence = e.confidence, v.valid_from = coalesce(e.revised_at, e.recorded_at),
    v.valid_until = $now, v.recorded_at = coalesce(e.revised_at, e.recorded_at), v.recorded_until = $now,
    v.reason = $reason, v.agent_id = e.agent_id, v.scope = e.scope, v.clade = e.clade
MERGE (e)-[:PREVIOUS_VERSION]->(v)
SET e += $changes, e.revision = $revision + 1, e.revised_at = $now
WITH e, v
CALL db.create.setNodeVectorProperty(e, 'embedding', $embedding)
RETURN e.id AS id, v.id AS version_id
