// Overwrites the scope of an entry's kept versions (tests only: a history in which the entry was narrower then).
:param entry_id => 'entry-1';
:param scope => 'private';
MATCH (:Entry {id: $entry_id})-[:PREVIOUS_VERSION]->(v:EntryVersion)
SET v.scope = $scope
RETURN count(v) AS versions
