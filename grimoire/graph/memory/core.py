"""Core memory in the graph (../shared/spec/moltbot-memory.md, section 4): an agent's four blocks read
together with their token counts, edited one at a time under the cap, each edit keeping the text it
replaced as a closed CoreBlockVersion, with its audit record in the same transaction.

An edit locks the agent (cypher/memory/lock_core.cypher) before it reads the blocks, so concurrent edits
of one agent run one after the other and none is lost; tokens are counted with the embedding model's
tokenizer, inside the transaction (milliseconds), on the text the edit would leave."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, RevertOp, SetProperties, alerts, versions
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.memory import memory_md
from grimoire.graph.memory.blocks import (
    CAP_TOKENS,
    Append,
    Block,
    BlockOut,
    CoreOut,
    Edit,
    MemoryVersionOut,
    StaleVersion,
    apply,
    fits,
    keep_pinned,
    lines,
    normalise,
)
from grimoire.graph.memory.models import CoreBlock, CoreBlockVersion

Counter = Callable[[Sequence[str]], list[int]]  # texts -> their token counts (Embedder.count_tokens)
LONG_WORD = 100  # characters: WordPiece's longest word (max_input_chars_per_word); longer ones are one token


@dataclass(frozen=True)
class BlockState:
    block: Block
    content: str
    tokens: int
    version: int          # 0: never written
    pinned: tuple[str, ...]
    valid_from: int | None
    written_by: str | None

    def out(self) -> BlockOut:
        return BlockOut(block=self.block.value, content=self.content, tokens=self.tokens, version=self.version,
                        pinned=list(self.pinned), valid_from=self.valid_from, written_by=self.written_by)


def block_id(agent_id: str, block: Block) -> str:
    return f"{agent_id}:core:{block.value}"


def _state(block: Block, node: CoreBlock | None) -> BlockState:
    if node is None:
        return BlockState(block, "", 0, 0, (), None, None)
    return BlockState(block, node.content or "", int(node.tokens or 0), int(node.version), tuple(node.pinned or ()),
                      int(node.valid_from), node.written_by)


def _blocks(agent_id: str) -> dict[Block, CoreBlock]:
    return {Block(n.block): n for n in CoreBlock.nodes.filter(agent_id=agent_id)}


class CoreMemory:
    """An agent's core memory: read, edit, pin, versions, MEMORY.md."""

    def __init__(self, db: Database, count_tokens: Counter, cap: int = CAP_TOKENS) -> None:
        self.db, self.count_tokens, self.cap = db, count_tokens, cap
        self.listeners: list[Callable[[str, Block], None]] = []  # told of every block written (caches)

    # ------------------------------------------------------------------ reads

    def read(self, agent_id: str) -> CoreOut:
        """The four blocks together, with each one's tokens, the total and the cap."""
        def work(tx: Tx) -> CoreOut:
            nodes = _blocks(agent_id)
            if not nodes and tx.run(cypher.query("agents/get"), id=agent_id).single() is None:
                raise NotFound(f"no agent {agent_id!r}")
            return self._out(agent_id, nodes)

        return ogm.read(self.db, work)

    def read_in(self, agent_id: str) -> CoreOut:
        """`read` inside a transaction of neomodel's that other work shares (graph/db/ogm.py)."""
        return self._out(agent_id, _blocks(agent_id))

    def tokens(self, text: str) -> int:
        """The text's tokens by the model's tokenizer; a word it cannot split (WordPiece gives a word of
        over 100 characters one unknown token) counts a token per 4 characters, so length costs tokens."""
        if not text:
            return 0
        counted = self.count_tokens([text])[0]
        return counted + sum(-(-len(word) // 4) - 1 for word in text.split() if len(word) > LONG_WORD)

    def versions(self, agent_id: str, block: Block) -> list[MemoryVersionOut]:
        """The block's earlier texts, newest first (the version chain's CoreBlockVersion nodes, with their fields)."""
        fields = CoreBlockVersion.defined_properties(rels=False, aliases=False)
        names = {prop.get_db_property_name(attr) for attr, prop in fields.items()}
        return [MemoryVersionOut.model_validate({k: v for k, v in version.model_dump().items()
                                                 if k in names and v is not None})
                for version in versions.history(self.db, block_id(agent_id, block), agent_id)]

    def markdown(self, agent_id: str) -> str:
        state = self.read(agent_id)
        contents = {Block(b.block): b.content for b in state.blocks}
        pinned = next(b.pinned for b in state.blocks if b.block == Block.critical.value)
        return memory_md.render(contents, pinned, self.cap)

    # ------------------------------------------------------------------ edits

    def edit(self, agent_id: str, block: Block, edit: Edit, *, actor: str, reason: str | None = None,
             pin: Sequence[str] = (), unpin: Sequence[str] = (), tag: str | None = None,
             trigger: str | None = None, session_id: str | None = None,
             expected_version: int | None = None) -> CoreOut:
        """Applies `edit` to the block (and pins or unpins critical facts) under the cap; returns the core
        memory after it. Refused with OverCap (409) past the cap, PinnedLine (409) when it would drop a
        pinned fact, StaleVersion (409) when `expected_version` is given and the block is at another,
        NotFound when the agent or the line does not exist."""
        return ogm.write(self.db, lambda tx: self.edit_in(tx, agent_id, block, edit, actor=actor, reason=reason,
                                                          pin=pin, unpin=unpin, tag=tag, trigger=trigger,
                                                          session_id=session_id, expected_version=expected_version))

    def edit_in(self, tx: Tx, agent_id: str, block: Block, edit: Edit, *, actor: str,
                reason: str | None = None, pin: Sequence[str] = (), unpin: Sequence[str] = (),
                tag: str | None = None, trigger: str | None = None, session_id: str | None = None,
                expected_version: int | None = None) -> CoreOut:
        """`edit` inside a transaction of neomodel's (graph/db/ogm.py) that other changes share: a
        reflection's approval applies core changes with the rest, atomically. `tag` and `trigger` go to the
        audit record (the actor's role and what set it off, graph/audit/vocabulary.py)."""
        if (pin or unpin) and block is not Block.critical:
            raise Invalid("only critical facts are pinned")
        for fact in (*pin, *unpin):
            if len(lines(fact)) != 1:
                raise Invalid("a pinned fact is one line")
        pin = [fact.strip() for fact in pin]
        if not tx.run(cypher.query("memory/lock_core"), agent_id=agent_id).single():
            raise NotFound(f"no agent {agent_id!r}")
        nodes = _blocks(agent_id)
        before = _state(block, nodes.get(block))
        if expected_version is not None and expected_version != before.version:  # compare-and-set, under the lock
            raise StaleVersion(f"the {block.value} block is at version {before.version}, not {expected_version}: "
                               "read it again and redo the edit on what it holds now")
        content = apply(before.content, edit)
        missing = [p for p in unpin if p not in before.pinned]
        if missing:
            raise NotFound(f"not pinned: {missing[:3]}")
        pinned = [p for p in before.pinned if p not in set(unpin)]
        for fact in pin:
            if fact not in {x.strip() for x in lines(content)}:
                content = normalise(content + "\n" + fact)
            if fact not in pinned:
                pinned.append(fact)
        keep_pinned(content, pinned)
        if content == before.content and tuple(pinned) == before.pinned:
            return self._out(agent_id, nodes)  # nothing changes: no version, no audit record
        tokens = {b: _state(b, nodes.get(b)).tokens for b in Block}
        was = sum(tokens.values())
        tokens[block] = self.tokens(content)
        if sum(tokens.values()) > was:  # an edit that adds no tokens passes even over the cap (a smaller model's)
            fits(block, tokens, self.cap)
        audit = Audit(action="memory.core.append" if isinstance(edit, Append) else "memory.core.edit", actor=actor,
                      agent_id=agent_id, tag=tag, trigger=trigger, session_id=session_id)
        nodes[block] = self._write(tx, audit, block, nodes.get(block), before, content, tokens[block], pinned,
                                   reason or "edited")
        return self._out(agent_id, nodes)

    def _write(self, tx: Tx, audit: Audit, block: Block, node: CoreBlock | None, before: BlockState,
               content: str, tokens: int, pinned: list[str], reason: str) -> CoreBlock:
        now, actor, agent_id = audit.at, audit.actor, str(audit.agent_id)
        revert: list[RevertOp]
        if node is None:
            node = CoreBlock(uid=block_id(agent_id, block), agent_id=agent_id, block=block.value, content=content,
                             tokens=tokens, version=1, pinned=pinned, valid_from=now, recorded_at=now,
                             written_by=actor, checksum=alerts.checksum(content, pinned)).save()
            revert = [DeleteNodes(label=NodeLabel.CoreBlock, ids=[node.uid])]
            steps = versions.created(Versioned.CoreBlock, [node.uid])
        else:
            # the text it replaces kept as a CoreBlockVersion (graph/audit/versions.py)
            steps = versions.keep(tx, Versioned.CoreBlock, [node.uid], now=now, actor=actor, reason=reason,
                                  audit_id=audit.id)
            revert = [SetProperties(label=NodeLabel.CoreBlock, id=node.uid, before={
                          "content": node.content, "tokens": node.tokens, "pinned": list(node.pinned or []),
                          "valid_from": node.valid_from, "recorded_at": node.recorded_at,
                          "written_by": node.written_by, "checksum": node.checksum})]
            node.content, node.tokens, node.version, node.pinned = content, tokens, before.version + 1, pinned
            node.valid_from, node.recorded_at, node.written_by = now, now, actor
            node.checksum = alerts.checksum(content, pinned)
            node.save()
        summary = f"core memory {block.value} block v{node.version} ({tokens} tokens): {reason}"
        audit.write(tx, [node.uid], summary, revert, steps)
        alerts.on_change(tx, audit, node.uid, summary)  # a critical block changed by anyone but a person: flagged
        for listener in self.listeners:
            listener(agent_id, block)
        return node

    def _out(self, agent_id: str, nodes: dict[Block, CoreBlock]) -> CoreOut:
        states = [_state(b, nodes.get(b)) for b in Block]
        return CoreOut(agent_id=agent_id, cap=self.cap, tokens=sum(s.tokens for s in states),
                       blocks=[s.out() for s in states])
