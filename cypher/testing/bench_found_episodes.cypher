// How many of these episode ids are in the graph (bench/load.py: acknowledged episodes not lost).
:param ids => ['ep-1'];
MATCH (e:Episode) WHERE e.id IN $ids
RETURN count(DISTINCT e.id) AS found
