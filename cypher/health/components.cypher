// The Neo4j kernel's version and edition.
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
