"""Management nodes and their endorsements (knowledge-crystals.md, "Verification & Bounties (Phase 3)": a crystal's
`isVerified`, "endorsed by a management node's Ed25519 signature", and `verifiedBy`, "Base64 pubkey of the
management node that endorsed this skill").

A management node is a control-plane node: the admin registers its Ed25519 public key (32 bytes, base64) and may
revoke it (its valid time closes; the node is kept). An endorsement is the node's Ed25519 signature over the
crystal's content hash — the 64 hex characters of `content_hash` (sha-256 of the normalised text,
graph/model/crystal/payload.py), signed as ASCII bytes — presented with the node's key id or public key. A good
signature by a registered, unrevoked key sets the crystal's is_verified and verified_by (the key, base64) in one
transaction with its audit record; anything else is a 4xx and writes nothing. Only knowledge crystals (skill,
task_pattern) are endorsable: memory crystals never leave the node (graph/model/crystal/privacy.py).

What verification changes: the marketplace listing says `verified` (graph/crystals/pricing.py), so a buyer sees the
endorsement; it does not move the price or retrieval (the document gives it no effect there). A new version of a
skill is a new text, so it starts unverified (cypher/crystals/new_version.cypher). Revoking a key stops new
endorsements by it; those it made stay, each in the audit trail."""

from __future__ import annotations

import base64
import binascii
import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import BaseModel

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, SetProperties, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.crystals import store
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, Invalid, NotFound
from grimoire.graph.ids import now_ms
from grimoire.graph.model.crystal.payload import content_hash
from grimoire.graph.model.crystal.privacy import is_knowledge
from grimoire.graph.model.rows import Row
from grimoire.graph.visibility import Visibility

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64


class ManagementNode(BaseModel):
    """A management node's key as stored: its id (mn- and the first 16 hex of the key's sha-256), the key (base64),
    its name, when it was registered and, once revoked, when."""

    id: str
    public_key: str
    name: str | None = None
    created_at: int
    valid_from: int | None = None
    valid_until: int | None = None
    revoked_at: int | None = None
    audit_id: str | None = None


class ManagementNodeRow(Row):
    query = "crystals/management_node_get"
    node: ManagementNode


class ManagementNodesRow(ManagementNodeRow):
    query = "crystals/management_nodes_list"


class Verified(BaseModel):
    """An endorsement accepted: the crystal, the endorsing key (base64) and its id, when, and the audit record (none
    when the crystal was verified by that key already: nothing written)."""

    id: str
    is_verified: bool
    verified_by: str
    key_id: str
    at: int
    audit_id: str | None


class UnknownManagementNode(NotFound):
    def __init__(self, key_id: str) -> None:
        super().__init__(f"no management node {key_id}: the admin registers its key first (POST /management-nodes)")


class RevokedManagementNode(Invalid):
    """An endorsement by a key the admin revoked (422)."""


class BadSignature(Invalid):
    """A signature that is not the management node's over the crystal's content hash (422)."""


class NotEndorsable(Invalid):
    """An endorsement of a crystal that is not a knowledge crystal (422)."""


