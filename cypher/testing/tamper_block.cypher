// Tests only: change a core block's text behind the service's back (as an edit in Neo4j Browser would), to
// check that start-up and session start notice (graph/audit/alerts.py).
:param id => 'agent-a:core:identity';
:param content => '- Name: Mallory';
MATCH (b:CoreBlock {id: $id})
SET b.content = $content
RETURN b.id AS id
