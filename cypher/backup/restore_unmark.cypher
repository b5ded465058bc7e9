// The restore's label and number off a batch of nodes; run until it answers 0.
:param batch => 1000;
MATCH (n:_GrimoireRestore)
WITH n LIMIT $batch
REMOVE n:_GrimoireRestore, n._grimoire_restore_key
RETURN count(n) AS unmarked
