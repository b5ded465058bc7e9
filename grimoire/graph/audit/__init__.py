"""The audit trail: one record per mutation, written in the mutation's own transaction, with the typed
operations that revert it (revert.py); and the access log, one record per read that touches access
counters (access.py)."""

from grimoire.graph.audit.access import Access
from grimoire.graph.audit.records import Audit
from grimoire.graph.audit.revert import (
    ArchiveMemories,
    BadRevert,
    DeleteNodes,
    DeleteRelationships,
    Endpoints,
    MergeUndo,
    NodeLabel,
    Noop,
    RelationshipType,
    RemoveProperties,
    RestoreImage,
    RestoreKey,
    RestoreMemories,
    RevertAdmission,
    RevertOp,
    RevokeKey,
    SetProperties,
    SetRelationshipProperties,
    UndoRemember,
    changed,
    dump_revert,
    parse_revert,
)

__all__ = ["Access", "ArchiveMemories", "Audit", "BadRevert", "DeleteNodes", "DeleteRelationships", "Endpoints",
           "MergeUndo",
           "NodeLabel", "Noop", "RelationshipType", "RemoveProperties", "RestoreKey", "RestoreMemories",
           "RestoreImage", "RevertAdmission", "RevertOp", "RevokeKey", "SetProperties", "SetRelationshipProperties",
           "UndoRemember", "changed",
           "dump_revert", "parse_revert"]
