"""The audit trail: one record per mutation, written in the mutation's own transaction."""

from graph.audit.records import Audit

__all__ = ["Audit"]
