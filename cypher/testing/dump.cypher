// Every node and relationship with its labels and properties (audit records, events, keys, leases,
// console sessions and the held vectors' counter aside: records of what was done or who holds what,
// not what is known), to compare two databases.
CALL () {
  MATCH (n) WHERE NOT n:AuditRecord AND NOT n:Event AND NOT n:ApiKey AND NOT n:Lease AND NOT n:ConsoleSession
    AND NOT n:VectorEpoch
  RETURN collect({labels: labels(n), props: properties(n)}) AS nodes
}
CALL () {
  MATCH (a)-[r]->(b) WHERE type(r) <> 'KEY_OF'
  RETURN collect({type: type(r), from: a.id, to: b.id, props: properties(r)}) AS relationships
}
RETURN nodes, relationships
