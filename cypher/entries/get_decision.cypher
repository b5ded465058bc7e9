// One admission decision with its factor scores; decisions are their agent's own.
:param id => 'decision-1';
:param viewer => 'golem-1';
:param admin => false;
MATCH (a:AdmissionDecision {id: $id})
WHERE $admin OR a.agent_id = $viewer
RETURN properties(a) AS decision
