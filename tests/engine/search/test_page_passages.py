"""One hit per page in search results; an answer may ask for the page's other passages too."""

from __future__ import annotations


def _two_section_page(path):
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Serial port setup", fontsize=16, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 110, 520, 300),
                        "Connect the serial port of the controller to the host with the supplied cable "
                        "before you power the unit on.", fontsize=11)
    page.insert_text((72, 330), "Serial line speed", fontsize=16, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 350, 520, 600),
                        "The serial line runs at 9600 baud unless the BAUD jumper is fitted.", fontsize=11)
    other = doc.new_page()
    other.insert_text((72, 90), "Cleaning", fontsize=16, fontname="hebo")
    other.insert_textbox(pymupdf.Rect(72, 110, 520, 300), "Wipe the case with a dry cloth.", fontsize=11)
    doc.save(str(path))
    doc.close()
    return path


def test_page_passages_follow_their_page_hit_marked_enriched(tmp_path, library):
    for ev in library.add([_two_section_page(tmp_path / "serial.pdf")]):
        assert ev.stage != "failed", ev.message
    query = "serial port of the controller"
    plain = library.search(query, k=5)
    page1 = [h for h in plain if h.page == 1]
    assert len(page1) == 1 and not page1[0].enriched  # one hit per page
    more = library.search(query, k=5, page_passages=1)
    assert more[0].chunk_id == plain[0].chunk_id and more[0].page == 1
    follower = more[1]
    assert follower.page == 1 and follower.enriched and follower.chunk_id != more[0].chunk_id
    assert follower.sources == {"page_of": more[0].chunk_id}
    both = more[0].text + "\n" + follower.text  # the page's two sections, each once
    assert both.count("9600 baud") == 1 and both.count("supplied cable") == 1
    assert [h.chunk_id for h in more if not h.enriched] == [h.chunk_id for h in plain if not h.enriched]
