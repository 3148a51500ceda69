"""The VLM path with a tiny random GGUF text model + mmproj pair written in the test, run through
llama-cpp-python's real multimodal (libmtmd) chat handler; negative cases in a child process."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from model_builders import build_tiny_llama_gguf, build_tiny_mmproj, build_tiny_vlm
from PIL import Image

from mmrag_desktop.engine.errors import ModelError
from mmrag_desktop.engine.models import caption_schema as cs
from mmrag_desktop.engine.models.registry import inspect_path
from mmrag_desktop.engine.models.verify import verify_model
from mmrag_desktop.engine.models.vlm import VisionLanguageModel, load_vlm, verify_vlm
from mmrag_desktop.engine.settings import Settings

pytestmark = pytest.mark.llm


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("vlm") / "tiny")


def test_caption_and_ask_through_the_registry(pair):
    model, mmproj = pair
    settings = Settings(models={"vlm": str(model)}, threads=1)  # projector found next to the model
    with load_vlm(settings, max_tokens=3000) as vlm:
        assert vlm.handler_name == "mtmd" and vlm.model_id == "tiny-llama"
        webp = io.BytesIO()
        Image.new("RGB", (90, 60), (10, 200, 10)).save(webp, format="WEBP")
        img = Image.open(io.BytesIO(webp.getvalue()))  # WebP is converted to PNG before libmtmd
        cap = vlm.caption(img)
        assert set(cap) == {"description", "type", "visible_text", "components", "topics"}
        assert cap["description"] and cap["type"] in cs.FIGURE_TYPES
        for comp in cap["components"]:
            assert all(0.0 <= v <= 1.0 for v in comp["bbox_2d"])
        answer = vlm.ask(Image.new("RGBA", (40, 40)), "What is this?", max_tokens=5)
        assert isinstance(answer, str)
    with pytest.raises(ModelError, match="closed"):
        vlm.ask(img, "again?")
    vlm.close()  # idempotent


def test_truncated_answers_fail_after_one_retry_with_a_reason(pair):
    with VisionLanguageModel(*pair, threads=1, max_tokens=6) as vlm:
        with pytest.raises(ModelError, match="no valid caption after a retry.*cut off at 6 tokens"):
            vlm.caption(Image.new("RGB", (64, 64), "white"))


def test_chat_template_required_by_mtmd_handler(tmp_path, pair):
    plain = build_tiny_llama_gguf(tmp_path / "plain.gguf", chat_template=False)
    with pytest.raises(ModelError, match="no chat template"):
        VisionLanguageModel(plain, pair[1], handler="mtmd")
    with pytest.raises(ModelError, match="does not exist"):
        VisionLanguageModel(tmp_path / "gone.gguf", pair[1])


def test_verify_good_pair_in_child_process(pair):
    result = verify_vlm(*pair, timeout=120)
    assert result["handler"] == "mtmd" and result["chars"] >= 0
    v = verify_model("vlm", pair[0], timeout=120)
    assert v.extra["mmproj"] == pair[1] and len(v.sha256) == 64
    assert v.settings_entries() == {"vlm": str(pair[0]), "vlm_mmproj": str(pair[1])}


def test_mismatched_mmproj_is_reported_not_fatal(tmp_path, pair):
    wrong = build_tiny_mmproj(tmp_path / "mmproj-wrong.gguf", text_embd=32)  # output width != model's 64
    with pytest.raises(ModelError) as e:
        verify_vlm(pair[0], wrong, timeout=120)
    assert "mmproj-wrong.gguf does not fit tiny-llama.gguf" in str(e.value)


def test_missing_projector_tensor_is_reported_not_fatal(tmp_path, pair):
    broken = build_tiny_mmproj(tmp_path / "mmproj-broken.gguf", drop=("mm.2.weight",))
    with pytest.raises(ModelError) as e:
        verify_vlm(pair[0], broken, timeout=120)
    # llama.cpp segfaults on this file (signal 11); the child process dies, the test process does not
    assert e.value.role == "vlm" and "crashed while loading tiny-llama.gguf with mmproj-broken.gguf" in str(e.value)


def test_wrong_files_are_rejected_before_loading(tmp_path, pair):
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"GGUF" + b"\0" * 10)
    r = inspect_path("vlm", pair[0], mmproj=junk)
    assert r.status == "failed" and "not a vision projector" in r.message
    with pytest.raises(ModelError, match="is a vision projector"):
        verify_model("vlm", pair[1], mmproj=pair[1])


SILENCED_CHILD = """
import gc, sys
from mmrag_desktop.engine.answer.runner import import_llama_cpp
from mmrag_desktop.engine.models import llama_native
from mmrag_desktop.engine.models.vlm import _import_llama

