"""The cross-encoder (role `reranker`): scores (query, passage) pairs with the user's model
(search/rerank.py decides how search uses the scores).

Optional: no cross-encoder can be installed offline, so users bring one (e.g. a
cross-encoder/ms-marco-MiniLM-L-6-v2 folder). Without one, search is unchanged. The model is
loaded lazily on first use (sentence-transformers' `CrossEncoder`, CPU, the library's thread
setting); torch and sentence-transformers are imported only then.

Cost: a cross-encoder reads every pair in full (query + passage, truncated by its tokenizer to
the model's maximum length, 512 word pieces for MiniLM-L6), so reranking search's top candidates
(search/rerank.py) costs about that many MiniLM-L6 forward passes of ~150-250 word pieces per
search (see docs/models.md for the measured numbers).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import numpy as np

from ..errors import ModelError

log = logging.getLogger(__name__)

ROLE = "reranker"
BATCH = 20  # pairs per forward pass (search reranks its top 20)


class Reranker:
    """A sentence-transformers CrossEncoder folder, loaded on first `score()`. Thread-safe."""

    def __init__(self, folder: Path | str, *, model_id: str = "", threads: int | None = None,
                 batch_size: int = BATCH):
        self.folder = Path(folder)
        self.model_id = model_id or self.folder.name
        self.batch_size = batch_size
        self._threads = threads
        self._model = None
        self._error: ModelError | None = None
        self._lock = threading.Lock()

    def load(self):
        """The loaded model (loaded now on first call). Raises ModelError, the same one on every
        later call once loading failed."""
        model = self._model
        if model is not None:
            return model
        with self._lock:
            if self._error is not None:
                raise self._error
            if self._model is None:
                try:
                    self._model = self._load()
                except ModelError as e:
                    self._error = e
                    raise
            return self._model

    def _load(self):
        from ..models.offline_hf import offline_and_quiet

        offline_and_quiet()
        try:
            import torch
            from sentence_transformers import CrossEncoder
        except ImportError as e:
            raise ModelError(ROLE, f"the reranker needs sentence-transformers and torch ({e.name} is not "
                                   "installed; pip install sentence-transformers)") from e
        if self._threads:
            torch.set_num_threads(int(self._threads))
        if not self.folder.is_dir():
            raise ModelError(ROLE, f"the cross-encoder folder {self.folder} does not exist")
        try:
            model = CrossEncoder(str(self.folder), device="cpu", local_files_only=True)
        except MemoryError as e:
            raise ModelError(ROLE, f"not enough memory to load the cross-encoder {self.folder.name}") from e
        except Exception as e:  # noqa: BLE001 - any third-party load failure becomes a plain ModelError
            raise ModelError(ROLE, f"the cross-encoder {self.folder.name} failed to load: "
                                   f"{type(e).__name__}: {e}") from e
        if int(getattr(model.config, "num_labels", 1) or 1) != 1:
            raise ModelError(ROLE, f"{self.folder.name} gives {model.config.num_labels} scores per pair; "
                                   "a reranker must give one (a relevance score)")
        model.eval()
        return model

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        """Relevance of each passage to `query` (float32 [len(passages)], higher is better; the
        scale is the model's own). Passages longer than the model's window are truncated by its
        tokenizer. Raises ModelError when the model cannot be loaded or fails to run."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        model = self.load()  # a local reference: close() from another thread cannot pull it away
        try:
            scores = model.predict([(query, p) for p in passages], batch_size=self.batch_size,
                                   show_progress_bar=False, convert_to_numpy=True)
        except Exception as e:  # noqa: BLE001 - a model that loads but cannot run (e.g. vocab mismatch)
            raise ModelError(ROLE, f"the cross-encoder {self.folder.name} failed to score: "
                                   f"{type(e).__name__}: {e}") from e
        scores = np.asarray(scores, dtype=np.float32).reshape(len(passages), -1)[:, 0]
        return scores

    def close(self) -> None:
        """Drop the model (the object loads it again on the next `score()`)."""
        with self._lock:
            self._model = None


def configured(settings) -> tuple[Reranker | None, str | None]:
    """The reranker the settings resolve to (not loaded yet) and a notice: (None, None) when no
    cross-encoder is installed (reranking is simply off); (None, notice) when one is configured
    but unusable (the notice says why and is logged)."""
    from ..models.registry import resolve

    r = resolve(ROLE, settings)
    if r.ok and r.path is not None:
        if r.message:  # e.g. the chosen folder broke and another source is used
            log.warning("reranker: %s", r.message)
        return Reranker(r.path, model_id=r.model_id, threads=getattr(settings, "threads", None)), None
    if r.status == "missing":
        return None, None
    return None, off_notice(r.model_id, r.message)


def off_notice(model_id: str, reason: str) -> str:
    """The plain-words notice for a configured reranker that search cannot use (also logged)."""
    name = f" {model_id}" if model_id else ""
    msg = (f"The reranker{name} is not used ({reason}); hits are ranked by fusion and line "
           "matching only.")
    log.warning("%s", msg)
    return msg
