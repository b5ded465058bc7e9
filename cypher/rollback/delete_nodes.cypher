// A rollback removes what a change created: these nodes (element ids, cypher/rollback/locate.cypher) with
// their relationships.
:param eids => [];
UNWIND $eids AS eid
MATCH (n) WHERE elementId(n) = eid
DETACH DELETE n
RETURN count(*) AS deleted