def decode(value: str, size: int, what: str) -> bytes:
    """`value`, base64 (standard or URL-safe, padded or not), as exactly `size` bytes; Invalid otherwise."""
    text = value.strip()
    try:
        raw = base64.b64decode(text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise Invalid(f"the {what} is not base64") from exc
    if len(raw) != size:
        raise Invalid(f"the {what} is {len(raw)} bytes: an Ed25519 {what} is {size}")
    return raw


def key_id_of(public_key: bytes) -> str:
    return f"mn-{hashlib.sha256(public_key).hexdigest()[:16]}"


def canonical(public_key: bytes) -> str:
    return base64.b64encode(public_key).decode("ascii")


def signed_message(hash_hex: str) -> bytes:
    """What a management node signs: the crystal's content hash, its 64 hex characters as ASCII."""
    return hash_hex.encode("ascii")


def _node(tx: Tx, key_id: str) -> ManagementNode | None:
    row = tx.run(cypher.query("crystals/management_node_get"), id=key_id).single()
    return ManagementNodeRow.model_validate(dict(row)).node if row is not None else None


def register(db: Database, public_key: str, name: str | None, *, actor: str) -> ManagementNode:
    """The admin registers a management node's key. Registering a key already registered answers it unchanged
    (nothing written); a revoked key is not registered again (409)."""
    raw = decode(public_key, PUBLIC_KEY_BYTES, "public key")
    key_id = key_id_of(raw)

    def work(tx: Tx) -> ManagementNode:
        found = _node(tx, key_id)
        if found is not None:
            if found.revoked_at is not None:
                raise Conflict(f"management node {key_id} was revoked at {found.revoked_at}: a revoked key is not "
                               f"registered again")
            return found
        audit = Audit(action="management_node.register", actor=actor, agent_id=None)
        row = tx.run(cypher.query("crystals/management_node_register"), props={
            "id": key_id, "public_key": canonical(raw), "name": name, "created_at": audit.at,
            "valid_from": audit.at, "recorded_at": audit.at, "audit_id": audit.id}).single()
        assert row is not None
        audit.write(tx, [key_id], f"registered management node {key_id}" + (f" ({name})" if name else ""),
                    [DeleteNodes(label=NodeLabel.ManagementNode, ids=[key_id])])
        return ManagementNodeRow.model_validate(dict(row)).node

    return db.write(work)


def list_nodes(db: Database) -> list[ManagementNode]:
    return [r.node for r in db.typed(ManagementNodesRow)]


def revoke(db: Database, key_id: str, *, actor: str) -> ManagementNode:
    """Revoke a management node's key: its valid time closes; revoking it again answers it unchanged."""

    def work(tx: Tx) -> ManagementNode:
        found = _node(tx, key_id)
        if found is None:
            raise UnknownManagementNode(key_id)
        if found.revoked_at is not None:
            return found
        audit = Audit(action="management_node.revoke", actor=actor, agent_id=None)
        steps = versions.keep(tx, Versioned.ManagementNode, [key_id], now=audit.at, actor=actor,
                              reason="revoked", audit_id=audit.id)
        row = tx.run(cypher.query("crystals/management_node_revoke"), id=key_id, now=audit.at).single()
        assert row is not None
        audit.write(tx, [key_id], f"revoked management node {key_id}",
                    [SetProperties(label=NodeLabel.ManagementNode, id=key_id,
                                   before={"revoked_at": None, "valid_until": None})], steps)
        return ManagementNodeRow.model_validate(dict(row)).node

    return db.write(work)


def verify(db: Database, crystal_id: str, signature: str, *, key_id: str | None, public_key: str | None,
           actor: str, visibility: Visibility) -> Verified:
    """A management node's endorsement of a knowledge crystal the caller owns (or any, for the admin)."""
    sig = decode(signature, SIGNATURE_BYTES, "signature")
    given = decode(public_key, PUBLIC_KEY_BYTES, "public key") if public_key is not None else None
    if given is not None and key_id is not None and key_id_of(given) != key_id:
        raise Invalid(f"the public key is management node {key_id_of(given)}, not {key_id}")
    if given is None and key_id is None:
        raise Invalid("name the endorsing management node: its key_id or its public_key")
    kid = key_id or key_id_of(given)  # type: ignore[arg-type]
    crystal = store.get(db, crystal_id, visibility)
    text = crystal.content or crystal.text or ""
    digest = crystal.content_hash or content_hash(text)

    def work(tx: Tx) -> Verified:
        locked, kinds = store.lock(tx, crystal_id, visibility)
        if not (is_knowledge(locked.semantic_type) or "Skill" in kinds):
            raise NotEndorsable(f"{crystal_id} is a {locked.semantic_type or 'general'} crystal: only knowledge "
                                f"crystals (skill, task_pattern) are endorsed; a memory crystal never leaves the node")
        node = _node(tx, kid)
        if node is None:
            raise UnknownManagementNode(kid)
        if node.revoked_at is not None:
            raise RevokedManagementNode(f"management node {kid} was revoked at {node.revoked_at}: it endorses "
                                        f"nothing any more")
        try:
            Ed25519PublicKey.from_public_bytes(base64.b64decode(node.public_key)).verify(sig, signed_message(digest))
        except InvalidSignature:
            raise BadSignature(f"the signature is not management node {kid}'s over {crystal_id}'s content hash "
                               f"({digest})") from None
        # What the endorsement finds is read under the lock: another endorsement committed since the read above
        # is what this one's revert image must restore.
        stored = locked.model_dump()
        if locked.is_verified and locked.verified_by == node.public_key:  # endorsed by this key already
            return Verified(id=crystal_id, is_verified=True, verified_by=node.public_key, key_id=kid,
                            at=locked.verified_at or now_ms(), audit_id=None)
        audit = Audit(action="crystal.verify", actor=actor, agent_id=locked.agent_id)
        steps = store.keep(tx, {crystal_id: kinds}, audit, f"endorsed by management node {kid}")
        done = tx.run(cypher.query("crystals/verify"), label=store.label_of(kinds).value, id=crystal_id, hash=digest,
                      text=text, public_key=node.public_key, key_id=kid, now=audit.at).single()
        if done is None:  # its text changed since it was read: the signature is over the text before
            raise Conflict(f"{crystal_id} changed since it was read: sign its current content hash")
        before = {k: stored.get(k) for k in ("is_verified", "verified_by", "verified_key_id", "verified_at")}
        audit.write(tx, [crystal_id], f"{crystal_id} endorsed by management node {kid}",
                    [SetProperties(label=store.label_of(kinds), id=crystal_id, before=before)], steps)
        return Verified(id=crystal_id, is_verified=True, verified_by=node.public_key, key_id=kid, at=audit.at,
                        audit_id=audit.id)

    return db.write(work)
