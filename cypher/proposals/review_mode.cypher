// A main agent's review mode for its sub-agents' proposals (moltbot-memory.md 13.4): auto, batch or manual
// (unset: batch, the recommended default). Returns the mode before.
:param main => 'main-agent';
:param mode => 'batch';
MATCH (a:Agent {id: $main})
WHERE a.kind <> 'sub'
WITH a, a.review_mode AS before
SET a.review_mode = $mode
RETURN before
