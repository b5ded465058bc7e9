"""Grimoire inside the agent frameworks, each an optional extra of the client: LangGraph's store
(`pip install grimoire-client[langgraph]`, integrations/langgraph.py) and LangChain's retriever
(`[langchain]`, integrations/langchain.py). Each speaks to the service through the typed client and its normal
routes only, so the service's visibility, audit and rollback hold for what the framework writes."""
