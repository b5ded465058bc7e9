// Every audit record with what names the change (actor, action, verb) and each item's version before and
// after it, for the test that walks every mutating route (tests/integration/test_audit_routes.py).
MATCH (a:AuditRecord)
RETURN a.id AS id, a.at AS at, a.action AS action, a.verb AS verb, a.actor AS actor, a.agent_id AS agent_id,
       a.target_ids AS target_ids, a.before_versions AS before_versions, a.after_versions AS after_versions,
       a.channel AS channel
ORDER BY a.at, a.id
