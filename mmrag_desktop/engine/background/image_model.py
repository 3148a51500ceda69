"""Changing the image embedder (role `image_embedder`) without losing image search meanwhile.

Image vectors are tagged by model id (`vectors` space 'image'). The *active* image model is
recorded in `settings_kv` (`image_model`, and `image_model_path` to reload it after a restart);
the `image` hnswlib index holds only its vectors and image queries are encoded with it. When the
settings name another model, figure enrichment (enrich.py, step "clip") writes the new model's
vectors to SQLite only, and image search keeps using the active model and its index.

The switch (new model recorded as active, its index built from SQLite, every other model's image
vectors deleted, the old model closed) happens when the new model *covers the library*: every
figure of a ready document that has a crop (`figures.crop`; a figure without one cannot be
embedded by any model) has an image vector of the new model. It is checked at the end of each
enrichment run and lazily by `Library.image_list` (one SQL count), so a restart, or a switch the
child process made, is picked up. Two exceptions:

- an enrichment run over the whole library that was not cancelled switches even when some figures
  are left without a vector (their errors were reported in the run's events), provided the new
  model embedded at least one figure: one unreadable figure must not pin the old model forever;
- when the old model cannot be loaded (its folder was deleted or is broken), image search switches
  at once to the new model's partial coverage; `Library.image_notice` and the log say so.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ModelError
from ..store.db import Transaction
from ..store.vector_index import VectorIndex

if TYPE_CHECKING:
    from ..library import Library
    from ..models.clip import ImageEmbedder

log = logging.getLogger(__name__)

ROLE = "image_embedder"


def active_model(library: Library) -> tuple[str | None, str | None]:
    """(model id, path it was loaded from) of the recorded active image model; Nones when unset."""
    return library._kv_get("image_model") or None, library._kv_get("image_model_path") or None


def _has_vectors(library: Library, model: str) -> bool:
    with library.lock:
        return library.conn.execute("SELECT 1 FROM vectors WHERE space = 'image' AND model = ? LIMIT 1",
                                    (model,)).fetchone() is not None


def is_pending(library: Library, active: str | None, model: str) -> bool:
    """True when `model` is not the active image model and the active one has vectors to serve."""
    return bool(active) and active != model and _has_vectors(library, active)


def coverage(library: Library, model: str) -> tuple[int, int]:
    """(figures with a vector of `model`, figures that should have one: those of ready documents
    with a crop)."""
    with library.lock:
        total, done = library.conn.execute(
            "SELECT COUNT(*), SUM(EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = f.chunk_id"
            " AND v.space = 'image' AND v.model = ?)) FROM figures f JOIN documents d ON d.id = f.doc_id"
            " WHERE d.status = 'ready' AND f.crop IS NOT NULL", (model,)).fetchone()
    return int(done or 0), int(total)


def missing_vectors(library: Library, model: str) -> int:
    """How many figures that should have an image vector of `model` lack one (0 = complete)."""
    done, total = coverage(library, model)
    return total - done


def _record(library: Library, model: str, path: Path | str | None) -> None:
    library._kv_set("image_model", model)
    library._kv_set("image_model_path", str(path) if path else "")


def choose_active(library: Library) -> ImageEmbedder | None:
    """The image embedder image search uses, loaded: the recorded active model while the configured
    one is incomplete (the configured one is kept in `library._clip_target`), else the configured
    model, switching to it first when it has just become complete.

    Returns None when no image model is configured. Raises ModelError when the model to use fails
    to load.
    """
    from ..models.clip import load_image_embedder
    from ..models.registry import resolve

    target = resolve(ROLE, library.settings)
    if not target.ok:
        return None
    active, path = active_model(library)
    if is_pending(library, active, target.model_id):
        if missing_vectors(library, target.model_id) == 0:
            switch(library, target.model_id, target.path, reason="its vectors are complete")
        else:
            old = _load_previous(library, active, path, target.model_id)
            if old is not None:
                library._clip_target = target
                return old
            switch(library, target.model_id, target.path, reason="the previous model is unavailable")
    elif active != target.model_id:
        with library.lock:
            _record(library, target.model_id, target.path)
    return load_image_embedder(target.path, target.extra.get("backend"), model_id=target.model_id,
                               threads=library.settings.threads)


def _load_previous(library: Library, model: str, path: str | None, new_model: str) -> ImageEmbedder | None:
    """The previous active model loaded from its recorded path; None when that path is gone or the
    model fails to load (then `library.image_notice` says what image search does instead, logged)."""
    from ..models.clip import load_image_embedder

    if path and Path(path).exists():
        try:
            return load_image_embedder(Path(path), model_id=model, threads=library.settings.threads)
        except ModelError as e:
            why = f"it cannot be loaded: {e.reason}"
    else:
        why = f"its folder {path or '(not recorded)'} is gone"
    done, total = coverage(library, new_model)
    library.image_notice = (
        f"The previous image model {model} is not available ({why}). Image search now uses {new_model}, "
        f"which has embedded {done} of {total} figures so far; the rest follow when figure enrichment finishes.")
    log.warning("%s", library.image_notice)
    return None


def switch(library: Library, model: str, path: Path | str | None, *, reason: str) -> None:
    """Make `model` the active image model: record it (with `path`), delete every other model's
    image vectors (their figures' `clip_model` cleared), build its index from SQLite, and close the
    previously loaded model (it reloads on next use)."""
    with library.lock:
        row = library.conn.execute("SELECT dim FROM vectors WHERE space = 'image' AND model = ? LIMIT 1",
                                   (model,)).fetchone()
        with Transaction(library.conn) as c:
            c.execute("DELETE FROM vectors WHERE space = 'image' AND model != ?", (model,))
            c.execute("UPDATE figures SET clip_model = NULL WHERE clip_model != ?", (model,))
            c.execute("INSERT OR REPLACE INTO settings_kv (key, value) VALUES ('image_model', ?)", (model,))
            c.execute("INSERT OR REPLACE INTO settings_kv (key, value) VALUES ('image_model_path', ?)",
                      (str(path) if path else "",))
        library._indices.pop("image", None)  # the old model's index: dropped, never saved again
        if row is not None:
            index = VectorIndex(library.index_dir, "image", model, int(row[0]), threads=library.settings.threads)
            index.rebuild(library.conn, reason=f"switched to {model}")
            library._indices["image"] = index
        old = library._clip
        library._clip_target = None
        if old and old.model_id != model:
            library._clip = None
        else:
            old = None
    if old:
        old.close()
    log.info("image search switched to %s (%s)", model, reason)


def sync(library: Library) -> None:
    """Catch up with the recorded state: when another process (or thread) switched the active image
    model, drop the loaded model and image index (they reload on next use); when the pending model
    has become complete, switch to it."""
    active, _ = active_model(library)
    with library.lock:
        idx = library._indices.get("image")
        if active and idx is not None and idx.model != active:
            library._indices.pop("image", None)
        clip = library._clip
        stale = bool(clip) and bool(active) and clip.model_id != active
        if stale:
            library._clip, library._clip_target = None, None
    if stale:
        clip.close()
        return
    target = library._clip_target
    if clip and target is not None and missing_vectors(library, target.model_id) == 0:
        switch(library, target.model_id, target.path, reason="its vectors are complete")


def index_for(library: Library, model: str, dim: int, path: Path | str | None) -> VectorIndex | None:
    """Where enrichment adds a new image vector of `model`: the live image index when `model` is the
    active image model (it becomes active when none is recorded or the recorded one has no vectors);
    None while it is the pending new model, whose vectors are collected in SQLite until the switch."""
    with library.lock:
        active, _ = active_model(library)
        if is_pending(library, active, model):
            return None
        if active != model:
            _record(library, model, path)
        return library._index("image", model, dim)


def change_note(library: Library, model: str | None) -> str:
    """Plain words on an image-model change in progress towards `model` ('' when there is none)."""
    if not model:
        return ""
    active, _ = active_model(library)
    if not is_pending(library, active, model):
        return ""
    done, total = coverage(library, model)
    return f"image search keeps using {active} until {model} has embedded every figure ({done} of {total} done)"


def finish_run(library: Library, embedder, *, whole_library: bool) -> str:
    """After an enrichment run with `embedder` that was not cancelled: switch to it when it covers
    the library, or when the run covered the whole library and it embedded at least one figure
    (module doc). Returns a plain-words note for the run's last event ('' when nothing to say)."""
    model = getattr(embedder, "model_id", None)
    if not model:
        return ""
    active, _ = active_model(library)
    pending = is_pending(library, active, model)
    with library.lock:
        stale = library.conn.execute("SELECT 1 FROM vectors WHERE space = 'image' AND model != ? LIMIT 1",
                                     (model,)).fetchone() is not None
    if not stale:
        return ""
    missing = missing_vectors(library, model)
    if missing and not (whole_library and _has_vectors(library, model)):
        return change_note(library, model) if pending else ""
    switch(library, model, getattr(embedder, "path", None),
           reason="its vectors are complete" if not missing else f"{missing} figure(s) could not be embedded")
    if not pending:
        return ""
    left = f"; {missing} figure(s) without an image vector (see the errors above)" if missing else ""
    return f"image search now uses {model} instead of {active}{left}"
