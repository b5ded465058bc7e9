"""Response models of the API, one module per router."""
