// Tests: every console session as stored (graph/console_sessions.py).
MATCH (s:ConsoleSession)
RETURN properties(s) AS session
ORDER BY s.valid_from
