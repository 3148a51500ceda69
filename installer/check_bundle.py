"""Check a Linux archive of mmrag-desktop the way a user meets it, and measure it.

    python installer/check_bundle.py dist/mmrag-desktop-0.1.0-linux-x86_64.tar.gz [--screenshot FILE] [--json]

Unpacks the archive and runs its install.sh into a temporary prefix, then with HOME set to an
empty folder, PATH without any virtual environment (the installed commands, /usr/bin, /bin) and,
where `unshare -rn` works, no network at all:
  1. `mmrag --version`
  2. `mmrag --library L add` a real PDF (tests/data/real/shared-mime-info-spec.pdf)
  3. `mmrag --library L search` finds its page with a box
  4. `mmrag --library L ask --quote` answers with a citation, written by the bundled model
  5. `mmrag-desktop --self-test` (under Xvfb when it is installed, else offscreen)
  6. "Open with": the installed .desktop file's Exec line with the PDF opens the window (time to
     window shown is measured from the log) and adds the file to the default library; with
     --screenshot the X display is saved (needs Xvfb and PySide6 in the Python running this)
  7. the uninstaller removes what install.sh put in place
Prints one line per step and the figures (sizes in MB, times in s); exits 1 on the first failure.
Needs only the standard library (plus PySide6 for --screenshot).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PDF = ROOT / "tests" / "data" / "real" / "shared-mime-info-spec.pdf"
SEARCH = "default weight of a glob pattern and its maximum"
QUESTION = "What is the default weight of a glob pattern, and the maximum?"
EXPECTED_PAGES = {4, 5}  # page 4 says it for glob weights, page 5 the same words for treemagic priority


class CheckFailed(Exception):
    pass


def du_mb(path: Path) -> float:
    total = sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
    return round(total / 1e6, 1)


def network_isolation() -> list[str]:
    """`unshare -rn` as a command prefix when this kernel allows it (no network inside), else []."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-rn"]
    return []


