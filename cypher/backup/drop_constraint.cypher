// A constraint of an empty database that the backup does not hold as it is (restore: the schema becomes the backup's).
:param name => 'entry_id';
DROP CONSTRAINT $name IF EXISTS
