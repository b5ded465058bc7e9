:param seconds => 300;
CALL db.awaitIndexes($seconds)
