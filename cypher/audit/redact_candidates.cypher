// An erasure's redaction (graph/audit/erasure.py): the agent's nodes that may hold a copy of the erased text —
// audit records and their revert images, versions, reflections, proposals, workspaces (any agent's that holds an
// erased item: a shared memory reaches a clade mate's), events, digests,
// decisions, Curator operations, entries and their admission decisions, critical workspace files (USER.md, …) — each with its text properties (strings and lists of strings) when one of
// them holds a needle (lower-cased: the erased texts, the removed entities' names and ids) or names an erased
// item. Python decides what each one keeps (what is a whole word, what is JSON); this only narrows the scan.
:param agent_id => 'agent-a';
:param needles => ['my wallet is 0xabc'];
:param ids => ['mem-1'];
CALL () {
  MATCH (n:AuditRecord) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:Version) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:CoreBlockVersion) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:MemoryReflection) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:MemoryProposal) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:ContextAssembly) WHERE n.agent_id = $agent_id OR any(i IN $ids WHERE n.injected CONTAINS i) RETURN n
  UNION
  MATCH (n:ContextDecision) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:Event) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:AuditDigest) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:CuratorOperation) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:Entry) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:AdmissionDecision) WHERE n.agent_id = $agent_id RETURN n
  UNION
  MATCH (n:WorkspaceFile) WHERE n.agent_id = $agent_id RETURN n
}
WITH n, [k IN keys(n) WHERE valueType(n[k]) STARTS WITH 'STRING' OR valueType(n[k]) STARTS WITH 'LIST<STRING'] AS ks
WITH n, [k IN ks | [k, CASE WHEN valueType(n[k]) STARTS WITH 'LIST' THEN n[k] ELSE [n[k]] END]] AS texts
WHERE any(t IN texts WHERE any(s IN t[1] WHERE any(x IN $needles WHERE toLower(s) CONTAINS x)
                                          OR any(i IN $ids WHERE s CONTAINS i)))
RETURN elementId(n) AS eid, labels(n) AS labels, n.id AS id,
       apoc.map.fromPairs([t IN texts | [t[0], n[t[0]]]]) AS texts
