// The indexes a constraint does not own (those come back with their constraint), each with the statement that
// creates it again (a vector index's dimension, similarity and quantization included).
SHOW INDEXES YIELD name, type, createStatement, owningConstraint
WHERE owningConstraint IS NULL
RETURN name, type, createStatement AS statement
ORDER BY name
