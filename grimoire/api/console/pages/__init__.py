"""The console's pages, one module each; common.py holds what they share."""

from grimoire.api.console.pages import approvals, audit, graph, knowledge, memory, overview, signin

ROUTERS = [module.router for module in (signin, overview, knowledge, memory, approvals, audit, graph)]
