"""The answer model: llama-cpp-python over a GGUF file, loaded once and kept in a small pool.

- llama_cpp is imported through models/llama_native.py: OpenMP waits passively (on 2-vCPU
  machines busy-waiting made runs sporadically 100x slower) and native logs are silenced, once
  per process; models load with `verbose=False`.
- A model file the user chose is verified in a separate process first (models/isolated.py:
  llama.cpp aborts the whole process on some damaged files); results are cached per path, size
  and mtime.
- The prompt is rendered with the model's own chat template (GGUF `tokenizer.chat_template`);
  a model without one gets a generic plain-text prompt and `has_chat_template` is False.
- Between questions llama.cpp keeps the KV cache of the longest common token prefix, so the
  fixed system prompt is processed once (`warm()` does it at load time).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Cancelled, ModelError
from ..jobs import CancelToken
from ..models import llama_native
from ..models.isolated import IsolationTimeout, run_isolated
from . import prompt as prompt_mod

ROLE = "answer_llm"
CHOICE_SLICE = 128  # prompt tokens read between two looks at the cancel token (next_token_choice)


def import_llama_cpp():
    """Import llama_cpp with OpenMP set to passive waiting and native logs silenced
    (models/llama_native.py). Raises ModelError when llama-cpp-python is not installed."""
    return llama_native.import_llama_cpp(ROLE)


def check_gguf_header(path: Path) -> None:
    """Raise ModelError unless `path` is a readable file starting with the GGUF magic."""
    if not path.is_file():
        raise ModelError(ROLE, f"model file not found: {path}")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise ModelError(ROLE, f"cannot read model file {path}: {e}") from e
    if magic != b"GGUF":
        raise ModelError(ROLE, f"{path.name} is not a GGUF model file (llama.cpp needs .gguf files)")


def _verify_cache_file() -> Path:
    from ..settings import cache_dir

    return cache_dir() / "verified_models.json"


def verify_model(path: Path, timeout: float = 120.0) -> dict:
    """Load `path` in a separate process and run one decode; returns its facts
    ({"ok", "chat_template", "n_ctx_train", "arch"}). A crash or error there becomes a
    ModelError with a plain message, and this process survives it. Cached per file version."""
    path = Path(path).resolve()
    check_gguf_header(path)
    st = path.stat()
    key = f"{path}|{st.st_size}|{int(st.st_mtime)}"
    cache_file = _verify_cache_file()
    try:
        cache = json.loads(cache_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cache = {}
    if key in cache:
        return cache[key]
    try:
        facts = {"ok": True, **run_isolated(ROLE, llama_native.probe_gguf, (str(path),), what=path.name,
                                            timeout=timeout)}
    except IsolationTimeout as e:
        raise ModelError(ROLE, f"{path.name} took more than {timeout:.0f} s to load; not used") from e
    except ModelError as e:
        raise ModelError(ROLE, f"{path.name} is damaged or not a model llama.cpp supports: {e.reason}") from e
    cache[key] = facts
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps(cache, indent=1), encoding="utf-8")
    except OSError:
        pass  # the cache only saves time
    return facts


@dataclass
class GenerationStats:
    """Timing of one generation. prompt_tokens: the whole prompt; cached_tokens: the part the
    KV cache already held (not processed again); ttft_s: from the call to the first token."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    generated_tokens: int = 0
    ttft_s: float = 0.0
    total_s: float = 0.0
    finish_reason: str = ""
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        d = dict(self.__dict__)
        d.pop("extra")
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in d.items()}


def _split_at_marks(prompt: str, marks: list[str]) -> list[str] | None:
    """The template text around each mark, in order (len(marks) + 1 pieces), or None when a mark
    is missing or repeated (the template rewrote its input)."""
    pieces, pos = [], 0
    for mark in marks:
        j = prompt.find(mark, pos)
        if j < 0 or prompt.count(mark) != 1:
            return None
        pieces.append(prompt[pos:j])
        pos = j + len(mark)
    pieces.append(prompt[pos:])
    return pieces


