"""Markdown parsing details the format tests (test_parse_formats.py) do not pin down.

Source lines of images inside a paragraph, tables that end at a line without a pipe,
HTML comments inside lists, `$` math, reference links; and linear time on hostile
input: each such case would run for many minutes (or overflow the stack) with a
quadratic or recursive parser, so it carries a timeout instead of a speed target.
"""

from __future__ import annotations

import pytest

from mmrag_desktop.engine.parse.markdown import inline_text, parse_markdown_text


def blocks_of(src: str) -> list[tuple[str, str, float, float]]:
    """(kind, text, first source line, last source line) of each block."""
    blocks, _ = parse_markdown_text(src)
    return [(b.kind, b.text, b.bbox[1], b.bbox[3]) for b in blocks]


def test_images_inside_a_paragraph_keep_their_own_source_lines():
    src = (
        "Intro `code\n"  # 1
        'spanning` text [a link\nover lines](u "a\ntitle") tail\n'  # 2-4
        "![img](a.png) after\n"  # 5
        "last <img src='b.png' alt='B &amp; C'>\n"  # 6
        "<!-- a comment\nover lines --> end ![x](c.png)\n"  # 7-8
    )
    blocks, images = parse_markdown_text(src)
    assert [(b.kind, b.text, b.bbox[1], b.bbox[3]) for b in blocks] == [
        ("text", "Intro code spanning text a link over lines tail", 1.0, 4.0),
        ("figure", "img", 5.0, 5.0),
        ("text", "after last", 5.0, 6.0),
        ("figure", "B & C", 6.0, 6.0),
        ("text", "end", 8.0, 8.0),
        ("figure", "x", 8.0, 8.0),
    ]
    assert [(k, r.src, r.line_no) for k, r in images.items()] == [(1, "a.png", 5), (3, "b.png", 6), (5, "c.png", 8)]


def test_list_item_images_follow_the_list_block_at_their_own_line():
    blocks, images = parse_markdown_text("1. item\n   second line ![pic](x.png)\n2. two\n")
    assert [(b.kind, b.text) for b in blocks] == [("list", "item second line pic\ntwo"), ("figure", "pic")]
    assert [ln.bbox for ln in blocks[0].lines] == [(0.0, 1.0, 0.0, 2.0), (0.0, 3.0, 0.0, 3.0)]
    assert images[1].line_no == 2


def test_a_table_ends_at_the_first_line_without_a_pipe_which_can_caption_it():
    src = "| Size | Bytes |\n|---|---|\n| word | 2 |\n| long | 4 |\nTable 4: Sizes.\n"
    blocks, _ = parse_markdown_text(src)
    assert [(b.kind, b.text, b.bbox[1], b.bbox[3]) for b in blocks] == [
        ("table", "Size | Bytes\nword | 2\nlong | 4", 1.0, 4.0),
        ("caption", "Table 4: Sizes.", 5.0, 5.0),
    ]
    assert blocks[1].caption_of == 0
    assert [[c.text for c in row] for row in blocks[0].table.rows()] == [
        ["Size", "Bytes"],
        ["word", "2"],
        ["long", "4"],
    ]


def test_comments_between_list_items_keep_one_list_but_html_ends_it():
    src = "- a\n\n<!-- lint disable -->\n\n- b\n\n<hr class='line'/>\n\n- c\n"
    assert [(k, t) for k, t, _, _ in blocks_of(src)] == [("list", "a\nb"), ("list", "c")]


def test_inline_math_is_kept_verbatim_and_unclosed_display_math_is_text():
    src = (
        "Prices $5 and $10 stay; $x_1 + y_*$ and $a*b*c$ keep their marks.\n"
        "\n"
        "\\[ not math \\] here\n"
        "\n"
        "$$\n"
        "never closed\n"
    )
    assert [(k, t) for k, t, _, _ in blocks_of(src)] == [
        ("text", "Prices $5 and $10 stay; $x_1 + y_*$ and $a*b*c$ keep their marks."),
        ("text", "[ not math ] here"),
        ("text", "$$ never closed"),
    ]


def test_display_math_interrupts_a_paragraph_and_may_sit_in_a_list():
    src = "The norm:\n$$\n\\|x\\| \\geq 0\n$$\n- item:\n  \\[ a^2 \\]\n"
    assert blocks_of(src) == [
        ("text", "The norm:", 1.0, 1.0),
        ("formula", "\\|x\\| \\geq 0", 2.0, 4.0),
        ("list", "item:", 5.0, 5.0),
        ("formula", "a^2", 6.0, 6.0),
    ]


def test_reference_links_and_images_resolve_and_definitions_are_not_text():
    src = 'See [the spec][s] and ![Fig. 2][f]\n\n[s]: http://example.org\n[f]: img/f.png "Fig title"\n'
    blocks, images = parse_markdown_text(src)
    assert [(b.kind, b.text) for b in blocks] == [("text", "See the spec and"), ("figure", "Fig. 2\nFig title")]
    assert images[1].src == "img/f.png"


def test_figcaption_in_html_block_points_at_its_own_line():
    src = "<figure>\n<img src='a.png' alt='A'>\n<figcaption>Figure 3: Pins.</figcaption>\n</figure>\n"
    blocks, _ = parse_markdown_text(src)
    assert [(b.kind, b.text, b.bbox[1], b.caption_of) for b in blocks] == [
        ("figure", "A", 2.0, None),
        ("caption", "Figure 3: Pins.", 3.0, 0),
    ]


def test_inline_text_drops_markup_and_keeps_text():
    assert inline_text("**bold** [link](x) `code` &amp; \\* <b>tag</b> ~~old~~") == "bold link code & * tag old"


# ---------------------------------------------------------------- hostile input
HOSTILE = {
    "200k backticks": lambda: "a" + "`" * 200_000,
    "backtick runs of growing length": lambda: "".join("`" * k + "a" for k in range(1, 600)),
    "200k nested brackets": lambda: "[" * 100_000 + "]" * 100_000,
    "image openers": lambda: "![a](" * 30_000,
    "img tags without end": lambda: "<img " * 200_000,
    "figcaptions never closed": lambda: "<figure>\n" + "<figcaption>x" * 50_000,
    "100k nested quotes": lambda: ">" * 100_000 + " a",
    "display math openers": lambda: "\\[\n" * 30_000 + "$$a\n" * 30_000,
    "5 MB single line": lambda: ("lorem ipsum dolor sit amet, consectetur " * 6 + "*emphasis* `code` ") * 19_000,
}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_parses_in_linear_time(name):
    src = HOSTILE[name]()
    blocks, _ = parse_markdown_text(src)
    n_lines = src.count("\n") + 1
    assert all(1 <= ln.bbox[1] <= ln.bbox[3] <= n_lines for b in blocks for ln in b.lines)
    if name != "100k nested quotes":  # deeper than the nesting limit: dropped, not crashed
        assert blocks
