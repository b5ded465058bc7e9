// The key an actor id names (none for the admin key, the command line or a job): its agent and scopes, so
// graph/audit/alerts.py can say in what role a change to a critical item was made (a person's key: manual).
:param id => 'key-1';
MATCH (k:ApiKey {id: $id})
RETURN k.agent_id AS agent_id, k.scopes AS scopes
