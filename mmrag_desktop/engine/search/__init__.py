"""Hybrid retrieval: dense + keyword (+ image) lists, weighted RRF, enrichment, MMR, highlight boxes."""
