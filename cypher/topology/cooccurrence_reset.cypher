// Up to $limit of the co-occurrence inference's counts and its watermark deleted (graph/topology/
// cooccurrence_counts.py): its window or protocol kinds changed, so everything is counted again.
:param limit => 1000;
MATCH (n:CoOccurrencePair|CoOccurrenceMentions|CoOccurrenceMark)
WITH n LIMIT $limit
DELETE n
RETURN count(*) AS deleted
