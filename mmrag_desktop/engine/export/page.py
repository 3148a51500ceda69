"""The export bundle (bundle.py) as one self-contained HTML page.

No external resource of any kind: styles are inline in the page, images are data URIs, links
point inside the page only, and a Content-Security-Policy (`default-src 'none'`) keeps a browser
from fetching anything even if something slipped in. Everything that comes from a manual, the
model or the user is HTML-escaped. Print styles keep a citation (its image, note and text) on
one sheet of paper and keep colours (the highlight, the marks) when printing.
"""

from __future__ import annotations

import re
from html import escape

_CITE = re.compile(r"\[(\d{1,3})\]")
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
LEGEND = ("Plain sentences were found in the pages they cite. "
          '<span class="unsupported"><span class="badge">?</span> Grey sentences</span> were '
          "<em>not</em> found there (the reason follows them). "
          '<mark class="missing">250&nbsp;mA<sup>?</sup></mark> marks a number or name that appears in '
          "none of the evidence. [n] is a citation: its page is shown below with the cited lines "
          "highlighted.")

STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: #1d1d1f; background: #fff; max-width: 60rem; margin: 1.5rem auto; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
h3 { font-size: 1rem; margin: 0 0 .4rem; }
.meta, .note, .summary, .legend, figcaption { color: #555; font-size: .9rem; }
.question { font-size: 1.1rem; background: #f4f6fa; border-left: 4px solid #4a78b5; padding: .6rem .9rem; margin: 0; }
.answer { font-size: 1.02rem; }
.warn { color: #8a4b00; background: #fff4e0; border: 1px solid #f0c27a; padding: .5rem .8rem; font-weight: 600; }
.unsupported { color: #6f6f6f; text-decoration: underline dotted #9a9a9a; }
.badge { display: inline-block; background: #7b7b7b; color: #fff; font-weight: 700; padding: 0 .35em;
  border-radius: 3px; margin-right: .2em; text-decoration: none; }
.reason { color: #6f6f6f; font-size: .85rem; font-style: italic; }
mark.missing { background: #fde0dd; color: #b3261e; font-weight: 600; padding: 0 .1em; }
a.cite { background: #ffe08a; color: #5a3b00; font-weight: 600; text-decoration: none; padding: 0 .25em; border-radius: 3px; }
.legend { border: 1px solid #e2e2e2; padding: .4rem .7rem; margin: .6rem 0; }
.model-answer { background: #f2f2f2; color: #555; padding: .5rem .8rem; }
.citation { border: 1px solid #ddd; border-radius: 6px; padding: .7rem .9rem; margin: 0 0 1rem; }
.kind { font-weight: normal; color: #777; font-size: .85rem; }
figure { margin: .4rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #ccc; display: block; }
.passage { white-space: pre-line; font-size: .9rem; background: #fafafa; border-left: 3px solid #ccc; padding: .4rem .7rem; margin: .4rem 0 0; }
.passage.pre { white-space: pre-wrap; }
mark.quoted { background: #fff0b3; color: inherit; padding: 0 .05em; }
.quote { background: #fff7d6; border-left: 3px solid #e6a700; padding: .3rem .6rem; margin: .3rem 0; font-size: .92rem; }
table { border-collapse: collapse; width: 100%; font-size: .88rem; }
th, td { border: 1px solid #ddd; padding: .3rem .45rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.hash { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .78rem; word-break: break-all; }
td.hash .state { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #555; }
.bad { color: #b3261e; font-weight: 600; }
footer { margin-top: 2rem; color: #777; font-size: .8rem; }
@page { margin: 14mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10.5pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  a { color: inherit; }
  h2 { break-after: avoid; page-break-after: avoid; }
  .citation, figure, tr, .legend, .question { break-inside: avoid; page-break-inside: avoid; }
  figure img { max-height: 55vh; width: auto; max-width: 100%; }
}
"""


def _linked(text: str, valid: set[int]) -> str:
    """Escape `text`; [n] for a citation in the page becomes a link to it."""
    out, pos = [], 0
    for m in _CITE.finditer(text):
        out.append(escape(text[pos:m.start()]))
        n = int(m.group(1))
        out.append(f'<a class="cite" href="#cite-{n}">[{n}]</a>' if n in valid else escape(m.group(0)))
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def _marked(text: str, missing: list[str], valid: set[int]) -> str:
    """`_linked`, with each `missing` term (a number or name in no evidence) marked."""
    terms = sorted({m for m in missing if isinstance(m, str) and m.strip() and m in text}, key=len, reverse=True)
    if not terms:
        return _linked(text, valid)
    pattern = re.compile("|".join(re.escape(t) for t in terms))
    out, pos = [], 0
    for m in pattern.finditer(text):
        out.append(_linked(text[pos:m.start()], valid))
        out.append(f'<mark class="missing" title="appears in none of the evidence">{escape(m.group(0))}<sup>?</sup></mark>')
        pos = m.end()
    out.append(_linked(text[pos:], valid))
    return "".join(out)


def _placed(text: str, sentences: list[dict]) -> list[tuple[int, int, dict]]:
    """(start, end, sentence) for each checked sentence found in `text`, in order."""
    out, pos = [], 0
    for s in sentences:
        st, a, b = s.get("text") or "", s.get("start"), s.get("end")
        if not (isinstance(a, int) and isinstance(b, int) and pos <= a <= b <= len(text) and text[a:b] == st):
            a = text.find(st, pos) if st.strip() else -1
            if a < 0:
                continue
            b = a + len(st)
        out.append((a, b, s))
        pos = b
    return out


def answer_html(text: str, sentences: list[dict], valid: set[int]) -> str:
    """The answer with its check: supported sentences plain, unsupported claims grey after a "?"
    badge with their reason, numbers and names in no evidence marked; line breaks kept."""
    out, pos = [], 0
    for a, b, s in _placed(text, sentences):
        out.append(_linked(text[pos:a], valid))
        body = _marked(text[a:b], s.get("missing") or [], valid)
        if s.get("supported") or not (s.get("claim", True) or s.get("quote")):
            out.append(body)
        else:
            reason = str(s.get("reason") or "").strip() or "not found in the cited pages"
            out.append(f'<span class="unsupported" title="Not found in the cited pages"><span class="badge">?</span>'
                       f'{body}</span> <span class="reason">(not checked: {escape(reason)})</span>')
        pos = b
    out.append(_linked(text[pos:], valid))
    return "".join(out).replace("\n", "<br>\n")


def unwrap(text: str) -> str:
    """Running text as one paragraph per blank-line block: PDF line breaks become spaces, a word
    hyphenated at a line end is joined ("cur-\nrent" -> "current")."""
    paras = re.split(r"\n\s*\n", text)
    return "\n\n".join(re.sub(r"\s*\n\s*", " ", re.sub(r"(?<=[a-z])-\n(?=[a-z])", "", p)).strip() for p in paras)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def passage_html(c: dict) -> tuple[str, list[str]]:
    """(the cited passage, escaped, with the quoted sentences marked; the quotes not found in it).
    Running text is unwrapped; tables and code keep their lines."""
    text = c.get("text") or ""
    kind = c.get("kind") or "text"
    text = unwrap(text) if kind in ("text", "caption") else text
    spans, left = [], []
    for q in c.get("quotes") or []:
        words = _norm(unwrap(q)).split(" ")
        m = re.search(r"\s+".join(re.escape(w) for w in words), text) if words != [""] else None
        (spans.append((m.start(), m.end())) if m else left.append(q))
    out, pos = [], 0
    for a, b in sorted(spans):
        if a < pos:
            continue
        out.append(escape(text[pos:a]))
        out.append(f'<mark class="quoted">{escape(text[a:b])}</mark>')
        pos = b
    out.append(escape(text[pos:]))
    return "".join(out), left


def _citation_html(c: dict, anchor: str) -> str:
    title = f" — {escape(c['title'])}" if c.get("title") and c["title"] != c.get("doc") else ""
    head = (f'<h3>{"[" + escape(str(c["id"])) + "] " if anchor.startswith("cite") else ""}'
            f'{escape(str(c.get("doc") or ""))}{title}, page {escape(str(c.get("page")))} '
            f'<span class="kind">({escape(str(c.get("kind") or "text"))})</span></h3>')
    parts = [f'<article class="citation" id="{anchor}">', head]
    for im in c.get("images") or []:
        alt = f"{c.get('doc')} page {im.get('page')}, the cited region highlighted"
        parts.append(f'<figure><img src="data:{escape(im["mime"])};base64,{im["data"]}" width="{int(im["width"])}" '
                     f'height="{int(im["height"])}" alt="{escape(alt)}">'
                     f"<figcaption>Page {escape(str(im.get('page')))}; the highlighted lines are the ones "
                     "cited.</figcaption></figure>")
    if c.get("note"):
        parts.append(f'<p class="note">{escape(c["note"])}</p>')
    passage, unplaced = passage_html(c)
    for q in unplaced:
        parts.append(f'<blockquote class="quote">{escape(q)}</blockquote>')
    if passage:
        pre = " pre" if (c.get("kind") or "text") not in ("text", "caption") else ""
        parts.append(f'<div class="passage{pre}">{passage}</div>')
    parts.append("</article>")
    return "\n".join(parts)


def _manifest_html(b: dict) -> str:
    rows = []
    for d in b.get("documents") or []:
        state = {"present": "the file is as indexed",
                 "missing": '<span class="bad">file not found at export</span>',
                 "changed": '<span class="bad">file changed since it was indexed; its sha256 now: '
                            f'{escape(str(d.get("sha256_now") or ""))}</span>'}.get(d.get("file"), "")
        rows.append(f"<tr><td>{escape(str(d.get('name') or ''))}</td><td>{escape(str(d.get('title') or ''))}</td>"
                    f"<td>{escape(', '.join(str(p) for p in d.get('pages_cited') or []))} "
                    f"of {escape(str(d.get('pages') or '?'))}</td>"
                    f"<td>{escape(str(d.get('added') or ''))}</td></tr>"
                    f'<tr><td colspan="4" class="hash">sha256 {escape(str(d.get("sha256") or ""))}'
                    f'<br><span class="state">{state}</span></td></tr>')
    docs = ("<table><tr><th>Manual (file)</th><th>Title</th><th>Pages cited</th><th>Added</th></tr>"
            + "".join(rows) + "</table>") if rows else "<p>No manual is cited.</p>"
    v = b.get("versions") or {}
    labels = [("app", "mmrag-desktop"), ("answer_mode", "Answer mode"), ("answer_model", "Answer model"),
              ("text_embedder", "Text embedder"), ("pymupdf", "PyMuPDF")]
    vrows = [(label, v.get(k)) for k, label in labels if v.get(k) not in (None, "")]
    if not v.get("answer_model"):
        vrows.insert(min(2, len(vrows)), ("Answer model", "none: the sentences are quoted from the manuals"))
    vrows.append(("Confidence (from the evidence)", b.get("confidence")))
    if b.get("search_query") and b.get("search_query") != b.get("question"):
        vrows.append(("Searched for", b["search_query"]))
    vrows.append(("Exported", b.get("created")))
    vt = "<table>" + "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(val))}</td></tr>" for k, val in vrows) + "</table>"
    return docs + "<h3 style=\"margin-top:1rem\">Versions</h3>" + vt


def render_html(b: dict) -> str:
    """The bundle `b` as a complete, self-contained HTML document."""
    valid = {c["id"] for c in b.get("citations") or [] if isinstance(c.get("id"), int)}
    q = escape(b.get("question") or "")
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="mmrag-desktop">',
        f"<title>Question for an expert: {q}</title><style>{STYLE}</style></head><body>",
        "<header><h1>Question for an expert</h1>",
        f'<p class="meta">Exported {escape(str(b.get("created") or ""))} from mmrag-desktop '
        f'{escape(str((b.get("versions") or {}).get("app") or ""))}, offline. The answer below was made from '
        "the manuals listed at the end"
        + ("; each sentence was checked against the pages it cites" if b.get("sentences") else "")
        + ". Under each citation: the page with the cited lines highlighted, and the cited passage "
        "(the sentences the answer relies on marked).</p></header>",
        f'<h2>Question</h2><p class="question">{q}</p>',
        "<h2>Answer from the manuals</h2>",
    ]
    if b.get("insufficient_evidence"):
        parts.append('<p class="warn">The manuals do not cover this question. The nearest pages are shown '
                     "below.</p>")
    parts.append(f'<p class="answer">{answer_html(b.get("answer") or "", b.get("sentences") or [], valid)}</p>')
    checked = b.get("checked") or {}
    if checked.get("claims"):
        n, m = checked.get("supported", 0), checked["claims"]
        parts.append(f'<p class="summary">{n} of {m} sentence{"s" if m != 1 else ""} found in the pages they cite.</p>')
    if any(not s.get("supported") and (s.get("claim", True) or s.get("quote")) for s in b.get("sentences") or []) \
            or any(s.get("missing") for s in b.get("sentences") or []):
        parts.append(f'<p class="legend">{LEGEND}</p>')
    if b.get("stopped"):
        parts.append(f'<p class="note">The answer did not end normally ({escape(b["stopped"])}).</p>')
    for n in b.get("notices") or []:
        parts.append(f'<p class="note">Note: {escape(str(n))}</p>')
    if b.get("removed_citations"):
        parts.append(f'<p class="note">Citations the check removed (not among the evidence): '
                     f'{escape(", ".join(str(r) for r in b["removed_citations"]))}</p>')
    if b.get("model_answer"):
        parts.append('<p class="note">The model\'s own answer, replaced because the manuals do not back it:</p>'
                     f'<div class="model-answer">{escape(b["model_answer"])}</div>')
    if b.get("citations"):
        parts.append("<h2>Citations</h2>")
        parts.extend(_citation_html(c, f"cite-{c.get('id')}") for c in b["citations"])
    if b.get("nearest"):
        parts.append("<h2>Nearest pages in the manuals</h2>"
                     '<p class="note">Nothing in the manuals answers the question; these pages came closest.</p>')
        parts.extend(_citation_html(c, f"nearest-{i + 1}") for i, c in enumerate(b["nearest"]))
    parts.append("<h2>Manuals and versions</h2>")
    parts.append(_manifest_html(b))
    parts.append('<footer>Made offline by mmrag-desktop; this file loads nothing from a network. '
                 "Page images are crops of the manuals, with the cited lines highlighted.</footer>")
    parts.append("</body></html>")
    return "\n".join(parts)
