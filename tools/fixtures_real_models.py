#!/usr/bin/env python3
"""References for the real programs in test/fixtures/real_models/ (saved by other people's Paddle
releases, no weights): Paddle 2.6.2 runs each program on synthesized weights and input
(tools/synth_weights.py; test/tools/synth_params.cc makes the same values in the test) and
records its output.

  test/fixtures/real_models/reference/<model>/
    input      "NAME D0,D1,..." : the fed variable and its dims (values: synth(NAME, dims, input=True))
    fetch      the fetched variable
    output.npy Paddle's value of it
    meta.json  versions, program sha256, the output's summary

  python3 tools/fixtures_real_models.py [REFERENCE_NAME ...]   # all, or only those
"""

import hashlib
import json
import sys

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
from paddle.base import core
from paddle.base.proto import framework_pb2

import synth_weights as sw

REAL = fl.FIXTURES / "real_models"
# model file -> (reference dir, input dims with the batch)
MODELS = {
    "mobilenetv2.pdmodel": ("mobilenetv2", [1, 3, 224, 224]),
    "stnet__model__": ("stnet", [1, 7, 15, 224, 224]),
    # PaddleOCR's published PP-OCRv4 detector, recogniser and the v2 direction classifier (free heights and
    # widths: one size each here, small enough for a unit-test budget).
    "ppocrv4_det.pdmodel": ("ppocrv4_det", [1, 3, 96, 128]),
    "ppocrv4_rec.pdmodel": ("ppocrv4_rec", [1, 3, 48, 160]),
    "ppocr_mobile_v2_cls.pdmodel": ("ppocr_mobile_v2_cls", [1, 3, 48, 192]),
}


def feed_and_fetch(desc):
    b = desc.blocks[0]
    feed = [op.outputs[0].arguments[0] for op in b.ops if op.type == "feed"]
    fetch = [op.inputs[0].arguments[0] for op in b.ops if op.type == "fetch"]
    assert len(feed) == 1 and len(fetch) == 1, (feed, fetch)
    return feed[0], fetch[0]


def reference(model_file, ref_name, dims):
    data = (REAL / model_file).read_bytes()
    write_reference(data, dims, REAL / "reference" / ref_name, f"test/fixtures/real_models/{model_file}")


def write_reference(data, dims, ref_dir, program_path):
    """Runs the serialised inference program `data` on synthesized weights and input (batch in
    `dims`) and writes input, fetch, output.npy and meta.json into `ref_dir`."""
    desc = framework_pb2.ProgramDesc.FromString(data)
    feed, fetch = feed_and_fetch(desc)
    prog = paddle.static.Program.parse_from_string(data)
    scope = paddle.static.Scope()
    place = paddle.CPUPlace()
    n = 0
    for v in desc.blocks[0].vars:
        if v.persistable and v.type.type == framework_pb2.VarType.LOD_TENSOR:
            td = v.type.lod_tensor.tensor
            # int8: quantized weights; int32/int64: zero points (tools/synth_weights.py).
            dtype = {framework_pb2.VarType.FP32: "float32", framework_pb2.VarType.INT8: "int8",
                     framework_pb2.VarType.INT32: "int32", framework_pb2.VarType.INT64: "int64"}[td.data_type]
            scope.var(v.name).get_tensor().set(sw.synth(v.name, list(td.dims), dtype=dtype), place)
            n += 1
    x = sw.synth(feed, dims, input=True)
    exe = paddle.static.Executor(place)
    with paddle.static.scope_guard(scope):
        (out,) = exe.run(prog, feed={feed: x}, fetch_list=[fetch], scope=scope)
    out = np.asarray(out)
    d = fl.fresh_dir(ref_dir)
    (d / "input").write_text(f"{feed} {','.join(str(i) for i in dims)}\n")
    (d / "fetch").write_text(fetch + "\n")
    fl.save_npy(d / "output.npy", out)
    fl.write_json(d / "meta.json", {
        "script": fl.rel(__file__), "program": program_path,
        "program_sha256": hashlib.sha256(data).hexdigest(), "persistables_synthesized": n,
        "output_shape": list(out.shape), "output_min": float(out.min()), "output_max": float(out.max()),
        "output_argmax": int(out.reshape(out.shape[0], -1)[0].argmax()), **fl.versions()})
    print(f"== {fl.rel(ref_dir)}: {n} persistables, output {out.shape} in [{out.min():.4g}, {out.max():.4g}]")


def main(only=()):
    for model_file, (ref, dims) in MODELS.items():
        if not only or ref in only:
            reference(model_file, ref, dims)


if __name__ == "__main__":
    main(sys.argv[1:])
