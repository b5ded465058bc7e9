// How many episodes there are, and how many distinct ids: equal when nothing was written twice.
MATCH (e:Episode)
RETURN count(e) AS episodes, count(DISTINCT e.id) AS distinct_ids
