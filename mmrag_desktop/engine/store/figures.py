"""Figures (crop, hashes, which enrichment steps are done) and their structured captions."""

from __future__ import annotations

import json

from .db import Database  # or postgres.PgDatabase: the SQL here is written for both

COLUMNS = ("crop", "width", "height", "phash", "dhash", "ocr_done", "clip_model", "caption_model")


class Figures:
    """The only code that writes `figures` and `captions`."""

    def __init__(self, db: Database):
        self.db = db

    # ---- reads -----------------------------------------------------------------------------
    def work_rows(self, doc_ids: list[int] | None = None) -> list[tuple]:
        """Per figure of a ready document, by document and chunk: (chunk id, doc id, doc name, doc
        path, doc kind, page, bbox JSON, source, crop, ocr_done, clip_model, caption_model)."""
        sql = ("SELECT f.chunk_id, f.doc_id, d.name, d.path, d.kind, f.page, f.bbox, f.source, f.crop, f.ocr_done,"
               " f.clip_model, f.caption_model FROM figures f JOIN documents d ON d.id = f.doc_id"
               " WHERE d.status = 'ready'")
        args: list = []
        if doc_ids:
            test, values = self.db.in_list(doc_ids)
            sql += f" AND f.doc_id {test}"
            args.extend(values)
        return self.db.all(sql + " ORDER BY f.doc_id, f.chunk_id", args)

    def exists(self, chunk_id: int) -> bool:
        """True while the figure row exists (its document was not removed or re-ingested)."""
        return self.db.one("SELECT 1 FROM figures WHERE chunk_id = ?", (chunk_id,)) is not None

    def hashes(self) -> list[tuple]:
        """(chunk id, doc id, page, bbox JSON, pHash) of every figure with a hash, by chunk id."""
        return self.db.all("SELECT chunk_id, doc_id, page, bbox, phash FROM figures WHERE phash IS NOT NULL "
                           "ORDER BY chunk_id")

    def crops(self) -> set[str]:
        """Every crop path (relative to cache/) a figure row names."""
        return {r[0] for r in self.db.all("SELECT crop FROM figures WHERE crop IS NOT NULL")}

    def image_coverage(self, model: str) -> tuple[int, int]:
        """(figures with an image vector of `model`, figures that should have one: those of ready
        documents with a crop)."""
        total, done = self.db.one(
            "SELECT COUNT(*), SUM(CASE WHEN EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = f.chunk_id"
            " AND v.space = 'image' AND v.model = ?) THEN 1 ELSE 0 END) FROM figures f JOIN documents d ON d.id = f.doc_id"
            " WHERE d.status = 'ready' AND f.crop IS NOT NULL", (model,))
        return int(done or 0), int(total)

    # ---- writes ----------------------------------------------------------------------------
    def insert(self, chunk_id: int, doc_id: int, page: int, bbox: list[float], source: str, crop: str | None,
               width: int | None, height: int | None, phash: str | None, dhash: str | None, ocr_done: bool) -> None:
        """A new figure row (inside the document's commit)."""
        self.db.run(
            "INSERT INTO figures (chunk_id, doc_id, page, bbox, source, crop, width, height, phash, dhash, ocr_done)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (chunk_id, doc_id, page, json.dumps([round(v, 2) for v in bbox]), source, crop, width, height, phash,
             dhash, int(ocr_done)))

    def update(self, chunk_id: int, **cols) -> None:
        """Set columns of a figure row (None values are left alone). Raises ValueError for an
        unknown column."""
        cols = {k: v for k, v in cols.items() if v is not None}
        unknown = set(cols) - set(COLUMNS)
        if unknown:
            raise ValueError(f"unknown figure column(s): {', '.join(sorted(unknown))}")
        if "ocr_done" in cols:
            cols["ocr_done"] = int(cols["ocr_done"])  # an integer column on both backends
        if cols:
            self.db.run(f"UPDATE figures SET {', '.join(f'{k} = ?' for k in cols)} WHERE chunk_id = ?",
                        [*cols.values(), chunk_id])

    def put_caption(self, chunk_id: int, model: str, data: dict) -> None:
        """The VLM's structured caption of a figure."""
        self.db.run("INSERT INTO captions (chunk_id, model, data) VALUES (?, ?, ?) ON CONFLICT (chunk_id, model) "
                    "DO UPDATE SET data = excluded.data, created = excluded.created",
                    (chunk_id, model, json.dumps(data)))

    def forget_image_models_except(self, model: str) -> None:
        """Figures embedded by another image model than `model` are marked not embedded."""
        self.db.run("UPDATE figures SET clip_model = NULL WHERE clip_model != ?", (model,))
