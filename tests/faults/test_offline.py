"""Nothing needs the network (issue 17): ingest, search and an answer from the real bundled model
run in a network namespace with no interfaces (`unshare -rn`), where any connection fails."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import pytest
from conftest import write_pdf

SCRIPT = textwrap.dedent(
    """
    import socket, sys
    try:  # prove the namespace has no network
        socket.create_connection(("1.1.1.1", 443), timeout=2)
        print("NETWORK REACHABLE"); sys.exit(2)
    except OSError:
        pass
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.answer import ask
    from mmrag_desktop.engine.settings import Settings
    with Library.open(sys.argv[1], Settings(answer_mode="generative")) as lib:
        assert [e.stage for e in lib.add([sys.argv[2]]) if e.stage in ("done", "failed")] == ["done"]
        list(lib.enrich())
        hit = lib.search("how many litres per minute does the coolant pump deliver", k=1)[0]
        answer = ask(lib, "How many litres per minute does the coolant pump deliver?")
        print("HIT", hit.doc, hit.page)
        print("ANSWER", len(answer.text) > 0, len(answer.citations))
    """
)


def _namespace_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


@pytest.mark.llm
@pytest.mark.skipif(not _namespace_works(), reason="unshare -rn (user and network namespaces) is not available here")
def test_ingest_search_and_answer_without_any_network(tmp_path):
    pdf = write_pdf(tmp_path / "pump.pdf", [[(72, 100, "Coolant pump"),
                                            (72, 130, "The coolant pump delivers 12 litres per minute at 2 bar."),
                                            (72, 160, "Replace its seal every 2,000 operating hours.")]])
    proc = subprocess.run(["unshare", "-rn", sys.executable, "-c", SCRIPT, str(tmp_path / "lib"), str(pdf)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "HIT pump.pdf 1" in proc.stdout
    assert "ANSWER True" in proc.stdout and "ANSWER True 0" not in proc.stdout
