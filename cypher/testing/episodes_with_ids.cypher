// Which of these episode ids are in the graph (tests/integration/test_faults_under_load.py: nothing acknowledged lost).
:param ids => ['ep-1'];
MATCH (e:Episode) WHERE e.id IN $ids
RETURN DISTINCT e.id AS id
