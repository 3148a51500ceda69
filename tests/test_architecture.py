"""The layering holds: import-linter's contracts (pyproject.toml), no import cycle between any two
modules (imports inside functions count), and SQL only in engine/store/."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mmrag_desktop"
SQL = re.compile(r"^\s*(SELECT\s.*\bFROM\b|SELECT \d|INSERT (OR \w+ )?INTO\b|UPDATE \w+ SET\b|DELETE FROM\b|"
                 r"CREATE (TABLE|INDEX|TRIGGER|VIRTUAL)\b|DROP (TABLE|INDEX)\b|ALTER TABLE\b|PRAGMA \w+|"
                 r"BEGIN( IMMEDIATE)?$|COMMIT$|ROLLBACK$)", re.S)


def test_import_contracts_hold():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.skip("import-linter is not installed (it is a dev dependency: pip install -e '.[dev]')")
    run = subprocess.run([exe, "--no-cache"], cwd=PACKAGE.parent, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


def _import_graph() -> dict[str, set[str]]:
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("mmrag_desktop", exclude_type_checking_imports=True, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_modules():
    assert _cycles(_import_graph()) == []


def _sql_strings(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(), str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value):
            lines.append(node.lineno)
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
            if SQL.match(text):
                lines.append(node.lineno)
    return lines


def test_sql_only_in_the_store():
    store = PACKAGE / "engine" / "store"
    outside = {str(p.relative_to(PACKAGE)): found for p in PACKAGE.rglob("*.py")
               if store not in p.parents and (found := _sql_strings(p))}
    assert outside == {}
    assert len(_sql_strings(store / "chunks.py")) >= 10, "the check finds SQL where it is (f-strings too)"
