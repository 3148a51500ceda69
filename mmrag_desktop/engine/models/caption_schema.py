"""The structured figure caption a vision-language model must produce, and its validation.

A caption is a JSON object:
  description: str           what the figure shows, for engineers
  type: one of FIGURE_TYPES
  visible_text: str          text readable in the image
  components: [{"name": str, "bbox_2d": [x0, y0, x1, y1]}]   boxes normalised to the crop (0..1)
  topics: [str]
Models emit boxes in their own convention (0..1, 0..1000, or pixels of the image they saw);
`normalise_box` turns them into crop fractions.
"""

from __future__ import annotations

import json
import re

FIGURE_TYPES = ("schematic", "block diagram", "plot", "photo", "table image", "screenshot", "other")

CAPTION_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "maxLength": 500},
        "type": {"type": "string", "enum": list(FIGURE_TYPES)},
        "visible_text": {"type": "string", "maxLength": 300},
        "components": {
            "type": "array",
            "maxItems": 8,
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "maxLength": 48},
                    "bbox_2d": {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4},
                },
                "required": ["name", "bbox_2d"],
            },
        },
        "topics": {"type": "array", "items": {"type": "string", "maxLength": 32}, "maxItems": 6},
    },
    "required": ["description", "type", "visible_text", "components", "topics"],
}


class CaptionInvalid(ValueError):
    """The model's output is not a valid structured caption (the message says what is wrong)."""


def parse_json_object(text: str) -> dict:
    """The first JSON object in `text` (models sometimes wrap it in prose or code fences).

    Raises CaptionInvalid when there is none.
    """
    text = text.strip()
    fence = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    if fence:
        text = fence.group(1)
    start = text.find("{")
    if start < 0:
        raise CaptionInvalid("the model's answer contains no JSON object")
    try:
        obj, _ = json.JSONDecoder(strict=False).raw_decode(text[start:])  # tolerate raw control chars
    except json.JSONDecodeError as e:
        raise CaptionInvalid(f"the model's answer is not valid JSON ({e.msg} at char {e.pos})") from e
    if not isinstance(obj, dict):
        raise CaptionInvalid("the model's answer is not a JSON object")
    return obj


def normalise_box(box, convention: str, image_size: tuple[int, int]) -> list[float] | None:
    """Convert a model box to crop fractions [x0, y0, x1, y1] in 0..1; None when degenerate.

    convention: "fraction" (0..1), "per-mille" (0..1000), "pixels" (pixels of the image the model
    saw, size `image_size`), or "auto" (fractions if all ≤ 1, else per-mille if all ≤ 1000 and the
    image is larger than that, else pixels).
    """
    try:
        x0, y0, x1, y1 = (float(v) for v in box)
    except (TypeError, ValueError):
        return None
    w, h = image_size
    if convention == "auto":
        top = max(x0, y0, x1, y1)
        if top <= 1.0:
            convention = "fraction"
        elif top <= 1000 and (w > 1000 or h > 1000 or top > max(w, h)):
            convention = "per-mille"
        else:
            convention = "pixels"
    if convention == "per-mille":
        x0, y0, x1, y1 = x0 / 1000, y0 / 1000, x1 / 1000, y1 / 1000
    elif convention == "pixels":
        x0, y0, x1, y1 = x0 / w, y0 / h, x1 / w, y1 / h
    x0, x1 = sorted((min(max(x0, 0.0), 1.0), min(max(x1, 0.0), 1.0)))
    y0, y1 = sorted((min(max(y0, 0.0), 1.0), min(max(y1, 0.0), 1.0)))
    if x1 - x0 < 1e-3 or y1 - y0 < 1e-3:
        return None
    return [round(x0, 4), round(y0, 4), round(x1, 4), round(y1, 4)]


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _clean(text: str) -> str:
    """Collapse whitespace and drop control characters."""
    return " ".join(_CONTROL.sub(" ", text).split())


def validate_caption(obj: dict, convention: str = "auto", image_size: tuple[int, int] = (1, 1)) -> dict:
    """Check and clean a caption object; returns the cleaned caption.

    Required keys must be present with the right types (raises CaptionInvalid otherwise); an
    unknown figure type becomes "other"; component boxes are normalised to crop fractions and
    components without a usable box are dropped; strings are trimmed.
    """
    if not isinstance(obj, dict):
        raise CaptionInvalid("a caption must be a JSON object")
    missing = [k for k in CAPTION_SCHEMA["required"] if k not in obj]
    if missing:
        raise CaptionInvalid(f"the caption lacks {', '.join(missing)}")
    for key in ("description", "type", "visible_text"):
        if not isinstance(obj[key], str):
            raise CaptionInvalid(f"'{key}' must be a string")
    if not isinstance(obj["components"], list) or not isinstance(obj["topics"], list):
        raise CaptionInvalid("'components' and 'topics' must be lists")
    description = _clean(obj["description"])
    if not description:
        raise CaptionInvalid("the description is empty")
    ftype = obj["type"].strip().lower()
    components = []
    for comp in obj["components"]:
        if not isinstance(comp, dict) or not isinstance(comp.get("name"), str) or not comp["name"].strip():
            continue
        box = normalise_box(comp.get("bbox_2d"), convention, image_size)
        if box is not None:
            components.append({"name": _clean(comp["name"]), "bbox_2d": box})
    return {
        "description": description,
        "type": ftype if ftype in FIGURE_TYPES else "other",
        "visible_text": _clean(obj["visible_text"]),
        "components": components,
        "topics": [_clean(t) for t in obj["topics"] if isinstance(t, str) and _clean(t)],
    }


def component_page_boxes(caption: dict, figure_bbox) -> list[dict]:
    """Each component's box in page coordinates (PDF points): [{"name", "bbox"}], via the figure's bbox."""
    fx0, fy0, fx1, fy1 = (float(v) for v in figure_bbox)
    fw, fh = fx1 - fx0, fy1 - fy0
    out = []
    for comp in caption.get("components", []):
        x0, y0, x1, y1 = comp["bbox_2d"]
        out.append({"name": comp["name"], "bbox": [round(fx0 + x0 * fw, 2), round(fy0 + y0 * fh, 2),
                                                    round(fx0 + x1 * fw, 2), round(fy0 + y1 * fh, 2)]})
    return out


def caption_text(caption: dict) -> str:
    """The words of a caption that go into the figure chunk's searchable text."""
    parts = [caption["description"]]
    if caption.get("visible_text"):
        parts.append(f"Visible text: {caption['visible_text']}")
    if caption.get("components"):
        parts.append("Components: " + ", ".join(c["name"] for c in caption["components"]))
    if caption.get("topics"):
        parts.append("Topics: " + ", ".join(caption["topics"]))
    return "\n".join(parts)
