"""Turning files into searchable chunks: the ingest pipeline (pipeline.py), chunking, the
background sentence pass (sentences.py) and the child process that runs writes (worker_process.py)."""
