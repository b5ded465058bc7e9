// Before a change (graph/audit/versions.py): each item's current state kept as an immutable version node,
// chained to the item (PREVIOUS_VERSION) and to the version before it (PREVIOUS), in the change's own
// transaction; the item's version counter moves on. An entry's version is an EntryVersion (its `revision`
// counts), a core block's a CoreBlockVersion (`version`), anything else a Version (`version`). `state` holds
// every property but the embedding (and a key's hash), as JSON, so any version can be shown, compared or restored.
// $states (id -> JSON), when given: the states as they were before a change already made in this transaction
// (an upsert that learns what it changed only after it ran). One branch per label: a label given as a parameter would scan every node instead of seeking the id.
// CYPHER replan=skip: planning the sixteen branches costs Neo4j 0.5-2 s of CPU, and it replans a query every 10 s
// while the counts of its labels drift (every write under load: measured 67-86 ms of Neo4j CPU per episode batch,
// 11-23 without); its plan is unique-constraint seeks, the same at any count.
:param label => 'Memory';
:param ids => ['mem-1'];
:param now => 1770000000000;
:param actor => 'key-1';
:param reason => 'archived';
:param audit_id => 'audit-1';
:param states => null;
CYPHER replan=skip
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Memory {id: id}) WHERE $label = 'Memory' RETURN n
  UNION
  MATCH (n:Entry {id: id}) WHERE $label = 'Entry' RETURN n
  UNION
  MATCH (n:CoreBlock {id: id}) WHERE $label = 'CoreBlock' RETURN n
  UNION
  MATCH (n:WorkspaceFile {id: id}) WHERE $label = 'WorkspaceFile' RETURN n
  UNION
  MATCH (n:Entity {id: id}) WHERE $label = 'Entity' RETURN n
  UNION
  MATCH (n:Agent {id: id}) WHERE $label = 'Agent' RETURN n
  UNION
  MATCH (n:RetrievalWeights {id: id}) WHERE $label = 'RetrievalWeights' RETURN n
  UNION
  MATCH (n:MemoryReflection {id: id}) WHERE $label = 'MemoryReflection' RETURN n
  UNION
  MATCH (n:MemoryProposal {id: id}) WHERE $label = 'MemoryProposal' RETURN n
  UNION
  MATCH (n:ApiKey {id: id}) WHERE $label = 'ApiKey' RETURN n
  UNION
  MATCH (n:Alert {id: id}) WHERE $label = 'Alert' RETURN n
  UNION
  MATCH (n:Episode {id: id}) WHERE $label = 'Episode' RETURN n
  UNION
  MATCH (n:AgentHormones {id: id}) WHERE $label = 'AgentHormones' RETURN n
  UNION
  MATCH (n:NetworkWeather {id: id}) WHERE $label = 'NetworkWeather' RETURN n
  UNION
  MATCH (n:ManagementNode {id: id}) WHERE $label = 'ManagementNode' RETURN n
  UNION
  MATCH (n:Bounty {id: id}) WHERE $label = 'Bounty' RETURN n
}
WITH DISTINCT n
WITH n, CASE WHEN $label = 'Entry' THEN coalesce(n.revision, 1) ELSE coalesce(n.version, 1) END AS k,
     coalesce($states[n.id], apoc.convert.toJson(apoc.map.removeKeys(properties(n), ['embedding', 'hash', 'embedding_procedural',
                                                                         'embedding_causal', 'embedding_entity']))) AS state
WITH n, k, state, n.id + CASE WHEN $label = 'Entry' THEN ':r' ELSE ':v' END + toString(k) AS vid
// A version written before (an item whose counter was moved back from outside the service): kept, not rewritten.
MERGE (v:Version {id: vid})
  ON CREATE SET v.item_id = n.id, v.item_label = $label, v.n = k, v.labels = labels(n), v.state = state,
                v.agent_id = n.agent_id,
                v.valid_from = coalesce(n.changed_at, n.revised_at, n.valid_from, n.recorded_at, n.created_at),
                v.valid_until = $now, v.recorded_at = $now, v.recorded_until = $now,
                v.written_by = coalesce(n.changed_by, n.written_by), v.replaced_by = $actor, v.reason = $reason,
                v.audit_id = $audit_id
FOREACH (_ IN CASE WHEN $label = 'Entry' THEN [1] ELSE [] END |
  SET v:EntryVersion, v.entry_id = n.id, v.revision = k, v.content = n.content, v.market_regime = n.market_regime,
      v.tags = n.tags, v.confidence = n.confidence, v.scope = n.scope, v.clade = n.clade)
FOREACH (_ IN CASE WHEN $label = 'CoreBlock' THEN [1] ELSE [] END |
  SET v:CoreBlockVersion, v.block_id = n.id, v.block = n.block, v.version = k, v.content = n.content,
      v.tokens = n.tokens, v.pinned = n.pinned)
MERGE (n)-[:PREVIOUS_VERSION]->(v)
WITH n, k, v
// The version before, sought by its id (this statement names every version `<item>:v<n>` or `<item>:r<n>`): an item
// changed often (an agent's hormone levels, on every spike) has thousands, and expanding them all took ~0.5 s. Entry
// and core block versions written before versions had one label carry only EntryVersion or CoreBlockVersion.
WITH n, k, v, head(COLLECT {
  WITH n.id + CASE WHEN $label = 'Entry' THEN ':r' ELSE ':v' END + toString(k - 1) AS before_id
  CALL (before_id) {
    MATCH (o:Version {id: before_id}) RETURN o
    UNION
    MATCH (o:EntryVersion {id: before_id}) RETURN o
    UNION
    MATCH (o:CoreBlockVersion {id: before_id}) RETURN o
  }
  RETURN o
}) AS candidate
WITH n, k, v, CASE WHEN candidate IS NOT NULL AND EXISTS { (n)-[:PREVIOUS_VERSION]->(candidate) } THEN candidate END AS older
FOREACH (o IN CASE WHEN older IS NULL THEN [] ELSE [older] END | MERGE (v)-[:PREVIOUS]->(o))
SET n.changed_at = $now, n.changed_by = $actor
FOREACH (_ IN CASE WHEN $label = 'Entry' THEN [1] ELSE [] END | SET n.revision = k + 1, n.revised_at = $now)
FOREACH (_ IN CASE WHEN $label <> 'Entry' THEN [1] ELSE [] END | SET n.version = k + 1)
RETURN n.id AS id, v.id AS before, n.id + CASE WHEN $label = 'Entry' THEN ':r' ELSE ':v' END + toString(k + 1) AS after
