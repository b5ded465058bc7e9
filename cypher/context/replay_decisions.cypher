// The poor decisions Loop 3 replays under an alternative policy (graph/context/replay.py): what the decision was
// for, what its workspace held per category, what it said it missed, its reasoning (a ReasoningChain's JSON) and
// how it went.
:param ids => ['dec-1'];
MATCH (d:ContextDecision)
WHERE d.id IN $ids
RETURN d.id AS id, d.task AS task, d.phase AS phase, d.regime AS regime, d.injected_tokens AS injected,
       d.missing AS missing, d.outcome_quality AS outcome_quality, d.reasoning AS reasoning
