"""The same sentence embeddings through onnxruntime: the model's transformer is exported to ONNX once
(cached on disk by model, weights and exporter), then run with the model's own tokenizer, mean pooling
and normalisation. On one CPU thread a short query costs ~6 ms instead of ~20 ms through PyTorch, with
the same vectors (largest difference ~1e-7). Only for models that are a transformer, mean pooling and
(optionally) normalisation; anything else stays on PyTorch.

Why not sentence-transformers' own ONNX backend (`backend="onnx"`): it needs Optimum's ONNX package
(optimum-onnx), whose only releases require transformers < 4.58 while sentence-transformers 6 requires
transformers 5, so `sentence-transformers[onnx]` does not install; and Optimum exports through
torch.onnx's legacy TorchScript exporter (`dynamo=False`), the deprecated path this module left.
The export here goes through `torch.export` (torch.onnx.export with dynamo=True, which needs onnxscript).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
QUERY_BATCH = 8  # up to this many texts (a query, a micro-batch of queries): the single-threaded session
# A group of texts for one model call is padded to within this factor of the tokens it holds: one call per text
# costs its fixed overhead, one call for all pays the longest text's length for each (bench/results/embedding.json).
GROUP_SLACK = 1.15
# Part of the cache key: a file written by another exporter (the legacy TorchScript one) is not reused.
EXPORTER = "torch.export/onnxscript"


def default_cache_dir() -> Path:
    return Path(os.environ.get("GRIMOIRE_CACHE_DIR", Path.home() / ".cache" / "grimoire")) / "onnx"


def supported(model: Any) -> bool:
    names = [type(m).__name__ for m in model]
    if names[:2] != ["Transformer", "Pooling"] or any(n != "Normalize" for n in names[2:]):
        return False
    return bool(model[1].get_config_dict().get("pooling_mode") == "mean")


def _fingerprint(model: Any, model_path: str) -> str:
    h = hashlib.sha256(f"{EXPORTER}:{type(model[0].auto_model).__name__}".encode())
    root = Path(model_path)
    for f in sorted(root.rglob("*")) if root.is_dir() else []:
        if f.is_file() and f.suffix in (".json", ".safetensors", ".bin", ".txt"):
            h.update(f"{f.relative_to(root)}:{f.stat().st_size}".encode())
    return h.hexdigest()[:16]


def _export(model: Any, path: Path) -> None:
    import torch

    bert = model[0].auto_model.eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    # Two texts of different lengths: torch.export specialises an axis whose sample size is 1.
    sample = model.tokenizer(["an example sentence", "and a second one, a little longer than the first"],
                             padding=True, return_tensors="pt")
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp, _quiet_exporter_log():
        out = Path(tmp) / path.name  # renamed into place below: no half-written file under the real name
        torch.onnx.export(Encoder().eval(), tuple(sample[k] for k in INPUTS), str(out), dynamo=True,
                          input_names=list(INPUTS), output_names=["last_hidden_state"],
                          dynamic_shapes=_dynamic_shapes(torch), external_data=False, verbose=False)
        os.replace(out, path)


def _dynamic_shapes(torch: Any) -> dict[str, dict[int, Any]]:
    """Batch and token axes free. Named once: the other inputs share the same sizes, and naming them
    again only makes the exporter warn that the names go unused."""
    free = torch.export.Dim.DYNAMIC
    return {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: free, 1: free},
            "token_type_ids": {0: free, 1: free}}


@contextmanager
def _quiet(logger_name: str | None) -> Iterator[None]:
    """Only errors from this logger (None: the root) while the block runs."""
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _quiet_exporter_log() -> AbstractContextManager[None]:
    """The exporter logs a warning for each torchvision operator it cannot register: torchvision is not
    installed, and this model has none of its operators."""
    return _quiet("torch.onnx")


def quantized_copy(path: Path) -> Path:
    """The model with its weights quantized to int8 (onnxruntime's dynamic quantization: activations
    quantized on the fly), written once beside the float export and reused: a quarter of the size.
    Its vectors differ from the float model's (bench/results/embedding.json measures by how much)."""
    out = path.with_name(f"{path.stem}-int8{path.suffix}")
    if out.exists():
        return out
    from onnxruntime.quantization import QuantType, quantize_dynamic

    log.info("quantizing %s to int8 at %s (once)", path.name, out)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp, _quiet_quantizer_log():
        written = Path(tmp) / out.name
        quantize_dynamic(str(path), str(written), weight_type=QuantType.QInt8)
        os.replace(written, out)
    return out


