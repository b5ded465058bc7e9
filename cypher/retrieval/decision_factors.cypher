// What a retrieval for a decision saw of each item it returned, stored on its access record (in
// the transaction that writes it, cypher/audit/access.cypher): the mode, and the Generative Agents
// factors of each returned item in the order of `ids`, which the feedback on the decision learns
// the agent's weights from (graph/retrieval/feedback.py).
:param id => 'ac1';
:param mode => 'hybrid';
:param recency => [1.0];
:param importance => [0.25];
:param relevance => [0.6];
MATCH (a:AccessRecord {id: $id})
SET a.mode = $mode, a.ga_recency = $recency, a.ga_importance = $importance, a.ga_relevance = $relevance
RETURN a.id AS id
