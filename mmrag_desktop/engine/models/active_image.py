"""The active image embedder, and changing it without losing image search meanwhile.

Image vectors are tagged by model id (`vectors` space 'image'). The *active* image model is
recorded in the library's state (`image_model`, and `image_model_path` to reload it after a
restart); the `image` hnswlib index holds only its vectors and image queries are encoded with it.
When the settings name another model, figure enrichment (background/enrich.py, step "clip")
writes the new model's vectors to SQLite only, and image search keeps using the active model.

The switch (new model recorded as active, its index built from SQLite, every other model's image
vectors deleted, the old model closed) happens when the new model *covers the library*: every
figure of a ready document that has a crop has an image vector of the new model. It is checked at
the end of each enrichment run (background/image_model.py) and lazily on each image query
(`sync`), so a restart, or a switch the child process made, is picked up. When the old model
cannot be loaded (its folder was deleted or is broken), image search switches at once to the new
model's partial coverage; `notice` and the log say so.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError

if TYPE_CHECKING:
    from ..settings import Settings
    from ..store import Figures, State, Vectors

log = logging.getLogger(__name__)

ROLE = "image_embedder"


class ActiveImageModel:
    """Owns the loaded image embedder of one library and every switch between image models."""

    def __init__(self, settings: Settings, vectors: Vectors, figures: Figures, state: State,
                 lock: threading.RLock):
        self.settings = settings
        self.vectors = vectors
        self.figures = figures
        self.state = state
        self.lock = lock
        self._clip = None  # the loaded active model: None = not tried, False = unavailable
        self._target = None  # the configured model (ResolvedModel) while its vectors are incomplete
        self.notice: str | None = None  # why image search does not use the model it should

    # ---- recorded state ----------------------------------------------------------------------
    def active_model(self) -> tuple[str | None, str | None]:
        """(model id, path it was loaded from) of the recorded active image model; Nones when unset."""
        return self.state.get("image_model") or None, self.state.get("image_model_path") or None

    def _record(self, model: str, path: Path | str | None) -> None:
        if self.vectors.read_only:  # the process writing to the library records it
            return
        self.state.set("image_model", model)
        self.state.set("image_model_path", str(path) if path else "")

    def is_pending(self, active: str | None, model: str) -> bool:
        """True when `model` is not the active image model and the active one has vectors to serve."""
        return bool(active) and active != model and self.vectors.has_any("image", active)

    def coverage(self, model: str) -> tuple[int, int]:
        """(figures with a vector of `model`, figures that should have one)."""
        return self.figures.image_coverage(model)

    def missing_vectors(self, model: str) -> int:
        """How many figures that should have an image vector of `model` lack one (0 = complete)."""
        done, total = self.coverage(model)
        return total - done

    @property
    def change_pending(self) -> bool:
        """True when the settings name an image embedder whose figure vectors are not complete yet."""
        from .registry import resolve

        target = resolve(ROLE, self.settings)
        return (target.ok and self.is_pending(self.active_model()[0], target.model_id)
                and self.missing_vectors(target.model_id) > 0)

    # ---- the loaded model ----------------------------------------------------------------------
    @property
    def loaded(self):
        """The image embedder loaded now (None when not loaded yet or unavailable)."""
        return self._clip or None

    def embedder(self):
        """The active image embedder (loaded on first use; after a change, switched lazily when the
        new model's vectors are complete), or None when no image model is configured. Raises
        ModelError when the model to use fails to load (image search then stays off until
        `reset()`)."""
        self.sync()
        if self._clip is None:
            try:
                self._clip = self._choose_active() or False
            except ModelError:
                self._clip = False
                raise
        return self._clip or None

    def _choose_active(self):
        from .clip import load_image_embedder
        from .registry import resolve

        target = resolve(ROLE, self.settings)
        if not target.ok:
            return None
        active, path = self.active_model()
        if self.is_pending(active, target.model_id):
            if self.missing_vectors(target.model_id) == 0:
                self.switch(target.model_id, target.path, reason="its vectors are complete")
            else:
                old = self._load_previous(active, path, target.model_id)
                if old is not None:
                    self._target = target
                    return old
                self.switch(target.model_id, target.path, reason="the previous model is unavailable")
        elif active != target.model_id:
            with self.lock:
                self._record(target.model_id, target.path)
        return load_image_embedder(target.path, target.extra.get("backend"), model_id=target.model_id,
                                   threads=self.settings.threads)

    def _load_previous(self, model: str, path: str | None, new_model: str):
        """The previous active model loaded from its recorded path; None when that path is gone or
        the model fails to load (then `notice` says what image search does instead, logged)."""
        from .clip import load_image_embedder

        if path and Path(path).exists():
            try:
                return load_image_embedder(Path(path), model_id=model, threads=self.settings.threads)
            except ModelError as e:
                why = f"it cannot be loaded: {e.reason}"
        else:
            why = f"its folder {path or '(not recorded)'} is gone"
        done, total = self.coverage(new_model)
        self.notice = (
            f"The previous image model {model} is not available ({why}). Image search now uses {new_model}, "
            f"which has embedded {done} of {total} figures so far; the rest follow when figure enrichment finishes.")
        log.warning("%s", self.notice)
        return None

    def query_vector(self, query) -> tuple[str, int, np.ndarray] | None:
        """(model id, dim, query vector) of text or a PIL image from the active image model, or None
        when there is no image model or it has no vectors yet. Raises ModelError."""
        for attempt in range(2):
            clip = self.embedder()
            if clip is None:
                return None
            dim = self.vectors.dim("image", clip.model_id)  # only its own vectors compare with its queries
            if dim is None:
                return None
            try:
                vec = (clip.encode_text([query]) if isinstance(query, str) else clip.encode_images([query]))[0]
            except ModelError:
                if attempt or clip is self._clip:
                    raise
                continue  # another thread switched models and closed this one: use the new active one
            return clip.model_id, dim, vec
        return None

    def ranked(self, query, n: int, allowed: set[int] | None) -> list[int]:
        """Figure chunk ids ranked by similarity to `query` (text or a PIL image), or [] when there
        are no image vectors or no image model. Raises ModelError when the model fails to load."""
        if not self.vectors.has_any("image"):
            return []
        found = self.query_vector(query)
        if found is None:
            return []
        model, dim, vec = found
        return [cid for cid, _ in self.vectors.index("image", model, dim).query(vec, n, filter_ids=allowed)]

    # ---- switching -------------------------------------------------------------------------------
    def switch(self, model: str, path: Path | str | None, *, reason: str) -> None:
        """Make `model` the active image model: record it (with `path`), delete every other model's
        image vectors (their figures marked not embedded), build its index from SQLite, and close
        the previously loaded model (it reloads on next use). A read-only library leaves the
        switch to the process writing to it."""
        if self.vectors.read_only:
            return
        with self.lock:
            dim = self.vectors.dim("image", model)
            with self.vectors.db.transaction():
                self.vectors.keep_only_image_model(model)
                self.figures.forget_image_models_except(model)
                self._record(model, path)
            self.vectors.drop_index("image")  # the old model's index: dropped, never saved again
            if dim is not None:
                self.vectors.rebuild_index("image", model, dim, reason=f"switched to {model}")
            old = self._clip
            self._target = None
            if old and old.model_id != model:
                self._clip = None
            else:
                old = None
        if old:
            old.close()
        log.info("image search switched to %s (%s)", model, reason)

    def sync(self) -> None:
        """Catch up with the recorded state: when another process (or thread) switched the active
        image model, drop the loaded model and image index (they reload on next use); when the
        pending model has become complete, switch to it."""
        active, _ = self.active_model()
        with self.lock:
            idx = self.vectors.held_index("image")
            if active and idx is not None and idx.model != active:
                self.vectors.drop_index("image")
            clip = self._clip
            stale = bool(clip) and bool(active) and clip.model_id != active
            if stale:
                self._clip, self._target = None, None
        if stale:
            clip.close()
            return
        target = self._target
        if clip and target is not None and self.missing_vectors(target.model_id) == 0:
            self.switch(target.model_id, target.path, reason="its vectors are complete")

    def index_for(self, model: str, dim: int, path: Path | str | None):
        """Where enrichment adds a new image vector of `model`: the live image index when `model` is
        the active image model (it becomes active when none is recorded or the recorded one has no
        vectors); None while it is the pending new model, whose vectors wait in SQLite."""
        with self.lock:
            active, _ = self.active_model()
            if self.is_pending(active, model):
                return None
            if active != model:
                self._record(model, path)
            return self.vectors.index("image", model, dim)

    def reset(self):
        """Forget the loaded model and notice (the settings changed); returns the model to close."""
        with self.lock:
            clip, self._clip, self._target, self.notice = self._clip, None, None, None
        return clip or None

    def close(self) -> None:
        """Close the loaded model."""
        clip = self.reset()
        if clip:
            clip.close()
