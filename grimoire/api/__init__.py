"""The thin REST layer (FastAPI) and the command line."""
