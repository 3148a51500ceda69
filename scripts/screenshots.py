"""Drive the real app through its main flow and save screenshots (run by screenshots.sh under Xvfb).

    python scripts/screenshots.py OUT_DIR [MANUAL.pdf ...]

Without manuals it cuts a few chapters out of the benchmark manuals (bench/fetch_manuals.sh puts
them in bench/data/manuals/; ngspice: raster figures and tables; R-intro: prose) into a temp folder. Saves:
  01-empty.png, 02-ingest.png, 03-answer.png (the default answer style), 04-table-highlight.png,
  05-figure-highlight.png, 06-answer-checked.png (a free-text answer, its sentences checked)
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

MANUALS = Path(__file__).resolve().parent.parent / "bench" / "data" / "manuals"
CUTS = [(MANUALS / "ngspice-manual.pdf", 120, 175, "ngspice-devices.pdf"),
        (MANUALS / "R-intro.pdf", 0, 30, "R-intro-start.pdf")]
QUESTION = "How do I model a lossy transmission line?"
FREE_QUESTION = "What is the default value of the lossy line's conductance per unit length?"
NOT_COVERED_QUESTION = "How do I set the Wi-Fi password of the simulator?"
TABLE_QUERY = "table of model parameters default value units"
FIGURE_QUERY = "figure schematic"


def cut_manuals(out: Path) -> list[Path]:
    import pymupdf

    paths = []
    for src, a, b, name in CUTS:
        if not Path(src).exists():
            continue
        with pymupdf.open(src) as doc, pymupdf.open() as part:
            part.insert_pdf(doc, from_page=a, to_page=min(b, doc.page_count - 1))
            part.save(out / name)
        paths.append(out / name)
    return paths


_PROFILES: list[Path] = []


def fresh_profile(prefix: str) -> tuple[Path, Path]:
    """(the output folder named on the command line, created; a temp folder that holds this run's
    settings, libraries, cache and logs, so that no user's profile shows or changes: `run` removes
    it when the run succeeds and keeps it, for its logs, when it fails)."""
    out_dir = Path(sys.argv[1]).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    _PROFILES.append(tmp)
    for k in ("CONFIG", "DATA", "CACHE", "LOG"):
        os.environ[f"MMRAG_{k}_DIR"] = str(tmp / k.lower())
    return out_dir, tmp


def main() -> int:
    out_dir, tmp = fresh_profile("mmrag-shots-")
    manuals = [Path(p) for p in sys.argv[2:]]
    if not manuals:
        (tmp / "manuals").mkdir()
        manuals = cut_manuals(tmp / "manuals")

    from PySide6.QtCore import QTimer

    from mmrag_desktop.engine.settings import Settings

    theme = os.environ.get("MMRAG_THEME", "light")
    app, w = open_window(Settings(library_dir=str(tmp / "library"), theme=theme,
                                  answer_mode=os.environ.get("MMRAG_ANSWER_MODE", "auto")))

    def pump(seconds: float) -> None:
        pump_events(app, seconds)

    def wait(cond, timeout: float, what: str) -> None:
        wait_for(app, cond, timeout, what)

    def shot(name: str) -> None:
        pump(0.3)
        img = w.grab().toImage()
        path = out_dir / name
        img.save(str(path), "PNG")
        _shrink(path)
        print(f"saved {path} ({path.stat().st_size // 1024} KB)", flush=True)

    wait(lambda: w.engine is not None and w.library_model is not None and w.status_label.text() != "Opening library…",
         60, "the library")
    shot("01-empty.png")
    wait(lambda: w.models_loaded, 300, "the models")
    w.add_paths(manuals)
    wait(lambda: any((r.progress or 0) > 0.15 for r in w.library_model.rows), 300, "ingest progress")
    shot("02-ingest.png")
    wait(lambda: not w.ingest_jobs, 1800, "the ingest")
    w.refresh_documents()
    pump(1)
    # the background work (sentence vectors, figure work) finishes first: full-quality highlights
    wait(lambda: w.enrich_job is None, 1800, "the background work")

    done = []
    w.answerFinished.connect(lambda: done.append(1))

    def ask(q: str, mode: str) -> None:
        done.clear()
        w.query_bar.set_mode(mode)
        w.query_bar.edit.setText(q)
        w.ask(q, mode)
        wait(lambda: done, 600, f"the {mode} of {q!r}")

    ask(QUESTION, "answer")
    if w.answer_pane.sources.items:
        w.answer_pane.activate_citation(len(w.answer_pane.turns) - 1, w.answer_pane.sources.items[0].number)
    shot("03-answer.png")

    for query, kind, name in ((TABLE_QUERY, "table", "04-table-highlight.png"),
                              (FIGURE_QUERY, "figure", "05-figure-highlight.png")):
        w.query_bar.kind_filter.setCurrentText(kind)
        ask(query, "search")
        items = w.answer_pane.sources.items
        if not items:
            w.query_bar.kind_filter.setCurrentIndex(0)
            ask(query, "search")
            items = w.answer_pane.sources.items
        if items:
            w.answer_pane.sources_view.setCurrentIndex(w.answer_pane.sources.index(0))
            w.show_citation(items[0], items)
            w.viewer.fit_width()
        shot(name)
        w.query_bar.kind_filter.setCurrentIndex(0)
    w.settings.answer_mode = "generative"  # free text: the marks on sentences the manuals do not back
    ask(FREE_QUESTION, "answer")
    last = len(w.answer_pane.turns) - 1
    cited = re.search(r"\[(\d+)\]", w.answer_pane.turns[last].get("answer", ""))  # the answer's first chip
    if cited:
        w.answer_pane.activate_citation(last, int(cited.group(1)))
    elif w.answer_pane.sources.items:
        w.answer_pane.activate_citation(last, w.answer_pane.sources.items[0].number)
    if w.answer_pane.turns[last].get("model_answer"):  # fell back: show the model's marked answer too
        w.answer_pane.toggle_model_answer(last)
    shot("06-answer-checked.png")
    w.settings.answer_mode = "auto"
    ask(NOT_COVERED_QUESTION, "answer")  # not covered, and what that rests on
    shot("13-not-covered.png")
    w.close()
    QTimer.singleShot(0, app.quit)
    return 0


def open_window(settings):
    """The QApplication (icon, the settings' theme) and the main window at screenshot size, shown."""
    from PySide6.QtWidgets import QApplication

    from mmrag_desktop.ui.app_resources import app_icon, apply_theme
    from mmrag_desktop.ui.main_window import MainWindow

    app = QApplication(sys.argv[:1])
    app.setWindowIcon(app_icon())
    apply_theme(app, settings.theme)
    w = MainWindow(settings=settings, confirm_close=False)
    w.resize(1366, 820)
    w.main_splitter.setSizes([600, 766])
    w.left_splitter.setSizes([190, 580])
    w.show()
    return app, w


def pump_events(app, seconds: float) -> None:
    """Let Qt process events for `seconds`."""
    from PySide6.QtCore import QEventLoop

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.01)


def wait_for(app, cond, timeout: float, what: str) -> None:
    """Process events until `cond()`; SystemExit naming `what` after `timeout` seconds."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise SystemExit(f"timed out waiting for {what}")
        pump_events(app, 0.05)


def _shrink(path: Path, limit: int = 300_000) -> None:
    """Re-encode a screenshot with a 256-colour palette when it is over `limit` bytes."""
    if path.stat().st_size <= limit:
        return
    from PIL import Image

    with Image.open(path) as im:
        q = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    q.save(path, optimize=True)


def run(main) -> int:
    """main(), then its temp profiles removed (a few hundred MB each); kept, and named, if it fails."""
    try:
        rc = main()
    except BaseException:
        for tmp in _PROFILES:
            print(f"the run's settings, library and logs are kept in {tmp}", file=sys.stderr)
        raise
    for tmp in _PROFILES:
        shutil.rmtree(tmp)
    return rc


if __name__ == "__main__":
    sys.exit(run(main))
