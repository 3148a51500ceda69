"""What an enrichment run does about an image-model change (models/active_image.py owns the
active image model and the switch itself).

After a run with the configured image embedder that was not cancelled, `finish_run` switches
image search to it when it covers the library, and also when the run covered the whole library
and embedded at least one figure even though some figures are left without a vector (their errors
were reported in the run's events): one unreadable figure must not pin the old model forever.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models.active_image import ActiveImageModel


def change_note(image: ActiveImageModel, model: str | None) -> str:
    """Plain words on an image-model change in progress towards `model` ('' when there is none)."""
    if not model:
        return ""
    active, _ = image.active_model()
    if not image.is_pending(active, model):
        return ""
    done, total = image.coverage(model)
    return f"image search keeps using {active} until {model} has embedded every figure ({done} of {total} done)"


def finish_run(image: ActiveImageModel, embedder, *, whole_library: bool) -> str:
    """After an enrichment run with `embedder` that was not cancelled: switch to it when it covers
    the library, or when the run covered the whole library and it embedded at least one figure
    (module doc). Returns a plain-words note for the run's last event ('' when nothing to say)."""
    model = getattr(embedder, "model_id", None)
    if not model:
        return ""
    active, _ = image.active_model()
    pending = image.is_pending(active, model)
    if not image.vectors.has_other_models("image", model):
        return ""
    missing = image.missing_vectors(model)
    if missing and not (whole_library and image.vectors.has_any("image", model)):
        return change_note(image, model) if pending else ""
    image.switch(model, getattr(embedder, "path", None),
                 reason="its vectors are complete" if not missing else f"{missing} figure(s) could not be embedded")
    if not pending:
        return ""
    left = f"; {missing} figure(s) without an image vector (see the errors above)" if missing else ""
    return f"image search now uses {model} instead of {active}{left}"
