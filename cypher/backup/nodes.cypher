// Every node, streamed (the driver pulls it in batches): labels and all properties. elementId only joins the
// relationships read next in the same transaction; the backup file numbers the nodes instead.
MATCH (n)
RETURN elementId(n) AS element, labels(n) AS labels, properties(n) AS properties
