"""Figures without models: perceptual hashes, crops, duplicate lookup."""

from .crops import crop_relpath, load_crop, render_pdf_region, save_crop
from .phash import dhash, hamming, phash
from .similar import duplicate_groups, similar_figures

__all__ = ["crop_relpath", "load_crop", "render_pdf_region", "save_crop", "dhash", "hamming", "phash",
           "duplicate_groups", "similar_figures"]
