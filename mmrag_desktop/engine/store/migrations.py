"""Numbered schema migrations; each runs in its own transaction, tracked by PRAGMA user_version.

Never edit a released migration: add a new one. Coordinates are PDF points, top-left origin;
page numbers are 1-based.
"""

from __future__ import annotations

import sqlite3

MIGRATIONS: list[str] = [
    # 1: documents, pages, chunks, FTS, vectors, figure data, links between chunks
    """
    CREATE TABLE documents (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        path TEXT NOT NULL UNIQUE,          -- absolute source path
        name TEXT NOT NULL,                 -- file name shown to users and in the CLI contract
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL DEFAULT 0,
        mtime REAL NOT NULL DEFAULT 0,
        kind TEXT NOT NULL DEFAULT 'pdf',   -- pdf | image | markdown | docling
        title TEXT NOT NULL DEFAULT '',
        pages INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'pending',  -- pending | indexing | ready | failed
        error TEXT,
        added TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        enrichment TEXT NOT NULL DEFAULT ''  -- '' | pending | done: background figure work
    );
    CREATE INDEX documents_sha ON documents(sha256);

    CREATE TABLE pages (
        doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        page INTEGER NOT NULL,
        width REAL NOT NULL,
        height REAL NOT NULL,
        rotation INTEGER NOT NULL DEFAULT 0,
        has_text_layer INTEGER NOT NULL DEFAULT 1,
        ocr_used INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (doc_id, page)
    );

    CREATE TABLE chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: ids are hnswlib labels
        doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,               -- order within the document
        kind TEXT NOT NULL,                 -- text | table | figure | caption | formula | code
        text TEXT NOT NULL,                 -- what is embedded and shown
        section TEXT NOT NULL DEFAULT '',   -- heading path, ' > ' separated
        page INTEGER NOT NULL,              -- first page
        page_end INTEGER NOT NULL,
        bbox TEXT,                          -- JSON [x0,y0,x1,y1] of the whole chunk on `page`
        spans TEXT NOT NULL DEFAULT '[]',   -- JSON [{"page":p,"bbox":[..]}] per page touched
        lines TEXT NOT NULL DEFAULT '[]',   -- JSON [{"p":page,"b":[..],"t":text,"s":segment}] (cells for tables)
        group_key TEXT,                     -- e.g. 'figure:3' ties figure, caption, references
        meta TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX chunks_doc ON chunks(doc_id, ord);
    CREATE INDEX chunks_group ON chunks(doc_id, group_key);

    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, section, content='chunks', content_rowid='id', tokenize='porter unicode61'
    );
    CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text, section) VALUES (new.id, new.text, new.section);
    END;
    CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text, section) VALUES ('delete', old.id, old.text, old.section);
    END;
    CREATE TRIGGER chunks_au AFTER UPDATE OF text, section ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text, section) VALUES ('delete', old.id, old.text, old.section);
        INSERT INTO chunks_fts(rowid, text, section) VALUES (new.id, new.text, new.section);
    END;

    -- links between chunks: relation 'caption_of' (caption -> figure/table), 'refers_to' (paragraph -> figure/table)
    CREATE TABLE links (
        src INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        dst INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        relation TEXT NOT NULL,
        PRIMARY KEY (src, dst, relation)
    );
    CREATE INDEX links_dst ON links(dst);

    -- one row per (chunk, vector space); the hnswlib indices are rebuilt from here
    CREATE TABLE vectors (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        space TEXT NOT NULL,                -- 'text' | 'image'
        model TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vec BLOB NOT NULL,                  -- float32 little-endian, L2-normalised
        PRIMARY KEY (chunk_id, space)
    );
    CREATE INDEX vectors_space ON vectors(space, model);

    -- sentence-level vectors of a chunk's segments (pooled from the chunk's own token vectors),
    -- used to pick the highlight lines; float16, one row per chunk, shape [n_segments, dim]
    CREATE TABLE segment_vectors (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        n INTEGER NOT NULL,
        dim INTEGER NOT NULL,
        vecs BLOB NOT NULL
    );

    CREATE TABLE figures (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        page INTEGER NOT NULL,
        bbox TEXT NOT NULL,
        source TEXT NOT NULL,               -- raster | vector | image-file | markdown | docling
        crop TEXT,                          -- path of the crop PNG relative to the library's cache/
        width INTEGER, height INTEGER,      -- crop size in pixels
        phash TEXT,                         -- 64-bit perceptual hash, hex
        dhash TEXT,
        ocr_done INTEGER NOT NULL DEFAULT 0,
        clip_model TEXT,                    -- model id of the image vector in `vectors` (space 'image')
        caption_model TEXT                  -- model id of the VLM caption in `captions`
    );
    CREATE INDEX figures_doc ON figures(doc_id);
    CREATE INDEX figures_phash ON figures(phash);

    CREATE TABLE captions (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        data TEXT NOT NULL,                 -- validated structured caption JSON
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        PRIMARY KEY (chunk_id, model)
    );

    CREATE TABLE settings_kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 2: vectors of two models can coexist (re-embedding after a model change keeps the old ones
    #    searchable until the new ones are complete)
    """
    CREATE TABLE vectors_v2 (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        space TEXT NOT NULL,
        model TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vec BLOB NOT NULL,
        PRIMARY KEY (chunk_id, space, model)
    );
    INSERT INTO vectors_v2 (chunk_id, space, model, dim, vec) SELECT chunk_id, space, model, dim, vec FROM vectors;
    DROP TABLE vectors;
    ALTER TABLE vectors_v2 RENAME TO vectors;
    CREATE INDEX vectors_space ON vectors(space, model);
    CREATE TABLE segment_vectors_v2 (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        n INTEGER NOT NULL,
        dim INTEGER NOT NULL,
        vecs BLOB NOT NULL,
        PRIMARY KEY (chunk_id, model)
    );
    INSERT INTO segment_vectors_v2 SELECT chunk_id, model, n, dim, vecs FROM segment_vectors;
    DROP TABLE segment_vectors;
    ALTER TABLE segment_vectors_v2 RENAME TO segment_vectors;
    """,
    # 3: find the figures/tables of a page quickly (search shows them for visual/table questions)
    """
    CREATE INDEX chunks_doc_kind_page ON chunks(doc_id, kind, page);
    """,
    # 4: each segment's lines encoded on their own (background work after ingest, sentences.py);
    #    search mixes them with the pooled segment_vectors to choose the highlighted sentence
    """
    CREATE TABLE sentence_vectors (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        n INTEGER NOT NULL,                 -- segments; must equal segment_vectors.n to be used
        dim INTEGER NOT NULL,
        vecs BLOB NOT NULL,                 -- float16 [n, dim], L2-normalised (zeros: no text)
        PRIMARY KEY (chunk_id, model)
    );
    """,
    # 5: a parse under way is recorded, so one that crashed its process is known afterwards (and
    #    the file that crashed it is not tried first again on every add)
    """
    -- indexing_sha: the content being indexed now (NULL: none); crashed_sha: content that crashed it
    ALTER TABLE documents ADD COLUMN indexing_sha TEXT;
    ALTER TABLE documents ADD COLUMN crashed_sha TEXT;
    """,
    # 6: folders kept in sync with the library (engine/watch.py)
    """
    CREATE TABLE watched_folders (
        path TEXT PRIMARY KEY,              -- absolute folder path
        added TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        missing_since TEXT                  -- when it was first found missing (a removable drive); NULL: present
    );
    """,
]


def current_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every migration newer than the database's user_version; returns the new version.

    Raises sqlite3.DatabaseError when a migration fails (that migration is rolled back).
    A database newer than this code raises RuntimeError rather than being touched.
    """
    version = current_version(conn)
    if version > len(MIGRATIONS):
        raise RuntimeError(
            f"library schema version {version} is newer than this app understands ({len(MIGRATIONS)})"
        )
    for number in range(version + 1, len(MIGRATIONS) + 1):
        script = MIGRATIONS[number - 1]
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)


def _statements(script: str) -> list[str]:
    """Split a script into statements, keeping trigger bodies whole."""
    out, buf = [], []
    for line in script.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("--"):
            continue
        buf.append(line)
        joined = "\n".join(buf)
        if stripped.endswith(";") and sqlite3.complete_statement(joined):
            out.append(joined)
            buf = []
    if buf and "\n".join(buf).strip():
        out.append("\n".join(buf))
    return out
