// A small web of pages, for checking GDS.
:param links => [['home', 'about'], ['about', 'home']];
UNWIND $links AS link
MERGE (a:Page {name: link[0]})
MERGE (b:Page {name: link[1]})
MERGE (a)-[:LINKS]->(b)
