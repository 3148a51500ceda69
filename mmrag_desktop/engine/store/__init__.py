"""The library on disk: SQLite (source of truth) and the hnswlib indices derived from it."""
