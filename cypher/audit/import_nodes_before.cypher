// Before an import (cypher/transfer/import_nodes.cypher) replaces nodes' properties: those of one base
// label (from the project's enum) that exist already, locked, with their properties (embeddings apart),
// so that the import's audit record holds what undoes it. One branch per base label: a label given
// as a parameter ($($label)) would scan every node instead of seeking the id.
:param label => 'Episode';
:param ids => ['ep-1'];
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Agent {id: id}) WHERE $label = 'Agent' RETURN n
  UNION
  MATCH (n:Episode {id: id}) WHERE $label = 'Episode' RETURN n
  UNION
  MATCH (n:Entry {id: id}) WHERE $label = 'Entry' RETURN n
  UNION
  MATCH (n:Entity {id: id}) WHERE $label = 'Entity' RETURN n
  UNION
  MATCH (n:AdmissionDecision {id: id}) WHERE $label = 'AdmissionDecision' RETURN n
}
WITH DISTINCT n ORDER BY n.id
WITH collect(n) AS nodes
CALL apoc.lock.nodes(nodes)
UNWIND nodes AS n
RETURN n.id AS id, apoc.map.removeKey(properties(n), 'embedding') AS props
