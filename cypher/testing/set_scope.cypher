// Narrows or widens items' scope in place (tests only: a scope changed between two reads of one request).
:param ids => ['ep-1'];
:param scope => 'private';
UNWIND $ids AS id
MATCH (n {id: id}) WHERE n:Episode OR n:Entry
SET n.scope = $scope
RETURN count(n) AS items
