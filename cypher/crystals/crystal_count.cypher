// How many crystals a consolidation run would score (episodes and entries, from the count store): below the
// single-transaction setting the run is one transaction, above it pages.
CALL () { MATCH (c:Episode) RETURN count(c) AS episodes }
CALL () { MATCH (c:Entry) RETURN count(c) AS entries }
RETURN episodes + entries AS crystals
