"""Screenshots of a team library (issue 16), run under Xvfb like screenshots.sh:

    xvfb-run -a -s "-screen 0 1440x900x24 -dpi 96" .venv/bin/python scripts/screenshot_team.py docs/images

Starts a real PostgreSQL + pgvector server (pgserver) in a temp folder, opens the window on it
through Settings ▸ Library location, adds a manual cut from the benchmark manuals, deletes the cut
file (as on a colleague's machine), asks a question and opens the citation, which renders from the
database's copy. Saves 11-team-settings.png and 12-team-library.png.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screenshots import (  # noqa: E402
    _shrink,
    cut_manuals,
    fresh_profile,
    open_window,
    pump_events,
    run,
    wait_for,
)

QUESTION = "How do I model a lossy transmission line?"


def main() -> int:
    out_dir, tmp = fresh_profile("mmrag-team-")
    (tmp / "manuals").mkdir()
    manuals = cut_manuals(tmp / "manuals")[:1]

    import pgserver
    import psycopg
    from PySide6.QtCore import QTimer

    from mmrag_desktop.engine.settings import Settings
    from mmrag_desktop.ui.settings_dialog import SettingsDialog

    server = pgserver.get_server(tmp / "pg", cleanup_mode="stop")
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE team_manuals")
    uri = server.get_uri("team_manuals")
    app, w = open_window(Settings(library_dir=str(tmp / "library"), answer_mode="auto"))

    def wait(cond, timeout: float, what: str) -> None:
        wait_for(app, cond, timeout, what)

    def save(widget, name: str) -> None:
        pump_events(app, 0.3)
        path = out_dir / name
        widget.grab().toImage().save(str(path), "PNG")
        _shrink(path)
        print(f"saved {path} ({path.stat().st_size // 1024} KB)", flush=True)

    try:
        wait(lambda: w.models_loaded, 300, "the models")
        dlg = SettingsDialog(w.settings, w)
        dlg.library.setText("postgresql://maria@manuals-db.example.com/team_manuals")
        dlg.library.setCursorPosition(0)
        dlg.show()
        save(dlg, "11-team-settings.png")
        dlg.library.setText(uri)
        dlg._accept()  # noqa: SLF001 - what OK runs
        w.apply_settings(dlg.result_settings())
        wait(lambda: w.models_loaded and w.engine is not None and w.status_label.text() != "Opening library…",
             120, "the team library")
        w.add_paths(manuals)
        wait(lambda: not w.ingest_jobs, 1800, "the ingest")
        wait(lambda: w.enrich_job is None, 1800, "the background work")
        for m in manuals:
            m.unlink()  # a colleague's machine: only the database has the file
        done = []
        w.answerFinished.connect(lambda: done.append(1))
        w.query_bar.edit.setText(QUESTION)
        w.ask(QUESTION, "answer")
        wait(lambda: done, 600, "the answer")
        if w.answer_pane.sources.items:
            w.answer_pane.activate_citation(len(w.answer_pane.turns) - 1, w.answer_pane.sources.items[0].number)
        print("window title:", w.windowTitle(), "| viewer file:", w.viewer.doc_path, flush=True)
        save(w, "12-team-library.png")
        w.close()
    finally:
        server.cleanup()
    QTimer.singleShot(0, app.quit)
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
