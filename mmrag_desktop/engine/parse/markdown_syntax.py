"""The Markdown grammar: a configured markdown-it-py parser, plus what it lacks.

`markdown_parser()` is CommonMark (markdown-it-py) with raw HTML, GFM tables and
strikethrough, YAML front matter and inline `$…$` math (mdit-py-plugins), and two
additions made here:

- a block rule for display math, `$$ … $$` and `\\[ … \\]` (opener at the start of a
  line, closer on the same or a later line; it may interrupt a paragraph). A `\\[` counts
  only alone on its line or closed on it, so an escaped bracket (`\\[!TIP]`) stays text;
- source positions for inline tokens: an inline token gets `meta["span"]`, the (start,
  end) offsets in its inline source of the rule match that produced it (text flushed at
  the very end has none), so a caller can tell on which line of a paragraph an image
  sits (markdown-it maps only blocks to lines).

`prepare_source()` does what the parser does not: TOML (`+++`) front matter is blanked
and tabs expanded to 4-column stops (so code keeps its alignment as plain text).
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

InlineRule = Callable[[StateInline, bool], bool]

_MAX_FRONT_MATTER_LINES = 400


def prepare_source(text: str) -> str:
    """Normalise newlines, blank a leading `+++` (TOML) front matter block, expand tabs.

    Line numbers are kept: blanked lines stay as empty lines.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[0].strip() == "+++":
        for j in range(1, min(len(lines), _MAX_FRONT_MATTER_LINES)):
            if lines[j].strip() == "+++":
                lines[: j + 1] = [""] * (j + 1)
                break
    if "\t" in text:
        lines = [s.expandtabs(4) if "\t" in s else s for s in lines]
    return "\n".join(lines)


@functools.cache
def markdown_parser() -> MarkdownIt:
    """The shared parser (built once; parsing keeps no state in it)."""
    md = MarkdownIt("commonmark", {"html": True})  # maxNesting 20: lists 9 deep, quotes 19
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    # Inline `$…$` math only (its text is kept verbatim, so `_` in it is no emphasis). An
    # opening `$` after a digit or a closing one before a digit does not count, so prices
    # ("$5 and $10") stay text.
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False)
    md.disable("math_block")
    md.block.ruler.before(
        "fence", "display_math", _display_math, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    # Image sources are paths to load, never rendered as HTML: keep them as written
    # (markdown-it would drop e.g. `data:image/svg+xml` and percent-encode the rest).
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    md.normalizeLink = lambda url: url  # type: ignore[method-assign]
    ruler = md.inline.ruler
    for rule in list(ruler.__rules__):  # public Ruler API has no getter for one rule's function
        if rule.name != "text":  # it only adds to pending text, never pushes a token
            ruler.at(rule.name, _with_span(rule.fn), {"alt": rule.alt})
    return md


# ---------------------------------------------------------------- inline positions
def _with_span(fn: InlineRule) -> InlineRule:
    """Wrap an inline rule so the tokens it pushes record the source span it matched.

    A token flushed from pending text just before the rule's own tokens gets the same
    span; pending text never holds a newline, so its line is the line where that span
    starts, which is all the span is used for.
    """

    def rule(state: StateInline, silent: bool) -> bool:
        if silent:
            return fn(state, True)
        start, count = state.pos, len(state.tokens)
        if not fn(state, False):
            return False
        span = (start, state.pos)
        for token in state.tokens[count:]:
            token.meta.setdefault("span", span)
        return True

    return rule


# ---------------------------------------------------------------- display math
_OPENERS = {"$$": "$$", "\\[": "\\]"}


def _display_math(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """`$$ … $$` or `\\[ … \\]` as one `math_block` token (content without delimiters)."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False  # indented code
    pos = state.bMarks[start] + state.tShift[start]
    opener = state.src[pos : pos + 2]
    closer = _OPENERS.get(opener)
    if closer is None:
        return False
    first = state.src[pos + 2 : state.eMarks[start]]
    if opener == "\\[" and first.strip() and not first.rstrip().endswith(closer):
        return False  # `\[!TIP]`: an escaped bracket in text
    last = start if closer in first else _next_line_with(state, closer, start)
    if last is None or last >= end:
        return False  # never closed: not math
    if silent:
        return True
    parts = [first]
    for k in range(start + 1, last + 1):
        parts.append(state.src[state.bMarks[k] + state.tShift[k] : state.eMarks[k]])
    cut = parts[-1].find(closer)
    if cut >= 0:
        parts[-1] = parts[-1][:cut]
    token = state.push("math_block", "math", 0)
    token.block = True
    token.markup = opener
    token.content = "\n".join(p.strip() for p in parts if p.strip())
    token.map = [start, last + 1]
    state.line = last + 1
    return True


def _next_line_with(state: StateBlock, closer: str, line: int) -> int | None:
    """First line after `line` whose text holds `closer` (a per-parse index: linear time)."""
    key = f"_mmrag_lines_with_{closer}"
    lines = state.env.get(key)
    if lines is None:
        lines = state.env[key] = _lines_containing(state.src, closer)
    k = bisect_right(lines, line)
    return lines[k] if k < len(lines) else None


def _lines_containing(src: str, needle: str) -> list[int]:
    """0-based numbers of the lines of `src` that contain `needle`, ascending."""
    out: list[int] = []
    line, counted = 0, 0
    pos = src.find(needle)
    while pos >= 0:
        line += src.count("\n", counted, pos)
        counted = pos
        if not out or out[-1] != line:
            out.append(line)
        pos = src.find(needle, pos + len(needle))
    return out
