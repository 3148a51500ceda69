"""The installable app, built and used as a user gets it (issue 15).

Builds the one-folder bundle and the Linux archive with `scripts/build_installer.sh` from this
checkout (a clean clone in CI), then `installer/check_bundle.py` installs it into an empty HOME and
runs it with PATH outside any virtual environment and, where `unshare -rn` works, no network:
--version, add a real PDF, search with a box, a cited answer from the bundled model, the
self-test (under Xvfb when installed), "Open with" through the installed .desktop file, uninstall.

About 7 minutes on 2 cores and ~5 GB of temporary disk, so it has its own marker: CI runs it
(the whole CI stays well inside 60 minutes); skip it locally with `-m "not bundle"`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.bundle, pytest.mark.slow, pytest.mark.timeout(3600),
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux archive is built on Linux")]


def test_build_install_and_use_the_app_with_no_network(tmp_path):
    if shutil.disk_usage(tmp_path).free < 6e9:
        pytest.skip("needs ~6 GB of free temporary disk")
    from mmrag_desktop.ui.platform_libs import check

    libs = check(force=True)
    if not libs.ok:  # the build refuses, rightly: the bundle would lack them (scripts/build_installer.sh)
        pytest.skip(f"this build machine lacks Qt's xcb libraries ({' '.join(libs.missing)}): "
                    f"sudo apt-get install {' '.join(libs.packages(0))}")
    env = {**os.environ, "MMRAG_DIST_DIR": str(tmp_path / "dist"), "MMRAG_BUILD_DIR": str(tmp_path / "build")}
    build = subprocess.run(["bash", str(ROOT / "scripts" / "build_installer.sh")], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=2400)
    assert build.returncode == 0, build.stderr[-4000:]
    assert "self-test passed" in build.stderr  # the build checks its own bundle before archiving
    archive = Path(build.stdout.strip().splitlines()[-1])
    assert archive.name.startswith("mmrag-desktop-") and archive.name.endswith(".tar.gz") and archive.is_file()
    bundle = tmp_path / "dist" / "mmrag-desktop" / "_internal"
    assert not list(bundle.glob("**/libcudart*")) and not (bundle / "pytest").exists()  # what it never loads
    shutil.rmtree(tmp_path / "build")
    check = subprocess.run([sys.executable, str(ROOT / "installer" / "check_bundle.py"), str(archive), "--json"],
                           capture_output=True, text=True, timeout=1800)
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-3000:]
    for step in ("install.sh", "mmrag --version", "mmrag add", "mmrag search", "mmrag ask (bundled model)",
                 "mmrag-desktop --self-test", "Open with", "uninstall.sh"):
        assert f"ok  {step}" in check.stdout
    figures = json.loads(check.stdout.strip().splitlines()[-1])
    assert figures["installed_models_mb"] > 150  # the embedder, the answer model and OCR are inside
    print(json.dumps(figures))
