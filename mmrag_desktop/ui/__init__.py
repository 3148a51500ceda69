"""The PySide6 desktop front end: windows, widgets, Qt models and the engine worker thread.

Nothing here is imported by the engine. Heavy libraries (torch, pymupdf, llama_cpp) are
imported lazily so the window shows before any model loads.
"""
