"""The `ask` verb: `mmrag --library DIR ask "question" [--json] [--extractive] [-k N]`.

Without --json the checked answer is printed one sentence a line: a sentence the manuals do not
back starts with "? " and ends with why, and a number or name found in no evidence is wrapped as
"{8?}"; then how many sentences were checked and the resolved citations. Notices (fallbacks,
guards) go to stderr as they happen (not with -q). With --json one object is printed (DESIGN.md's
`ask --json` shape plus `sentences`). Engine errors propagate to `cli.run`, which prints them as one
line. Ctrl+C stops the answer: what was written so far is printed, "mmrag: interrupted" goes to
stderr and the exit code is 130. `--export FILE` (repeatable) also writes the answer for an expert:
one self-contained HTML page, or the same bundle as JSON for a name ending in .json
(engine/export/, docs/export.md); the path written is a note on stderr.
"""

from __future__ import annotations

import json
import re
import signal
import sys


def register(subparsers) -> None:
    """Add the `ask` verb to the CLI's subparsers."""
    a = subparsers.add_parser("ask", help="answer a question from the manuals, with checked citations")
    a.add_argument("question", nargs="?", default="", help="the question (quote it)")
    a.add_argument("--image", metavar="IMAGE", help='ask about a photo or screenshot (default question "What is this?")')
    a.add_argument("--json", action="store_true", help="print one JSON answer object")
    a.add_argument("--extractive", action="store_true", help="no model: answer with the best cited sentences")
    a.add_argument("--generative", action="store_true", help="the answer model writes freely (checked sentence by sentence)")
    a.add_argument("--quote", action="store_true",
                   help="the answer model quotes evidence sentences (grammar-constrained) and adds a short answer")
    a.add_argument("--pick", action="store_true",
                   help="the best cited sentences, the answer model choosing which one answers (all quoted verbatim)")
    a.add_argument("-k", type=int, default=8, help="hits to retrieve as evidence (default 8)")
    a.add_argument("--max-tokens", type=int, default=None, help="longest answer in tokens")
    a.add_argument("--export", metavar="FILE", action="append", default=[],
                   help="also write the answer for an expert: a self-contained HTML page with the cited page "
                        "crops (FILE.json: the same as JSON); repeatable")
    a.set_defaults(func=cmd_ask)


def _format_citation(c) -> str:
    box = ", box " + "/".join(f"{v:.0f}" for v in c.bbox) if c.bbox else ""
    return f"[{c.id}] {c.doc}, page {c.page}{box}"


def _mark_missing(text: str, missing: list[str]) -> str:
    for term in sorted(set(missing), key=len, reverse=True):
        text = re.sub(r"(?<![\w{])" + re.escape(term) + r"(?![\w?])", "{" + term + "?}", text)
    return text


def marked_text(answer) -> str:
    """The answer as the terminal shows it: one sentence a line; "? " before a sentence the
    manuals do not back (and why after it), "{term?}" around a number or name found in no
    evidence; then "n of m sentences checked against the manuals." Answers without checked
    sentences (not covered, image answers) print their text."""
    if not answer.sentences:
        return answer.text
    lines = []
    for s in answer.sentences:
        if s.claim and not s.supported:
            lines.append(f"? {_mark_missing(s.text, s.missing)}   <- {s.reason or 'not found in the cited pages'}")
        else:
            lines.append(s.text)
    c = answer.checked
    if c["claims"]:
        lines.append(f"({c['supported']} of {c['claims']} sentences checked against the manuals)")
    if answer.stats.get("model_answer"):
        lines.append("(the model's own answer, not backed by the manuals, is in --json: stats.model_answer)")
    return "\n".join(lines)


def cmd_ask(args) -> int:
    """Run the verb; returns the exit code (0 when an answer, even "not covered", was given;
    130 when Ctrl+C stopped it)."""
    from .cli import EXIT_INTERRUPTED, note, open_library
    from .engine.answer import answer_events, close_models
    from .engine.answer.events import ErrorEvent
    from .engine.export import check_target
    from .engine.jobs import CancelToken

    for target in args.export:  # a bad file name fails before the answer is made
        check_target(target)
    lib = open_library(args, write=False)
    settings = lib.settings
    if args.max_tokens:
        settings.max_answer_tokens = int(args.max_tokens)
    mode = ("extractive" if args.extractive else "generative" if args.generative
            else "quote" if args.quote else "pick" if args.pick else "auto")
    cancel = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())  # Ctrl-C stops the answer cleanly
    answer = None
    try:
        if args.image:
            from .engine.answer.image_question import image_answer_events

            events = image_answer_events(lib, args.image, args.question, cancel=cancel, settings=settings,
                                         k=min(args.k, 5))
        else:
            events = answer_events(lib, args.question, mode=mode, cancel=cancel, settings=settings, k=args.k)
        for ev in events:
            if ev.kind == "notice":
                note(args, ev.message)
            elif ev.kind == "done":
                answer = ev.answer
            elif isinstance(ev, ErrorEvent):
                if ev.error is not None:
                    raise ev.error
                print(f"mmrag: error: {ev.message}", file=sys.stderr)
                return 1
        exported, export_error = _export(lib, answer, args.export)
    finally:
        signal.signal(signal.SIGINT, previous)
        close_models()
        lib.close()
    if answer is None:
        if cancel.cancelled:
            print("mmrag: interrupted: the answer was stopped", file=sys.stderr)
            return EXIT_INTERRUPTED
        return 1
    if args.json:
        print(json.dumps(answer.to_json(), ensure_ascii=False))
    else:
        print(marked_text(answer))
        if answer.stopped == "cancelled":
            print("(stopped)")
        if answer.citations:
            print()
            for c in answer.citations:
                print(_format_citation(c))
        elif answer.nearest:
            print("\nnearest pages:")
            for c in answer.nearest:
                print(_format_citation(c))
        if answer.removed_citations and not args.quiet:
            print(f"(removed invalid citations: {', '.join(str(r) for r in answer.removed_citations)})", file=sys.stderr)
    for path in exported:
        note(args, f"exported for an expert: {path}")
    if answer.stopped == "cancelled":
        print("mmrag: interrupted: the answer was stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    if export_error is not None:
        raise export_error
    return 0


def _export(lib, answer, targets: list[str]) -> tuple[list, Exception | None]:
    """Write `answer` to each of `targets` (--export); returns (paths written, the engine error
    that stopped it or None). Runs while the library is open: the crops come from its documents."""
    from .engine.errors import EngineError

    written = []
    if answer is None:
        return written, None
    for target in targets:
        try:
            written.append(lib.export_answer(answer, target))
        except EngineError as e:
            return written, e
    return written, None
