"""Vision-language model (role `vlm`): a GGUF language model + its mmproj through llama.cpp's
multimodal (libmtmd) chat handlers in llama-cpp-python.

`VisionLanguageModel.caption(image)` returns a validated structured caption (caption_schema);
`ask(image, question)` answers a free-form question about an image ("what is this?").
`verify_vlm(model, mmproj)` loads a pair in a separate process first: a bad mmproj can
segfault llama.cpp instead of raising, which must not take the app down.
"""

from __future__ import annotations

import base64
import threading
from pathlib import Path

from ..errors import ModelError
from ..images import flatten_on_white
from . import caption_schema as cs
from .files import gguf_metadata
from .llama_native import import_llama_cpp

ROLE = "vlm"

SYSTEM_PROMPT = (
    "You describe figures from technical manuals for an engineer's search index. "
    "Answer with one JSON object only."
)
CAPTION_PROMPT = (
    "Describe this figure as JSON with keys: description (what it shows, 1-3 sentences), "
    "type (one of: " + ", ".join(cs.FIGURE_TYPES) + "), visible_text (text readable in the image), "
    "components (up to 8 labelled parts, each {\"name\", \"bbox_2d\": [x0, y0, x1, y1]}), "
    "topics (up to 6 short keywords)."
)
IMAGE_MAX_SIDE = 1024


def _import_llama():
    """llama_cpp (imported with OpenMP waiting passively and the llama.cpp and libmtmd logs
    silenced: llama_native.py) and its chat-format module."""
    llama_cpp = import_llama_cpp(ROLE, mtmd=True)
    import llama_cpp.llama_chat_format as chat_format

    return llama_cpp, chat_format


def box_convention(model_id: str) -> str:
    """How a model family writes bbox_2d: Qwen2.5-VL uses pixels of the image it saw, Qwen2/3-VL
    per-mille; others are judged from the values ("auto")."""
    mid = model_id.lower().replace("_", "-")
    if "qwen2.5-vl" in mid or "qwen25-vl" in mid:
        return "pixels"
    if "qwen2-vl" in mid or "qwen3-vl" in mid:
        return "per-mille"
    return "auto"


def prepare_image(image, convention: str = "auto"):
    """RGB PIL image bounded to IMAGE_MAX_SIDE; for pixel-convention models, sides are multiples of 28
    (Qwen2.5-VL's patch grid) so the boxes it returns are in this image's pixels."""
    from PIL import Image

    image = flatten_on_white(image)
    scale = min(1.0, IMAGE_MAX_SIDE / max(image.size))
    w, h = max(1, round(image.width * scale)), max(1, round(image.height * scale))
    if convention == "pixels":
        w, h = max(28, round(w / 28) * 28), max(28, round(h / 28) * 28)
    if (w, h) != image.size:
        image = image.resize((w, h), Image.Resampling.LANCZOS)
    return image


def image_data_uri(image) -> str:
    """A PNG data URI of a PIL image (libmtmd rejects WebP, so everything is sent as PNG)."""
    from ..figures.crops import to_png_bytes

    return "data:image/png;base64," + base64.b64encode(to_png_bytes(image)).decode("ascii")


