// A restore writes only into a database that holds no node (and so no relationship).
CALL () { MATCH (n) RETURN count(n) AS nodes }
RETURN nodes
