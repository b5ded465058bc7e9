// The constraints, each with the statement that creates it again.
SHOW CONSTRAINTS YIELD name, type, createStatement
RETURN name, type, createStatement AS statement
ORDER BY name
