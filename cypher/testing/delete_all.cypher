// Empties the database (keeps constraints and indexes). For tests and `grimoire` resets only.
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
