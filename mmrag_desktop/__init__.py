"""mmrag-desktop: offline search and answers over technical manuals."""
__version__ = "0.1.0"