class Xvfb:
    """A private X display for the window, or None-like when Xvfb is not installed."""

    def __init__(self) -> None:
        self.proc = None
        self.display = ""
        if not shutil.which("Xvfb"):
            return
        for n in range(120, 160):
            if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
                self.display = f":{n}"
                break
        self.proc = subprocess.Popen(["Xvfb", self.display, "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if Path(f"/tmp/.X11-unix/X{self.display[1:]}").exists():
                return
            time.sleep(0.1)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


class Checker:
    def __init__(self, archive: Path, work: Path) -> None:
        self.archive = archive
        self.work = work
        self.home = work / "home"
        self.prefix = work / "prefix"
        self.lib = work / "library"
        self.home.mkdir(parents=True)
        self.no_network = network_isolation()
        self.figures: dict = {"archive_mb": round(archive.stat().st_size / 1e6, 1),
                              "network": "none (unshare -rn)" if self.no_network else "not isolated (unshare -rn unavailable)"}

    def env(self, **extra: str) -> dict:
        env = {"HOME": str(self.home), "PATH": f"{self.prefix / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8"}
        env.update(extra)
        return env

    def run(self, args: list[str], *, timeout: float = 600, isolate: bool = True, **extra: str):
        cmd = (self.no_network if isolate else []) + args
        t = time.perf_counter()
        out = subprocess.run(cmd, env=self.env(**extra), capture_output=True, text=True, timeout=timeout)
        took = time.perf_counter() - t
        if out.returncode != 0:
            raise CheckFailed(f"{' '.join(args)} exited {out.returncode}:\n{out.stderr[-3000:]}")
        return out, took

    def step(self, name: str, fn) -> None:
        t = time.perf_counter()
        detail = fn()
        print(f"ok  {name} ({time.perf_counter() - t:.1f} s){': ' + detail if detail else ''}", flush=True)

    # --- the steps -------------------------------------------------------------------------------
    def install(self) -> str:
        with tarfile.open(self.archive) as tar:
            tar.extractall(self.work / "unpacked", filter="tar")
        (top,) = list((self.work / "unpacked").iterdir())
        out, _ = self.run(["bash", str(top / "install.sh"), "--prefix", str(self.prefix)], isolate=False)
        self.app = self.prefix / "lib" / "mmrag-desktop"
        shutil.rmtree(self.work / "unpacked")  # installed: the unpacked copy only takes disk space
        for p in (self.prefix / "bin" / "mmrag", self.prefix / "bin" / "mmrag-desktop",
                  self.prefix / "share" / "applications" / "mmrag-desktop.desktop",
                  self.prefix / "share" / "icons" / "hicolor" / "256x256" / "apps" / "mmrag-desktop.png"):
            if not p.exists():
                raise CheckFailed(f"install.sh did not create {p}")
        desktop = self.prefix / "share" / "applications" / "mmrag-desktop.desktop"
        if shutil.which("desktop-file-validate"):  # desktop-file-utils, where installed
            out = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True, text=True)
            if out.returncode != 0 or "error:" in out.stdout:
                raise CheckFailed(f"the installed .desktop file is invalid: {out.stdout}{out.stderr}")
        self.figures["installed_mb"] = du_mb(self.app)
        self.figures["installed_torch_mb"] = du_mb(self.app / "_internal" / "torch")
        self.figures["installed_models_mb"] = du_mb(self.app / "_internal" / "models")
        return f"{self.figures['installed_mb']} MB in {self.app}"

    def version(self) -> str:
        out, _ = self.run(["mmrag", "--version"])
        if not out.stdout.startswith("mmrag "):
            raise CheckFailed(f"mmrag --version printed {out.stdout!r}")
        self.version_text = out.stdout.strip()
        return self.version_text

    def add(self) -> str:
        _, took = self.run(["mmrag", "--library", str(self.lib), "add", str(PDF)])
        self.figures["add_s"] = round(took, 1)
        out, _ = self.run(["mmrag", "--library", str(self.lib), "list", "--json"])
        docs = json.loads(out.stdout)
        if [d.get("status") for d in docs] != ["ready"]:
            raise CheckFailed(f"after add the library lists {docs}")
        return f"{docs[0].get('pages')} pages"

    def search(self) -> str:
        out, took = self.run(["mmrag", "--library", str(self.lib), "search", SEARCH, "--json", "-k", "3"])
        hits = json.loads(out.stdout)["hits"]
        top = hits[0] if hits else {}
        if top.get("doc") != PDF.name or top.get("page") not in EXPECTED_PAGES or not top.get("bbox"):
            raise CheckFailed(f"search's top hit is {top}")
        self.figures["search_s"] = round(took, 2)
        return f"page {top['page']}, bbox {[round(v) for v in top['bbox']]}"

    def ask(self) -> str:
        out, took = self.run(["mmrag", "--library", str(self.lib), "ask", QUESTION, "--quote", "--json"])
        ans = json.loads(out.stdout)
        if not ans.get("citations") or not ans.get("model"):
            raise CheckFailed(f"ask gave no cited model answer: {ans.get('answer')!r} {ans.get('notices')}")
        if "50" not in ans["answer"]:
            raise CheckFailed(f"the answer does not state the default weight: {ans['answer']!r}")
        self.figures["first_answer_s"] = round(took, 1)
        pages = sorted({c["page"] for c in ans["citations"]})
        return f"{ans['model']}, cites page(s) {pages}: {ans['answer'][:80]!r}"

    def self_test(self, x: Xvfb) -> str:
        platform = {"DISPLAY": x.display} if x.display else {"QT_QPA_PLATFORM": "offscreen"}
        self.run(["mmrag-desktop", "--check-libraries"], **platform)
        out, took = self.run(["mmrag-desktop", "--self-test"], **platform)
        if "self-test passed" not in out.stderr:
            raise CheckFailed(out.stderr[-2000:])
        self.figures["self_test_s"] = round(took, 1)
        return "under Xvfb (xcb)" if x.display else "offscreen (no Xvfb here)"

    def open_with(self, x: Xvfb, screenshot: Path | None) -> str:
        desktop = (self.prefix / "share" / "applications" / "mmrag-desktop.desktop").read_text()
        exec_line = next(line for line in desktop.splitlines() if line.startswith("Exec="))[5:]
        program = exec_line.split('"')[1] if exec_line.startswith('"') else exec_line.split()[0]
        if "%F" not in exec_line:
            raise CheckFailed(f"the .desktop file's Exec line passes no files: {exec_line}")
        platform = {"DISPLAY": x.display} if x.display else {"QT_QPA_PLATFORM": "offscreen"}
        # the window's stderr goes to a file, not a pipe: a pipe nobody reads while the window runs
        # fills at 64 KB and then blocks the window
        stderr_path = self.home / "open-with.stderr"
        t0 = time.perf_counter()
        with open(stderr_path, "w") as stderr:
            proc = subprocess.Popen(self.no_network + [program, str(PDF)], env=self.env(**platform),
                                    stdout=subprocess.DEVNULL, stderr=stderr, text=True)
        try:
            shown = added = out = None
            while time.perf_counter() - t0 < 300 and added is None:
                if proc.poll() is not None:
                    raise CheckFailed(f"the window exited with {proc.returncode}: "
                                      f"{stderr_path.read_text(errors='replace')[-2000:]}")
                logs = list(self.home.rglob("mmrag-desktop.log"))
                if shown is None and logs and "window shown" in logs[0].read_text(errors="replace"):
                    shown = time.perf_counter() - t0
                out = subprocess.run([str(self.app / "mmrag"), "list", "--json"], env=self.env(),
                                     capture_output=True, text=True)
                if out.returncode == 0 and any(d.get("name") == PDF.name and d.get("status") == "ready"
                                               for d in json.loads(out.stdout or "[]")):
                    added = time.perf_counter() - t0
                time.sleep(0.5)
            if shown is None or added is None:
                log = "".join(p.read_text(errors="replace") for p in self.home.rglob("mmrag-desktop.log"))
                raise CheckFailed(
                    f"Open with: window shown {shown}, file added {added} (after 300 s)\n"
                    f"last `mmrag list`: {out.returncode if out else None} {(out.stdout + out.stderr)[-1000:] if out else ''}\n"
                    f"the window's log, last lines:\n{log[-3000:]}\n"
                    f"its stderr, last lines:\n{stderr_path.read_text(errors='replace')[-2000:]}")
            self.figures["cold_start_to_window_s"] = round(shown, 1)
            self.figures["open_with_added_s"] = round(added, 1)
            if screenshot is not None and x.display:
                time.sleep(3)
                grab(x.display, screenshot)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        return f"window shown after {shown:.1f} s, file in the library after {added:.1f} s"

    def uninstall(self) -> str:
        self.run(["bash", str(self.app / "uninstall.sh")], isolate=False)
        left = [p for p in (self.app, self.prefix / "bin" / "mmrag", self.prefix / "bin" / "mmrag-desktop",
                            self.prefix / "share" / "applications" / "mmrag-desktop.desktop") if p.exists()
                or p.is_symlink()]
        if left:
            raise CheckFailed(f"uninstall.sh left {left}")
        if not self.lib.exists():
            raise CheckFailed("uninstall.sh removed the user's library")
        return "app, commands, menu entry and icons removed; the library kept"


def grab(display: str, path: Path) -> None:
    """Save the X display `display` as a PNG with PySide6 (in a child: it needs its own DISPLAY)."""
    code = ("import sys; from PySide6.QtWidgets import QApplication; app = QApplication([]);"
            "img = app.primaryScreen().grabWindow(0); sys.exit(0 if img.save(sys.argv[1]) else 1)")
    subprocess.run([sys.executable, "-c", code, str(path)], env={**os.environ, "DISPLAY": display,
                   "QT_QPA_PLATFORM": "xcb"}, check=True, timeout=60)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("archive", type=Path)
    p.add_argument("--screenshot", type=Path, default=None, help="save the Open-with window here (PNG)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object at the end")
    args = p.parse_args(argv)
    x = Xvfb()
    with tempfile.TemporaryDirectory(prefix="mmrag-bundle-check-") as tmp:
        c = Checker(args.archive.resolve(), Path(tmp))
        try:
            c.step("install.sh", c.install)
            c.step("mmrag --version", c.version)
            c.step("mmrag add (a real PDF)", c.add)
            c.step("mmrag search", c.search)
            c.step("mmrag ask (bundled model)", c.ask)
            c.step("mmrag-desktop --self-test", lambda: c.self_test(x))
            c.step("Open with (the .desktop file)", lambda: c.open_with(x, args.screenshot))
            c.step("uninstall.sh", c.uninstall)
        except (CheckFailed, subprocess.TimeoutExpired) as e:
            print(f"FAILED: {e}", file=sys.stderr)
            return 1
        finally:
            x.close()
    print("figures: " + ", ".join(f"{k} {v}" for k, v in c.figures.items()))
    if args.json:
        print(json.dumps(c.figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
