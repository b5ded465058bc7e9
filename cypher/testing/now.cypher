// The server's clock in ms, for tests that look back to "just before".
RETURN timestamp() AS now
