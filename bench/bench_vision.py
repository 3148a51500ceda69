"""Vision throughput on this machine (prints one JSON object; writes nothing under bench/).

1. Figures without models: crop (render the figure region from the PDF) + pHash + dHash + PNG
   write, in figures/s, over the figures the real PDF parser finds in the given manuals;
   OCR of raster figures measured separately (figures/s).
2. CLIP image embedding, images/s, with a base-size ViT-B/32 (transformers' default CLIPConfig,
   random weights: timing only) through the app's TransformersClip backend, against the physical
   estimate: ~8.8 GFLOP per 224x224 image (≈4.4 GMAC), compared with this machine's measured
   float32 matmul rate.

    .venv/bin/python bench/bench_vision.py [PDF ...] [--max-figures 150] [--ocr-figures 12] [--clip-images 32]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

VIT_B32_GFLOP = 8.8


def find_figures(pdfs: list[Path], limit: int) -> list[tuple[Path, int, tuple, str]]:
    """(pdf, page, bbox, source) of figures found by the app's PDF parser (not timed)."""
    from mmrag_desktop.engine.parse.pdf import open_pdf

    out = []
    for pdf in pdfs:
        doc = open_pdf(pdf, tables="off", figure_crops=False)
        try:
            for page in doc.pages():
                for b in page.blocks:
                    if b.kind == "figure" and b.figure is not None:
                        out.append((pdf, page.page, b.figure.bbox, b.figure.source))
                if len(out) >= limit:
                    return out
        finally:
            doc.close()
    return out


def bench_figures(figs, workdir: Path) -> dict:
    from mmrag_desktop.engine.figures.crops import open_pdf_for_crops, render_pdf_region, save_crop
    from mmrag_desktop.engine.figures.phash import dhash, phash

    t0 = time.perf_counter()
    crops = []
    docs: dict = {}
    for i, (pdf, page, bbox, source) in enumerate(figs):
        if pdf not in docs:  # one open document per manual, as the enrichment job does
            docs[pdf] = open_pdf_for_crops(pdf)
        im = render_pdf_region(pdf, page, bbox, doc=docs[pdf])
        phash(im)
        dhash(im)
        save_crop(workdir, 1, i, im)
        crops.append((im, source))
    for d in docs.values():
        d.close()
    dt = time.perf_counter() - t0
    return {"figures": len(figs), "seconds": round(dt, 2), "figures_per_s": round(len(figs) / dt, 1),
            "sources": {s: sum(1 for *_, src in figs if src == s) for s in {f[3] for f in figs}}}, crops


def bench_ocr(crops, n: int) -> dict:
    from mmrag_desktop.engine.parse.ocr import Ocr

    raster = [im for im, src in crops if src == "raster"][:n]
    if not raster or not Ocr.available():
        return {"figures": 0, "note": "no raster figures or OCR not installed"}
    ocr = Ocr(threads=2)
    ocr.read(raster[0])  # load the models outside the timing
    t0 = time.perf_counter()
    lines = sum(len(ocr.read(im)) for im in raster)
    dt = time.perf_counter() - t0
    return {"figures": len(raster), "seconds": round(dt, 2), "figures_per_s": round(len(raster) / dt, 2), "lines": lines}


def matmul_gflops(threads: int) -> float:
    import torch

    torch.set_num_threads(threads)
    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    for _ in range(3):
        a @ b
    t0 = time.perf_counter()
    n = 20
    for _ in range(n):
        a @ b
    return 2 * 1024**3 * n / (time.perf_counter() - t0) / 1e9


def bench_clip(n_images: int, threads: int) -> dict:
    import torch
    from PIL import Image
    from test_models_builders import build_tiny_clip
    from transformers import CLIPConfig, CLIPModel

    from mmrag_desktop.engine.models.clip import TransformersClip

    with tempfile.TemporaryDirectory() as tmp:
        folder = build_tiny_clip(Path(tmp) / "vit-b-32-random")  # tokenizer + preprocessor files
        config = CLIPConfig()  # transformers' default = ViT-B/32: 224 px, patch 32, width 768, 12 layers
        config.text_config.vocab_size = 514  # the offline byte-level tokenizer of the builder
        torch.manual_seed(0)
        CLIPModel(config).save_pretrained(str(folder))
        (folder / "preprocessor_config.json").write_text(json.dumps({
            "size": {"shortest_edge": 224}, "crop_size": {"height": 224, "width": 224}, "do_center_crop": True}))
        emb = TransformersClip(folder, threads=threads, batch_size=16)
        images = [Image.effect_mandelbrot((320 + i, 240), (-2, -1.2, 1, 1.2), 30 + i).convert("RGB")
                  for i in range(n_images)]
        emb.encode_images(images[:4])  # warm-up
        t0 = time.perf_counter()
        vecs = emb.encode_images(images)
        dt = time.perf_counter() - t0
        emb.close()
    rate = n_images / dt
    peak = matmul_gflops(threads)
    return {"images": n_images, "dim": int(vecs.shape[1]), "seconds": round(dt, 2), "images_per_s": round(rate, 2),
            "achieved_gflop_s": round(rate * VIT_B32_GFLOP, 1), "matmul_gflop_s": round(peak, 1),
            "efficiency_vs_matmul": round(rate * VIT_B32_GFLOP / peak, 2),
            "estimate_images_per_s_at_matmul_rate": round(peak / VIT_B32_GFLOP, 2), "threads": threads}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pdfs", nargs="*", type=Path)
    p.add_argument("--max-figures", type=int, default=150)
    p.add_argument("--ocr-figures", type=int, default=12)
    p.add_argument("--clip-images", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    pdfs = args.pdfs or sorted(Path("/tmp/manuals").glob("*.pdf"))
    out: dict = {"pdfs": [x.name for x in pdfs]}
    figs = find_figures(pdfs, args.max_figures)
    with tempfile.TemporaryDirectory() as tmp:
        out["crop_phash"], crops = bench_figures(figs, Path(tmp))
    out["ocr"] = bench_ocr(crops, args.ocr_figures)
    out["clip_vit_b32_random"] = bench_clip(args.clip_images, args.threads)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
