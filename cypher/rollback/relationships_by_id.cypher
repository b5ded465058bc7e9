// A rollback's relationship operations (DeleteRelationships, SetRelationshipProperties) on relationships with
// ids of their own: delete them ($properties null) or give them back earlier values.
:param type => 'CUSTOM';
:param ids => [];
:param properties => null;
MATCH ()-[r]->() WHERE type(r) = $type AND r.id IN $ids
CALL (r) {
  WITH r WHERE $properties IS NULL
  DELETE r
  UNION
  WITH r WHERE $properties IS NOT NULL
  SET r += $properties
}
RETURN count(*) AS changed
