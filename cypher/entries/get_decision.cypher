// One admission decision with its factor scores.
:param id => 'decision-1';
MATCH (a:AdmissionDecision {id: $id})
RETURN properties(a) AS decision