class VisionLanguageModel:
    """A loaded GGUF + mmproj pair. Not thread-safe per call; a lock serialises calls. Call `close()`."""

    def __init__(self, model_path: Path, mmproj_path: Path, *, model_id: str = "", n_ctx: int = 4096,
                 threads: int = 2, handler: str = "auto", max_tokens: int = 512, seed: int = 0):
        self.model_path, self.mmproj_path = Path(model_path), Path(mmproj_path)
        self.model_id = model_id or self.model_path.stem
        self.max_tokens = max_tokens
        self.last_finish_reason = ""
        self.seed = seed
        self.convention = box_convention(self.model_id)
        self._lock = threading.Lock()
        for p, what in ((self.model_path, "model"), (self.mmproj_path, "mmproj")):
            if not p.is_file():
                raise ModelError(ROLE, f"the {what} file {p} does not exist")
        llama_cpp, chat_format = _import_llama()
        try:
            has_template = bool(gguf_metadata(self.model_path, ("tokenizer.chat_template",), max_kv=4096))
        except ValueError as e:
            raise ModelError(ROLE, str(e)) from e
        if handler == "auto":
            handler = "mtmd" if has_template else "llava15"
        if handler == "mtmd" and not has_template:
            raise ModelError(ROLE, f"{self.model_path.name} has no chat template; the mtmd handler needs one")
        cls = {"mtmd": chat_format.MTMDChatHandler, "llava15": chat_format.Llava15ChatHandler}.get(handler)
        if cls is None:
            raise ModelError(ROLE, f"unknown chat handler '{handler}' (mtmd, llava15)")
        self.handler_name = handler
        try:
            chat_handler = cls(clip_model_path=str(self.mmproj_path), verbose=False)
            self.llm = llama_cpp.Llama(
                model_path=str(self.model_path), chat_handler=chat_handler, n_ctx=n_ctx,
                n_threads=threads, n_threads_batch=threads, n_gpu_layers=0, verbose=False, seed=seed,
            )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelError(ROLE, f"cannot load {self.model_path.name} with {self.mmproj_path.name}: {e}") from e

    def _chat(self, image, text: str, *, schema: dict | None, max_tokens: int, temperature: float,
              system: str = SYSTEM_PROMPT) -> str:
        if self.llm is None:
            raise ModelError(ROLE, "the model was closed")
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": image_data_uri(image)}},
                {"type": "text", "text": text},
            ]},
        ]
        kwargs = {}
        if schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        with self._lock:
            try:
                out = self.llm.create_chat_completion(messages=messages, max_tokens=max_tokens,
                                                      temperature=temperature, seed=self.seed, **kwargs)
            except (ValueError, RuntimeError) as e:
                if "mtmd context" in str(e):
                    raise ModelError(ROLE, f"the vision projector {self.mmproj_path.name} does not fit "
                                           f"{self.model_path.name} (mismatched or damaged mmproj)") from e
                raise ModelError(ROLE, f"the vision model failed on this image: {e}") from e
        choice = out["choices"][0]
        self.last_finish_reason = choice.get("finish_reason") or ""
        return choice["message"].get("content") or ""

    def caption(self, image) -> dict:
        """A validated structured caption of a PIL image (boxes as crop fractions).

        Generation is constrained to the caption JSON schema; an invalid answer is retried once
        with the validation error in the prompt. Raises ModelError when both attempts fail.
        """
        img = prepare_image(image, self.convention)
        prompt, error = CAPTION_PROMPT, ""
        for attempt in range(2):
            raw = self._chat(img, prompt, schema=cs.CAPTION_SCHEMA, max_tokens=self.max_tokens,
                             temperature=0.1 if attempt == 0 else 0.5)
            try:
                return cs.validate_caption(cs.parse_json_object(raw), self.convention, img.size)
            except cs.CaptionInvalid as e:
                error = str(e)
                if self.last_finish_reason == "length":
                    error += f" (the answer was cut off at {self.max_tokens} tokens)"
                prompt = f"{CAPTION_PROMPT}\nYour previous answer was invalid ({error}). Answer with the JSON object only."
        raise ModelError(ROLE, f"no valid caption after a retry: {error}")

    def ask(self, image, question: str, *, context: str = "", max_tokens: int = 256) -> str:
        """A free-form answer to `question` about a PIL image, optionally grounded in `context` text."""
        text = question if not context else f"Context from the manuals:\n{context}\n\nQuestion: {question}"
        return self._chat(prepare_image(image), text, schema=None, max_tokens=max_tokens, temperature=0.2,
                          system="You answer questions about images from technical manuals, briefly.")

    def close(self) -> None:
        """Free the native model and projector."""
        llm, self.llm = getattr(self, "llm", None), None
        if llm is not None:
            llm.close()

    def __enter__(self) -> VisionLanguageModel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def load_vlm(settings=None, **kwargs) -> VisionLanguageModel:
    """Load the resolved `vlm` role. Raises ModelError when none is configured or it fails to load."""
    from .registry import require

    r = require(ROLE, settings)
    threads = kwargs.pop("threads", getattr(settings, "threads", 2) if settings is not None else 2)
    return VisionLanguageModel(r.path, r.extra["mmproj"], model_id=r.model_id, threads=threads, **kwargs)


# ---- verification in a child process -------------------------------------------------------


def _verify_pair(model: str, mmproj: str) -> dict:  # runs in a child process
    from PIL import Image

    with VisionLanguageModel(Path(model), Path(mmproj), n_ctx=1024, threads=1, max_tokens=8) as vlm:
        text = vlm.ask(Image.new("RGB", (64, 48), (255, 255, 255)), "What is this?", max_tokens=4)
        return {"handler": vlm.handler_name, "chars": len(text)}


def verify_vlm(model: Path, mmproj: Path, timeout: float = 180.0) -> dict:
    """Load the pair and run one tiny image prompt in a separate process.

    Returns {"handler": ..., "chars": n}. Raises ModelError with a plain reason when loading
    fails, the process crashes (e.g. a mismatched mmproj segfaults llama.cpp), or it takes
    longer than `timeout` seconds.
    """
    from .isolated import run_isolated

    what = f"{Path(model).name} with {Path(mmproj).name}"
    return run_isolated(ROLE, _verify_pair, (str(model), str(mmproj)), what=what, timeout=timeout)