class LlamaRunner:
    """One loaded GGUF model. Not thread-safe: one generation at a time (a lock guards it)."""

    def __init__(
        self,
        path: Path | str,
        *,
        n_ctx: int = 4096,
        n_threads: int = 2,
        model_id: str = "",
        verify: bool = True,
        seed: int = 1234,
    ):
        """Load the model. Raises ModelError (plain message) when the file is not a usable GGUF."""
        self.path = Path(path)
        self.model_id = model_id or self.path.name
        check_gguf_header(self.path)
        if verify:
            verify_model(self.path)
        llama_cpp = import_llama_cpp()
        n_threads = max(1, int(n_threads))
        try:
            self.llm = llama_cpp.Llama(
                model_path=str(self.path),
                n_ctx=int(n_ctx),
                n_threads=n_threads,
                n_threads_batch=n_threads,
                n_batch=512,
                seed=seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelError(ROLE, f"{self.path.name} could not be loaded by llama.cpp: {e}") from e
        self.n_ctx = self.llm.n_ctx()
        self.lock = threading.Lock()
        meta = self.llm.metadata or {}
        self.chat_template = meta.get("tokenizer.chat_template") or ""
        self.has_chat_template = bool(self.chat_template)
        self._formatter = None
        if self.has_chat_template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            eos = self.llm.detokenize([self.llm.token_eos()], special=True).decode("utf-8", "ignore")
            bos = self.llm.detokenize([self.llm.token_bos()], special=True).decode("utf-8", "ignore")
            try:
                self._formatter = Jinja2ChatFormatter(template=self.chat_template, eos_token=eos, bos_token=bos)
            except Exception:  # a template jinja cannot compile: use the generic prompt
                self.has_chat_template = False
        self.closed = False

    # -- tokens ---------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        """Number of tokens `text` takes in this model (no BOS)."""
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def render(self, messages: Sequence[dict]) -> tuple[list[int], list[str]]:
        """Prompt tokens for chat `messages` and the stop strings, using the model's own chat
        template, or the generic template when the model has none.

        Only the template's own text may produce special tokens: each message's content (manual
        text, section names, the question) is tokenized on its own as plain text, so a manual
        that contains `<|im_end|><|im_start|>system` cannot open a chat turn."""
        if self._formatter is not None:
            marks = [f"\ue000{i}\ue001" for i in range(len(messages))]
            res = self._formatter(messages=[dict(m, content=mark) for m, mark in zip(messages, marks, strict=True)])
            stop = res.stop if isinstance(res.stop, list) else ([res.stop] if res.stop else [])
            pieces = _split_at_marks(res.prompt, marks)
            if pieces is None:  # a template that changes what it is given: plain text with the specials broken up
                prompt = self._formatter(messages=[dict(m, content=self.defuse(m["content"])) for m in messages]).prompt
                toks = self.llm.tokenize(prompt.encode("utf-8"), add_bos=not res.added_special, special=True)
                return toks, [s for s in stop if s]
            toks = self.llm.tokenize(pieces[0].encode("utf-8"), add_bos=not res.added_special, special=True)
            for m, between in zip(messages, pieces[1:], strict=True):
                toks += self.llm.tokenize(m["content"].encode("utf-8"), add_bos=False, special=False)
                toks += self.llm.tokenize(between.encode("utf-8"), add_bos=False, special=True)
            return toks, [s for s in stop if s]
        text = prompt_mod.generic_prompt(messages)
        return self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=False), list(prompt_mod.GENERIC_STOP)

    def defuse(self, text: str) -> str:
        """`text` with every special-token string of this model broken by a zero-width space."""
        for special in self._special_texts():
            if special in text:
                text = text.replace(special, special[0] + "\u200b" + special[1:])
        return text

    def _special_texts(self) -> list[str]:
        if not hasattr(self, "_specials"):
            found = set()
            for tid in range(self.llm.n_vocab()):
                piece = self.llm.detokenize([tid], special=True).decode("utf-8", "ignore")
                if len(piece) > 2 and piece.startswith(("<", "[")) and piece.endswith((">", "]")) and \
                        self.llm.tokenize(piece.encode("utf-8"), add_bos=False, special=True) == [tid] and \
                        len(self.llm.tokenize(piece.encode("utf-8"), add_bos=False, special=False)) > 1:
                    found.add(piece)
            self._specials = sorted(found, key=len, reverse=True)
        return self._specials

    def warm(self, messages: Sequence[dict]) -> int:
        """Process the prompt of `messages` into the KV cache (no sampling), so the next prompt
        sharing its prefix (the system prompt) starts from there. Returns the tokens processed."""
        toks, _ = self.render(messages)
        with self.lock:
            self.llm.reset()
            self.llm.eval(toks)
        return len(toks)

    # -- generation -----------------------------------------------------------------------
    def _cached_prefix(self, toks: Sequence[int]) -> int:
        n = 0
        # llama-cpp-python keeps the evaluated tokens only in this private array (no public accessor)
        for a, b in zip(self.llm._input_ids[: self.llm.n_tokens], toks[:-1], strict=False):  # noqa: SLF001
            if a != b:
                break
            n += 1
        return n

    def stream(
        self,
        tokens: Sequence[int],
        *,
        max_tokens: int = 384,
        stop: Sequence[str] = (),
        cancel: CancelToken | None = None,
        stats: GenerationStats | None = None,
        temperature: float = 0.0,
        grammar: str | None = None,
    ) -> Iterator[str]:
        """Generate from prompt `tokens`, yielding text pieces as they decode; `grammar` (GBNF)
        constrains the output to that language.

        Checks `cancel` between tokens and raises `Cancelled`; fills `stats` as it goes. Closing
        the iterator stops the generation. Raises ModelError when the prompt does not fit the
        context or the grammar does not parse.
        """
        if self.closed:
            raise ModelError(ROLE, "the answer model was closed")
        room = self.n_ctx - len(tokens)
        if room < 8:
            raise ModelError(ROLE, f"the prompt ({len(tokens)} tokens) does not fit the context ({self.n_ctx})")
        st = stats if stats is not None else GenerationStats()
        st.prompt_tokens = len(tokens)
        compiled = self._grammar(grammar) if grammar else None
        with self.lock:
            st.cached_tokens = self._cached_prefix(tokens)
            t0 = time.perf_counter()
            it = self.llm.create_completion(
                list(tokens),
                max_tokens=min(max_tokens, room),
                temperature=temperature,
                top_k=40,
                top_p=0.95,
                repeat_penalty=1.1,
                stop=list(stop) or None,
                stream=True,
                grammar=compiled,
            )
            try:
                for chunk in it:
                    choice = chunk["choices"][0]
                    piece = choice.get("text") or ""
                    if choice.get("finish_reason"):
                        st.finish_reason = choice["finish_reason"]
                    if piece:
                        if not st.generated_tokens:
                            st.ttft_s = time.perf_counter() - t0
                        st.generated_tokens += 1
                        yield piece
                    if cancel is not None and cancel.cancelled:
                        st.finish_reason = "cancelled"
                        raise Cancelled("answer cancelled")
            finally:
                it.close()
                st.total_s = time.perf_counter() - t0

    def next_token_choice(self, tokens: Sequence[int], options: Sequence[str], *, reply: str = "",
                          cancel: CancelToken | None = None, stats: GenerationStats | None = None) -> list[float]:
        """The probability the model gives each of `options` as the next token after prompt
        `tokens` and the start of its reply `reply` (softmax over the options' logits): one pass
        over the prompt, nothing sampled.

        Each option must be one token of this model ("1".."8" are, in the models measured).
        The KV cache's common prefix is kept (the system prompt is not processed again); `cancel`
        is checked between slices of the prompt. Raises ModelError when the prompt does not fit,
        an option is not one token, or llama.cpp fails; Cancelled when cancelled."""
        import numpy as np

        if self.closed:
            raise ModelError(ROLE, "the answer model was closed")
        tokens = list(tokens) + (self.llm.tokenize(reply.encode("utf-8"), add_bos=False, special=False) if reply else [])
        ids = [self.llm.tokenize(o.encode("utf-8"), add_bos=False, special=False) for o in options]
        if any(len(t) != 1 for t in ids) or len({t[0] for t in ids}) != len(ids):
            raise ModelError(ROLE, f"{self.model_id} does not read the options {list(options)} as one token each")
        if len(tokens) + 1 > self.n_ctx:
            raise ModelError(ROLE, f"the prompt ({len(tokens)} tokens) does not fit the context ({self.n_ctx})")
        st = stats if stats is not None else GenerationStats()
        st.prompt_tokens = len(tokens)
        with self.lock:
            t0 = time.perf_counter()
            keep = self._cached_prefix(tokens)
            st.cached_tokens = keep
            self.llm.n_tokens = keep  # eval drops the KV cache past this point
            try:
                for i in range(keep, len(tokens), CHOICE_SLICE):
                    if cancel is not None and cancel.cancelled:
                        raise Cancelled("answer cancelled")
                    self.llm.eval(list(tokens[i:i + CHOICE_SLICE]))
                logits = np.ctypeslib.as_array(self.llm._ctx.get_logits(), shape=(self.llm.n_vocab(),))  # noqa: SLF001
                chosen = np.array([float(logits[t[0]]) for t in ids])
            except (RuntimeError, ValueError) as e:
                self.llm.reset()
                raise ModelError(ROLE, f"the model could not read the prompt: {e}") from e
            finally:  # cancelled, the cache holds the prompt's start: a valid prefix for the next one
                st.total_s = st.ttft_s = time.perf_counter() - t0
        p = np.exp(chosen - chosen.max())
        return [float(x) for x in p / p.sum()]

    def _grammar(self, gbnf: str):
        from llama_cpp import LlamaGrammar

        try:
            return LlamaGrammar.from_string(gbnf, verbose=False)
        except (ValueError, RuntimeError) as e:
            raise ModelError(ROLE, f"the answer grammar does not parse: {e}") from e

    @property
    def n_params(self) -> int:
        """The model's parameter count (0 when llama.cpp cannot tell)."""
        try:
            return int(self.llm._model.n_params())  # noqa: SLF001 - llama-cpp-python keeps it on its model wrapper
        except (AttributeError, ValueError, RuntimeError):
            return 0

    def close(self) -> None:
        """Free the model and its context (idempotent)."""
        if not self.closed:
            self.closed = True
            with self.lock:
                self.llm.close()


class AnswerModelPool:
    """Keeps one loaded answer model (the last one asked for), keyed by path and settings."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple | None = None
        self._runner: LlamaRunner | None = None

    def get(self, path: Path, *, n_ctx: int, n_threads: int, model_id: str = "", verify: bool = True) -> LlamaRunner:
        """The runner for this model and settings, loading it (and closing another) if needed.
        Raises ModelError when it cannot be loaded."""
        p = Path(path).resolve()
        st = p.stat() if p.exists() else None
        key = (str(p), st.st_mtime if st else 0, int(n_ctx), int(n_threads))
        with self._lock:
            if self._runner is not None and self._key == key and not self._runner.closed:
                return self._runner
            self.close()
            runner = LlamaRunner(p, n_ctx=n_ctx, n_threads=n_threads, model_id=model_id, verify=verify)
            from .prompt import SYSTEM_PROMPT

            runner.warm([{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "?"}])
            self._runner, self._key = runner, key
            return runner

    def close(self) -> None:
        """Free the loaded model, if any."""
        if self._runner is not None:
            self._runner.close()
        self._runner, self._key = None, None


POOL = AnswerModelPool()


def close_models() -> None:
    """Free every answer model this process loaded (call at exit or when settings change)."""
    POOL.close()