llama_cpp = import_llama_cpp()
callback = llama_native._callback
assert callback is not None and llama_native._silenced == {"llama"}
assert _import_llama()[0] is llama_cpp  # the VLM adds libmtmd, with the same callback
assert llama_native._callback is callback and llama_native._silenced == {"llama", "mtmd"}
gc.collect()  # the callback must survive collection: native code calls it later
llm = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=64, n_threads=1, verbose=True)  # would log the load
llm.eval(llm.tokenize(b"Hello"))
llm.close()
print("ok")
"""


def test_llama_logs_are_silenced_once_per_process_for_both_models(pair):
    """The answer runner and the VLM share one log callback (models/llama_native.py): installed
    once, kept alive, and llama.cpp's load log does not reach stderr even with verbose=True."""
    out = subprocess.run([sys.executable, "-c", SILENCED_CHILD, str(pair[0])], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
    assert "llama_model_loader" not in out.stderr and "load_tensors" not in out.stderr, out.stderr[-2000:]


def test_answer_model_verification_runs_in_the_shared_isolated_child(tmp_path, pair):
    """answer/runner.verify_model loads a GGUF through models/isolated.run_isolated: a good file gives
    its facts, a cut one a ModelError in plain words, and this process survives both."""
    from mmrag_desktop.engine.answer.runner import verify_model as verify_gguf

    facts = verify_gguf(pair[0], timeout=120)
    assert facts["ok"] and facts["chat_template"] and facts["arch"] == "llama"
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(pair[0].read_bytes()[:60_000])  # the header survives, the tensors are cut off
    with pytest.raises(ModelError, match="cut.gguf is damaged or not a model llama.cpp supports"):
        verify_gguf(cut, timeout=120)


def _facts_of_a_daemon(conn) -> None:  # runs in a daemonic child, as the library's ingest worker is one
    from mmrag_desktop.engine.models.isolated import run_isolated

    try:
        conn.send(run_isolated("text_embedder", _child_facts, (), what="a test", timeout=120))
    except Exception as e:  # noqa: BLE001 - reported to the test
        conn.send({"error": f"{type(e).__name__}: {e}"})


def _child_facts() -> dict:
    import os

    return {"pid": os.getpid()}


def test_a_daemonic_process_can_run_an_isolated_check():
    """The ingest worker is a daemonic process, and multiprocessing refuses to start a child from one;
    the text model's first ONNX export runs in an isolated child from there (onnx_text.export_isolated)."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_facts_of_a_daemon, args=(child,), daemon=True)
    proc.start()
    assert parent.poll(180)
    got = parent.recv()
    proc.join(30)
    assert "error" not in got, got
    assert got["pid"] not in (proc.pid, os.getpid()) and proc.exitcode == 0


def test_box_conventions_and_component_boxes():
    assert cs.normalise_box([0.1, 0.2, 0.5, 0.6], "auto", (500, 400)) == [0.1, 0.2, 0.5, 0.6]
    assert cs.normalise_box([100, 200, 500, 600], "per-mille", (500, 400)) == [0.1, 0.2, 0.5, 0.6]
    assert cs.normalise_box([50, 80, 250, 240], "pixels", (500, 400)) == [0.1, 0.2, 0.5, 0.6]
    assert cs.normalise_box([50, 80, 250, 240], "auto", (500, 400)) == [0.1, 0.2, 0.5, 0.6]
    assert cs.normalise_box([5, 5, 5, 9], "pixels", (500, 400)) is None
    assert cs.normalise_box(["a"], "auto", (1, 1)) is None
    cap = cs.validate_caption({"description": " A  reset\x05 circuit ", "type": "Schematic", "visible_text": "",
                               "components": [{"name": "reset button", "bbox_2d": [0.5, 0.5, 1.0, 1.0]},
                                              {"name": "", "bbox_2d": [0, 0, 1, 1]}],
                               "topics": ["reset"]}, "fraction", (100, 100))
    assert cap["description"] == "A reset circuit" and cap["type"] == "schematic"
    assert cap["components"] == [{"name": "reset button", "bbox_2d": [0.5, 0.5, 1.0, 1.0]}]
    boxes = cs.component_page_boxes(cap, [100, 200, 300, 400])
    assert boxes == [{"name": "reset button", "bbox": [200.0, 300.0, 300.0, 400.0]}]
    with pytest.raises(cs.CaptionInvalid, match="lacks"):
        cs.validate_caption({"description": "x"})
    with pytest.raises(cs.CaptionInvalid, match="no JSON"):
        cs.parse_json_object("sorry, I cannot")
    assert cs.parse_json_object('Here:\n```json\n{"a": 1}\n```')["a"] == 1
