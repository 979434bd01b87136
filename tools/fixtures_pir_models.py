#!/usr/bin/env python3
"""Paddle 3 PIR programs (inference.json, what `paddle.jit.save` writes since Paddle 3.0) with references
from Paddle 3.3.1 itself: Paddle 2.6.2 cannot read them, so the release that writes the format runs it.
Weights and input are synthesized (tools/synth_weights.py; test/tools/synth_params.cc makes the same
values in the test from the program's parameter names), so only the program is committed.

  test/fixtures/pir_models/<model>/inference.json
  test/fixtures/pir_models/<model>/reference/{input, fetch, output.npy, meta.json}

  python3 -m venv /tmp/pd3 && /tmp/pd3/bin/pip install paddlepaddle==3.3.1 'numpy<2'
  cd tools && /tmp/pd3/bin/python fixtures_pir_models.py [MODEL ...]
"""

import hashlib
import sys
import tempfile
from pathlib import Path

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle

import synth_weights as sw
from make_example_ocr import CRNN, DBNet, REC_H  # examples/ocr's detector and recogniser
from svtr_rec import SVTRRec  # PP-OCRv3's recogniser architecture, small

paddle.disable_static()  # fixturelib turns static mode on for the ProgramDesc fixtures
OUT = fl.FIXTURES / "pir_models"


class Encoder(paddle.nn.Layer):
    """A BERT/ViT-style encoder on float tokens: 2 pre-norm layers, 4 heads, GELU, a classifier."""

    def __init__(self):
        super().__init__()
        layer = paddle.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.1, activation="gelu",
                                                  normalize_before=True)
        self.encoder = paddle.nn.TransformerEncoder(layer, 2, norm=paddle.nn.LayerNorm(64))
        self.head = paddle.nn.Linear(64, 10)

    def forward(self, x):
        h = self.encoder(x)
        return paddle.nn.functional.softmax(self.head(paddle.mean(h, axis=1)))


class ControlFlow(paddle.nn.Layer):
    """Python `if` and `while` on tensors, which Paddle 3 saves as pd_op.if / pd_op.while regions: one `if`
    takes its true branch and one its false branch on the synthesized input; the first loop carries a
    counter and a tensor, the second swaps two loop values each step (its yield passes a loop value on
    to the other's slot)."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        if paddle.mean(y) > -100.0:
            y = y * 2.0
        else:
            y = y - 1.0
        if paddle.mean(y) < -100.0:
            y = paddle.exp(y)
        else:
            y = paddle.tanh(y) + 0.25
        i = paddle.zeros([1], "int64")
        while i < 3:
            y = paddle.tanh(y) * 1.5 + 0.5
            i = i + 1
        z = y * 0.5
        j = paddle.zeros([1], "int64")
        while j < 3:
            y, z = z, y + 1.0
            j = j + 1
        return y - 2.0 * z


MODELS = {
    "resnet18": (lambda: paddle.vision.models.resnet18(), [1, 3, 224, 224]),
    "mobilenet_v2": (lambda: paddle.vision.models.mobilenet_v2(scale=1.0), [1, 3, 224, 224]),
    "encoder": (Encoder, [2, 16, 64]),
    "control_flow": (ControlFlow, [3, 8]),
    "ocr_det": (DBNet, [1, 3, 96, 192]),
    "ocr_rec": (CRNN, [1, 3, REC_H, 208]),
    "svtr_rec": (SVTRRec, [1, 3, 48, 160]),
}
# Dims left free in the saved program, as PaddleOCR exports them (height and width for the detector, the
# line's width for the recogniser); the others take the batch only.
FREE_DIMS = {"ocr_det": [None, 3, None, None], "ocr_rec": [None, 3, REC_H, None], "svtr_rec": [None, 3, 48, None]}


def synthesize(layer):
    for t in layer.state_dict().values():
        t.set_value(sw.synth(t.name, list(t.shape)))
    return len(layer.state_dict())


def write(name, make, dims):
    paddle.seed(fl.SEED)
    layer = make()
    layer.eval()
    n = synthesize(layer)
    spec = [paddle.static.InputSpec(FREE_DIMS.get(name, [None] + dims[1:]), "float32", "x")]
    d = fl.fresh_dir(OUT / name)
    with tempfile.TemporaryDirectory() as tmp:
        paddle.jit.save(layer, f"{tmp}/inference", input_spec=spec)
        program = Path(f"{tmp}/inference.json").read_bytes()
        (d / "inference.json").write_bytes(program)
        loaded = paddle.jit.load(f"{tmp}/inference")  # the saved program and weights, as a user runs them
        loaded.eval()
        x = sw.synth("x", dims, input=True)
        out = loaded(paddle.to_tensor(x)).numpy()
    ref = fl.fresh_dir(d / "reference")
    (ref / "input").write_text(f"x {','.join(str(i) for i in dims)}\n")
    (ref / "fetch").write_text("fetch_name_0\n")
    fl.save_npy(ref / "output.npy", out)
    fl.write_json(ref / "meta.json", {
        "script": fl.rel(__file__), "program": fl.rel(d / "inference.json"),
        "program_sha256": hashlib.sha256(program).hexdigest(), "persistables_synthesized": n,
        "output_shape": list(out.shape), "output_min": float(out.min()), "output_max": float(out.max()),
        **fl.versions()})
    print(f"== {fl.rel(d)}: {n} persistables, {len(program)} bytes, output {out.shape}")


def main():
    for name in sys.argv[1:] or list(MODELS):
        make, dims = MODELS[name]
        write(name, make, dims)


if __name__ == "__main__":
    main()
