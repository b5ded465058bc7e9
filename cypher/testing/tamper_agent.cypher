// Tests only: change an agent's configuration behind the service's back (as an edit in Neo4j Browser would), to
// check that start-up and session start notice (graph/audit/alerts.py).
:param id => 'agent-a';
:param clade => 'clade-elsewhere';
MATCH (a:Agent {id: $id})
SET a.clade = $clade
RETURN a.id AS id
