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

LoD programs (LOD_MODELS: int64 word ids per sequence) get an lod_infer_case.sh fixture instead:

  test/fixtures/real_models/reference/<model>/
    inputs/FEED_CASE.npy, FEED_CASE.lod0.npy   ids drawn below each lookup table's row count, offsets
    expected/FETCH_CASE.npy (.lod0.npy)        Paddle's values ('/' in FETCH as '_'); exact lists them all
    meta.json

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


# LoD model file -> (reference dir, {case: sequence lengths}, float intermediates also fetched); every feed is a
# lod_level 1 int64 [-1, 1] id input. On synthesized weights the decoded tags vary little, so the float scores
# they are decoded from are compared too (fluidc builds with --fetch for them: the fixture's `fetch` file).
LAC_CASES = {"a": [5, 1, 7, 3], "b": [2, 0, 4]}
LOD_MODELS = {
    # Baidu's LAC (PyPI `LAC` 2.1.2): BiGRU-CRF word segmentation + tagging, saved by Fluid 1.6; fc_4.tmp_1: the
    # CRF's emission scores.
    "lac__model__": ("lac", LAC_CASES, ["fc_4.tmp_1"]),
    "lac_seg__model__": ("lac_seg", LAC_CASES, ["fc_4.tmp_1"]),
    # LAC's word-importance ranker: two LoD inputs (words and their tags), dynamic LSTMs, lod_reset; Fluid 1.8;
    # fc_3.tmp_2: the softmax its labels are the argmax of.
    "lac_rank__model__": ("lac_rank", LAC_CASES, ["fc_3.tmp_2"]),
}


def synthesized_scope(desc, scope, place):
    """Sets every persistable LoD tensor of block 0 to its synthesized value; returns how many."""
    n = 0
    for v in desc.blocks[0].vars:
        if v.persistable and v.type.type == framework_pb2.VarType.LOD_TENSOR:
            td = v.type.lod_tensor.tensor
            # int8: quantized weights; int32/int64: zero points (tools/synth_weights.py).
            dtype = {framework_pb2.VarType.FP32: "float32", framework_pb2.VarType.INT8: "int8",
                     framework_pb2.VarType.INT32: "int32", framework_pb2.VarType.INT64: "int64"}[td.data_type]
            scope.var(v.name).get_tensor().set(sw.synth(v.name, list(td.dims), dtype=dtype), place)
            n += 1
    return n


def lod_reference(model_file, ref_name, cases, extra):
    data = (REAL / model_file).read_bytes()
    desc = framework_pb2.ProgramDesc.FromString(data)
    b = desc.blocks[0]
    feeds = [op.outputs[0].arguments[0] for op in b.ops if op.type == "feed"]
    exact = [op.inputs[0].arguments[0] for op in b.ops if op.type == "fetch"]
    fetches = exact + extra
    dims = {v.name: list(v.type.lod_tensor.tensor.dims) for v in b.vars if v.type.type == framework_pb2.VarType.LOD_TENSOR}
    # Each id feed indexes a lookup table: its ids stay below the table's rows.
    rows = {op.inputs[[i.parameter for i in op.inputs].index("Ids")].arguments[0]:
            dims[op.inputs[[i.parameter for i in op.inputs].index("W")].arguments[0]][0]
            for op in b.ops if op.type in ("lookup_table", "lookup_table_v2")}
    prog = paddle.static.Program.parse_from_string(data)
    scope, place = paddle.static.Scope(), paddle.CPUPlace()
    n = synthesized_scope(desc, scope, place)
    exe = paddle.static.Executor(place)
    d = fl.fresh_dir(REAL / "reference" / ref_name)
    (d / "inputs").mkdir()
    (d / "expected").mkdir()
    r = np.random.default_rng(int(hashlib.sha256(ref_name.encode()).hexdigest()[:8], 16))
    summary = {}
    for case, lens in cases.items():
        offsets = np.cumsum([0] + lens).astype("int64")
        feed = {}
        for f in feeds:
            ids = r.integers(0, rows[f], size=(int(offsets[-1]), 1)).astype("int64")
            feed[f] = paddle.base.create_lod_tensor(ids, [lens], place)
            fl.save_npy(d / "inputs" / f"{f}_{case}.npy", ids)
            fl.save_npy(d / "inputs" / f"{f}_{case}.lod0.npy", offsets)
        with paddle.static.scope_guard(scope):
            outs = exe.run(prog, feed=feed, fetch_list=fetches, scope=scope, return_numpy=False)
        for name, t in zip(fetches, outs):
            stem = name.replace("/", "_")
            fl.save_npy(d / "expected" / f"{stem}_{case}.npy", np.asarray(t))
            for level, off in enumerate(t.lod()):
                fl.save_npy(d / "expected" / f"{stem}_{case}.lod{level}.npy", np.asarray(off, dtype="int64"))
            summary[f"{stem}_{case}"] = {"shape": list(np.asarray(t).shape), "lod": t.lod(),
                                         "values": np.asarray(t).ravel()[:32].tolist()}
    # The program's fetches are decoded tags and argmax labels: integers, compared exactly.
    (d / "exact").write_text("".join(f.replace("/", "_") + "\n" for f in exact))
    (d / "fetch").write_text(",".join(extra) + "\n")
    # The float scores are sums of O(1) terms (GRU states through 256-wide fc layers): a score near 0 carries
    # their absolute fp32 rounding in a different order than Paddle's (2.1e-6 at most on LAC's, whose largest
    # is 5.4), as the logits of the dense real models do (atol 1e-5 there too).
    (d / "tolerance").write_text("1e-5 1e-5\n")
    fl.write_json(d / "meta.json", {
        "script": fl.rel(__file__), "program": f"test/fixtures/real_models/{model_file}",
        "program_sha256": hashlib.sha256(data).hexdigest(), "persistables_synthesized": n,
        "id_rows": rows, "cases": cases, "outputs": summary, **fl.versions()})
    print(f"== {fl.rel(d)}: {n} persistables, {len(cases)} cases, outputs {summary}")


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
    n = synthesized_scope(desc, scope, place)
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
    for model_file, (ref, cases, extra) in LOD_MODELS.items():
        if not only or ref in only:
            lod_reference(model_file, ref, cases, extra)


if __name__ == "__main__":
    main(sys.argv[1:])
