// How many memories there are (archived ones too), and how many are still Episodes (searchable).
MATCH (m:Memory)
RETURN count(m) AS n, count(CASE WHEN m:Episode THEN 1 END) AS searchable
