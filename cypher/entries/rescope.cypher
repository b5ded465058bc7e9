// An entry's scope set by its owner (graph/knowledge/versions.rescope), after its state was kept as a version in
// the same transaction: the Curator's offer to share it (propagation_proposed) is answered either way.
:param id => 'entry-1';
:param scope => 'shared';
MATCH (e:Entry {id: $id})
SET e.scope = $scope, e.propagation_proposed = null
RETURN e.id AS id