def _quiet_quantizer_log() -> AbstractContextManager[None]:
    """The quantizer logs a warning on the root logger suggesting a pre-processing pass (shape inference
    for models without it); this export carries its shapes."""
    return _quiet(None)


class OnnxEncoder:
    def __init__(self, model: Any, model_path: str, name: str, cache_dir: Path | None = None,
                 tokenizer_lock: AbstractContextManager[Any] | None = None, *, threads: int = 0,
                 quantized: bool = False) -> None:
        import onnxruntime as ort

        self.tokenizer = model.tokenizer
        self.tokenizer_lock = tokenizer_lock or threading.Lock()
        self.pad_id = int(self.tokenizer.pad_token_id or 0)
        self.max_length = int(model[0].max_seq_length or 512)
        self.normalize = len(model) > 2
        safe = "".join(c if c.isalnum() else "-" for c in name)[-60:]
        self.path = (cache_dir or default_cache_dir()) / f"{safe}-{_fingerprint(model, model_path)}.onnx"
        if not self.path.exists():
            log.info("exporting %s to ONNX at %s (once)", name, self.path)
            _export(model, self.path)
        if quantized:
            self.path = quantized_copy(self.path)
        # A query is tiny: on one thread it leaves the other cores to the database queries running
        # beside it (measured: 27 ms per retrieval at 100k items with one thread, 36 ms with two).
        # Batches (ingest) get `threads`: the caller's share of the cores (cores / API processes).
        self.threads = max(1, threads or min(os.cpu_count() or 1, 8))
        self.query_session = self._session(ort, self.path, 1)
        self.session = self._session(ort, self.path, self.threads)
        self.inputs = [i.name for i in self.session.get_inputs()]

    @staticmethod
    def _session(ort: Any, path: Path, threads: int) -> Any:
        """`threads` for the operators, one for the graph (it runs sequentially). Threads that wait do not
        spin: a spinning thread burns the core the database query beside it needs (measured: two spinning
        threads cost twice the CPU of one for the same vectors; bench/results/embedding.json)."""
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """Groups of similar length, each padded only to its own longest text (`length_groups`), results in the
        order given. Calls may run side by side: the sessions are safe to share, the tokenizer takes turns
        (`tokenizer_lock`), a slice of `batch_size` texts at a time."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        ids: list[list[int]] = []
        for start in range(0, len(texts), batch_size):  # the lock a slice at a time: a query waits for no bulk call
            with self.tokenizer_lock:
                ids += self.tokenizer(list(texts[start:start + batch_size]), truncation=True,
                                      max_length=self.max_length)["input_ids"]
        session = self.query_session if len(texts) <= QUERY_BATCH else self.session
        out: np.ndarray | None = None
        for group in length_groups([len(x) for x in ids], batch_size):
            width = max(len(ids[i]) for i in group)
            input_ids = np.full((len(group), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(group), width), dtype=np.int64)
            for row, i in enumerate(group):
                input_ids[row, :len(ids[i])] = ids[i]
                mask[row, :len(ids[i])] = 1
            feeds = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)}
            hidden = session.run(None, {k: feeds[k] for k in self.inputs})[0]
            weights = mask[..., None].astype(np.float32)
            vectors = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            if self.normalize:
                vectors /= np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
            if out is None:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[group] = vectors
        assert out is not None
        return out


def length_groups(lengths: Sequence[int], most: int, slack: float = GROUP_SLACK) -> list[list[int]]:
    """The texts' indices in groups of similar token length, shortest first, each of at most `most`: a group
    ends where padding it to its next text would cost more than `slack` times the tokens it holds. A model
    call pays for every padded position, so one batch of mixed lengths pays its longest text's length for
    each text (LoCoMo turns of 20 in a batch: 1.8 times the tokens they hold)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    groups: list[list[int]] = []
    group: list[int] = []
    held = 0
    for i in order:
        if group and (len(group) >= most or (len(group) + 1) * lengths[i] > slack * (held + lengths[i])):
            groups.append(group)
            group, held = [], 0
        group.append(i)
        held += lengths[i]
    if group:
        groups.append(group)
    return groups
