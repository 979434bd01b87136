#!/usr/bin/env python3
"""Inference programs of real architectures saved by Paddle 2.6.2 itself (paddle.vision.models,
paddle.nn), with references on synthesized weights (tools/synth_weights.py): the program is
committed, the weights are not (ResNet-18's are 45 MB); the test makes the same weights with
test/tools/synth_params.cc.

  test/fixtures/models/<name>/model.pdmodel      save_inference_model's program (op_callstack sanitised)
  test/fixtures/models/<name>/reference/         input, fetch, output.npy, meta.json (fixtures_real_models.py)

  resnet18      paddle.vision.models.resnet18(), eval, x [1, 3, 224, 224]
  mobilenetv2   paddle.vision.models.mobilenet_v2(scale=1.0), eval, x [1, 3, 224, 224]
  encoder       BERT-style: nn.TransformerEncoder, 2 layers, d_model 128, 2 heads, feed-forward 512,
                gelu, eval; x [1, 64, 128] (already embedded tokens)
  lstmcell_rnn  nn.RNN(nn.LSTMCell(16, 24)): a while loop over a tensor array; x [1, 10, 16]
  and, as the zoo beside them (other classifiers of paddle.vision.models, x [1, 3, 224, 224] unless
  said): mobilenet_v1, mobilenet_v3_small (hard_swish, hard_sigmoid, squeeze-excite), shufflenet_v2_x0_25
  (split, transpose2 channel shuffle), squeezenet1_1, googlenet (its main output; the aux heads are
  pruned by the export), densenet121 (concat-heavy), inception_v3 (x [1, 3, 299, 299]),
  resnext50_32x4d (grouped convolutions)
  svtr_rec      an SVTR-LCNet-style recogniser (PP-OCRv3's architecture, tools/svtr_rec.py): depthwise blocks,
                hard_swish, squeeze-excite, transformer blocks over the H*W tokens, a CTC head; x [1, 3, 48, 160]
                with the width saved free (-1)

  feature_stats paddle.var / paddle.std rows and a normalisation over them; x [2, 8, 64]

  python3 tools/fixtures_models.py [NAME ...]      (default: every model)
"""
import sys

import tempfile
from pathlib import Path

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn as nn

from fixtures_real_models import write_reference
from svtr_rec import SVTRRec

OUT = fl.FIXTURES / "models"


def resnet18(x):
    return paddle.vision.models.resnet18()(x)


def mobilenetv2(x):
    return paddle.vision.models.mobilenet_v2(scale=1.0)(x)


def encoder(x):
    layer = nn.TransformerEncoderLayer(d_model=128, nhead=2, dim_feedforward=512, dropout=0.1, activation="gelu")
    return nn.TransformerEncoder(layer, num_layers=2)(x)


def lstmcell_rnn(x):
    """nn.RNN over an LSTMCell (not the fused rnn op): a while loop writing each step's output to a
    tensor array that tensor_array_to_tensor stacks; the last step's output."""
    outputs, _ = nn.RNN(nn.LSTMCell(16, 24))(x)
    return outputs[:, -1, :]


def feature_stats(x):
    """Per-row statistics as paddle.var and paddle.std write them (reduce_mean keepdim, then x minus that
    [N, C, 1] mean, squared): the fused loop reads the mean as a row while it writes its output, which the
    memory plan must not place on the mean's bytes."""
    v = paddle.var(x, axis=-1, keepdim=True)
    s = paddle.std(x, axis=1, keepdim=True)
    return (x - paddle.mean(x, axis=-1, keepdim=True)) / paddle.sqrt(v + 1e-5) + s


def svtr_rec(x):
    model = SVTRRec()
    model.eval()
    return model(x)


def vision(name, first_output=False):
    """paddle.vision.models.<name>() with its default arguments, in eval mode as exported."""
    def build(x):
        model = getattr(paddle.vision.models, name)()
        model.eval()
        y = model(x)
        return y[0] if first_output else y
    return build


IMAGE = [1, 3, 224, 224]
MODELS = {
    "resnet18": (resnet18, IMAGE),
    "mobilenetv2": (mobilenetv2, IMAGE),
    "encoder": (encoder, [1, 64, 128]),
    "lstmcell_rnn": (lstmcell_rnn, [1, 10, 16]),
    "mobilenet_v1": (vision("mobilenet_v1"), IMAGE),
    "mobilenet_v3_small": (vision("mobilenet_v3_small"), IMAGE),
    "shufflenet_v2_x0_25": (vision("shufflenet_v2_x0_25"), IMAGE),
    "squeezenet1_1": (vision("squeezenet1_1"), IMAGE),
    "googlenet": (vision("googlenet", first_output=True), IMAGE),
    "densenet121": (vision("densenet121"), IMAGE),
    "inception_v3": (vision("inception_v3"), [1, 3, 299, 299]),
    "resnext50_32x4d": (vision("resnext50_32x4d"), IMAGE),
    "svtr_rec": (svtr_rec, [1, 3, 48, 160]),
    "feature_stats": (feature_stats, [2, 8, 64]),
}
# Dims saved free beyond the batch (a text line's width), as PaddleOCR exports its recognisers.
FREE_DIMS = {"svtr_rec": [-1, 3, 48, -1]}


def export(name, build, dims):
    with fl.new_programs() as (main, startup):
        x = paddle.static.data("x", FREE_DIMS.get(name, [-1] + dims[1:]), "float32")
        y = build(x)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        with tempfile.TemporaryDirectory() as tmp:
            prefix = str(Path(tmp) / "model")
            paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
            fl.sanitize_model_file(prefix + ".pdmodel")
            data = Path(prefix + ".pdmodel").read_bytes()
    d = OUT / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "model.pdmodel").write_bytes(data)
    write_reference(data, dims, d / "reference", fl.rel(d / "model.pdmodel"))
    print(f"   ops: {', '.join(fl.op_types(data))}")


def main():
    names = sys.argv[1:] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    for name in names:
        build, dims = MODELS[name]
        export(name, build, dims)


if __name__ == "__main__":
    main()
