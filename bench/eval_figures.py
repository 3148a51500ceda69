"""Issue 5's figure benchmark: R@5 and box overlap for the figure questions only.

Figures must be found from their captions, labels and the paragraphs that reference them
(no CLIP/VLM model is available offline here). Target: R@5 >= 0.85, box@5 >= 0.75.
Same options as eval_search.py; writes bench/results/search_figure.json.

    python bench/eval_figures.py [--rebuild] [--skip-baselines]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_search import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(["--kinds", "figure", *sys.argv[1:]]))
