"""The models a library uses right now, and the switches between them: the one owner of model state.

- text: the *active* text embedder is the model whose vectors the index holds. When the user
  chooses another one, it becomes the *pending* embedder; background/reembed.py computes its
  vectors and then asks `switch_text` to make it active. Search uses the active one meanwhile.
- image: `image` (active_image.py) does the same for the image embedder.
- OCR and the reranker are loaded on first use and dropped when the settings change.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError
from .active_image import ActiveImageModel

if TYPE_CHECKING:
    from ..settings import Settings
    from ..store import Figures, State, Vectors
    from ..store.vector_index import VectorIndex


class ActiveModels:
    """Model state of one library (see module doc). Thread-safe: switches take `lock`."""

    def __init__(self, settings: Settings, vectors: Vectors, figures: Figures, state: State, embedder=None):
        self.settings = settings
        self.vectors = vectors
        self.state = state
        # guards the model state; taken before any store call, never inside a store transaction
        self.lock = threading.RLock()
        self.image = ActiveImageModel(settings, vectors, figures, state, self.lock)
        self._embedder = embedder
        self._pending = None  # the newly chosen text embedder while re-embedding
        self._active_recorded = False if embedder is not None else None
        self._ocr = None
        self._ocr_checked = False
        self._reranker = None  # the cross-encoder (models/reranker.py): None = not resolved, False = none
        self.rerank_notice: str | None = None  # why a configured reranker is not used

    def use_settings(self, settings: Settings) -> None:
        """New settings (the user changed them); call `changed()` when model choices changed."""
        self.settings = settings
        self.image.settings = settings

    # ---- text ------------------------------------------------------------------------------
    @property
    def embedder(self):
        """The *active* text embedder (loaded lazily). Raises ModelError when none is available."""
        if self._embedder is None:
            self._embedder = self._choose_active_embedder()
        elif self._active_recorded is False:
            self._record_active(self._embedder)
        return self._embedder

    @property
    def pending_embedder(self):
        """The chosen text embedder whose vectors are not complete yet, or None."""
        self.embedder  # noqa: B018 - resolves active and pending models
        return self._pending

    def _target_embedder(self):
        from .text_embedder import TextEmbedder

        choice = self.settings.models.get("text_embedder") or None
        return TextEmbedder(choice, threads=self.settings.threads)

    def _choose_active_embedder(self):
        from .text_embedder import TextEmbedder

        target = self._target_embedder()
        active_id, active_path = self.state.get("text_model"), self.state.get("text_model_path")
        if (active_id and active_id != target.model_id and active_path and Path(active_path).is_dir()
                and self.vectors.count(active_id)):
            self._pending = target  # reembed switches when the new vectors are complete
            return TextEmbedder(active_path, threads=self.settings.threads)
        self._record_active(target)
        return target

    def _record_active(self, embedder) -> None:
        if self.vectors.read_only:  # the process writing to the library records it
            self._active_recorded = True
            return
        with self.lock:
            if self.state.get("text_model") != embedder.model_id:
                self.state.set("text_model", embedder.model_id)
                self.state.set("text_model_path", str(embedder.model_dir))
        self._active_recorded = True

    def text_index(self) -> VectorIndex:
        """The hnswlib index of the text space, opened (and repaired from SQLite) on first use."""
        return self.vectors.index("text", self.embedder.model_id, self.embedder.dim)

    def switch_text(self, target) -> None:
        """Make `target` (the pending embedder, whose vectors are complete) the active text model:
        build its index, drop every other model's vectors, record it."""
        model = target.model_id
        with self.lock:
            self.vectors.rebuild_index("text", model, target.dim, reason=f"switched to {model}")
            with self.vectors.db.transaction():
                self.vectors.keep_only_text_model(model)
                self.state.set("text_model", model)
                self.state.set("text_model_path", str(target.model_dir))
            self._embedder = target
            self._pending = None

    # ---- OCR and reranker ---------------------------------------------------------------------
    def ocr(self):
        """The OCR engine, or None when OCR is disabled or not installed."""
        if not self._ocr_checked:
            self._ocr_checked = True
            if self.settings.ocr_enabled:
                from ..parse.ocr import Ocr

                self._ocr = Ocr() if Ocr.available() else None
        return self._ocr

    def rerank_scores(self, query: str, passages: list[str]) -> np.ndarray | None:
        """Cross-encoder scores of (query, passage) pairs (search/rerank.py), or None when no
        reranker is in use: none installed, or the configured one is unusable or fails to load or
        run — then `rerank_notice` says why and search ranks without it until `changed()`."""
        from .reranker import configured, off_notice

        if self._reranker is None:
            with self.lock:
                if self._reranker is None:
                    model, self.rerank_notice = configured(self.settings)
                    self._reranker = model or False
        reranker = self._reranker
        if not reranker:
            return None
        try:
            return reranker.score(query, passages)
        except ModelError as e:
            with self.lock:
                if self._reranker is reranker:
                    self._reranker = False
                    self.rerank_notice = off_notice(reranker.model_id, e.reason)
            reranker.close()
            return None

    # ---- lifecycle ---------------------------------------------------------------------------
    @property
    def notices(self) -> list[str]:
        """Why a model the user configured is not serving search right now; [] when all are."""
        return [n for n in (self.rerank_notice, self.image.notice) if n]

    def changed(self) -> None:
        """Forget loaded/resolved models after the settings' model choices changed: the text
        embedder is resolved again (a new one is re-embedded while the active one keeps serving);
        the image embedder is resolved again on next use; OCR and the reranker reload."""
        with self.lock:
            if self._embedder is not None and self.state.get("text_model") is None:
                self._record_active(self._embedder)
            self._embedder = None
            self._pending = None
            self._ocr, self._ocr_checked = None, False
            reranker, self._reranker, self.rerank_notice = self._reranker, None, None
        self.image.close()
        if reranker:
            reranker.close()

    def close(self) -> None:
        """Close every loaded native model this object holds."""
        self.image.close()
        with self.lock:
            reranker, self._reranker = self._reranker, None
        if reranker:
            reranker.close()
