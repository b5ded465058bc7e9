// The nodes a rollback works on (graph/audit/rollback.py), found by base label and id and locked, with their
// element ids for the statements after it in the same transaction. One branch per label (the labels of
// graph/audit/revert.py's NodeLabel): a label given as a parameter would scan every node instead of seeking.
:param refs => [{label: 'Memory', id: 'mem-1'}];
UNWIND $refs AS ref
CALL (ref) {
  MATCH (n:Agent {id: ref.id}) WHERE ref.label = 'Agent' RETURN n
  UNION
  MATCH (n:ApiKey {id: ref.id}) WHERE ref.label = 'ApiKey' RETURN n
  UNION
  MATCH (n:Episode {id: ref.id}) WHERE ref.label = 'Episode' RETURN n
  UNION
  MATCH (n:Entry {id: ref.id}) WHERE ref.label = 'Entry' RETURN n
  UNION
  MATCH (n:Entity {id: ref.id}) WHERE ref.label = 'Entity' RETURN n
  UNION
  MATCH (n:AdmissionDecision {id: ref.id}) WHERE ref.label = 'AdmissionDecision' RETURN n
  UNION
  MATCH (n:AnalysisRun {id: ref.id}) WHERE ref.label = 'AnalysisRun' RETURN n
  UNION
  MATCH (n:RetrievalWeights {id: ref.id}) WHERE ref.label = 'RetrievalWeights' RETURN n
  UNION
  MATCH (n:Reflection {id: ref.id}) WHERE ref.label = 'Reflection' RETURN n
  UNION
  MATCH (n:Delta {id: ref.id}) WHERE ref.label = 'Delta' RETURN n
  UNION
  MATCH (n:CuratorCycle {id: ref.id}) WHERE ref.label = 'CuratorCycle' RETURN n
  UNION
  MATCH (n:CuratorOperation {id: ref.id}) WHERE ref.label = 'CuratorOperation' RETURN n
  UNION
  MATCH (n:StrategyCounter {id: ref.id}) WHERE ref.label = 'StrategyCounter' RETURN n
  UNION
  MATCH (n:EntryVersion {id: ref.id}) WHERE ref.label = 'EntryVersion' RETURN n
  UNION
  MATCH (n:CoreBlock {id: ref.id}) WHERE ref.label = 'CoreBlock' RETURN n
  UNION
  MATCH (n:CoreBlockVersion {id: ref.id}) WHERE ref.label = 'CoreBlockVersion' RETURN n
  UNION
  MATCH (n:WorkspaceFile {id: ref.id}) WHERE ref.label = 'WorkspaceFile' RETURN n
  UNION
  MATCH (n:Memory {id: ref.id}) WHERE ref.label = 'Memory' RETURN n
  UNION
  MATCH (n:MemoryReflection {id: ref.id}) WHERE ref.label = 'MemoryReflection' RETURN n
  UNION
  MATCH (n:Alert {id: ref.id}) WHERE ref.label = 'Alert' RETURN n
  UNION
  MATCH (n:MemoryProposal {id: ref.id}) WHERE ref.label = 'MemoryProposal' RETURN n
  UNION
  MATCH (n:Version {id: ref.id}) WHERE ref.label = 'Version' RETURN n
  UNION
  MATCH (n:AuditRecord {id: ref.id}) WHERE ref.label = 'AuditRecord' RETURN n
  UNION
  MATCH (n:ContextPolicy {id: ref.id}) WHERE ref.label = 'ContextPolicy' RETURN n
  UNION
  MATCH (n:ContextPolicyRevision {id: ref.id}) WHERE ref.label = 'ContextPolicyRevision' RETURN n
  UNION
  MATCH (n:ManagementNode {id: ref.id}) WHERE ref.label = 'ManagementNode' RETURN n
  UNION
  MATCH (n:Bounty {id: ref.id}) WHERE ref.label = 'Bounty' RETURN n
}
WITH DISTINCT ref, n
WITH collect([ref, n]) AS found
CALL apoc.lock.nodes([x IN found | x[1]])
UNWIND found AS x
RETURN x[0].label AS label, x[0].id AS id, elementId(x[1]) AS eid
