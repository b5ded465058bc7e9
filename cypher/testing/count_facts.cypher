// How many facts (distinct fact ids) and fact versions (relationships) there are.
MATCH ()-[f]->() WHERE f.fact_id IS NOT NULL
RETURN count(DISTINCT f.fact_id) AS facts, count(f) AS fact_versions
