// A main agent's trust in one of its sub-agents (section 13.4): proposals at or above this confidence are
// committed at once (null: every proposal waits for review). Returns the setting before.
:param main => 'main-agent';
:param sub => 'researcher';
:param at => 'high';
MATCH (s:Agent {id: $sub})
WHERE s.parent_id = $main AND s.kind = 'sub'
WITH s, s.auto_commit_at AS before
SET s.auto_commit_at = $at
RETURN before
