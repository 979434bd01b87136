"""Shared recipe of the deployed detection/segmentation fixtures (tools/fixtures_yolov3.py, fixtures_ssd.py,
fixtures_bisenet.py): deterministic synthesized weights for a dygraph layer, its export the way PaddleDetection and
PaddleSeg export (paddle.jit.save of a to_static layer), and Paddle's outputs on the exported program.

A fixture directory (test/e2e/head_case.sh reads it):
  model.pdmodel / model.pdiparams   paddle.jit.save's program (op_callstack sanitised) and weights
  inputs/<feed>.npy                 the feeds
  expected/<fetch>.npy              Paddle's outputs (static Executor on the saved program), fetch names with
                                    '/' written as '_', as fluidc's --fetch-dir writes them; <fetch>.lod<l>.npy
                                    the LoD offsets of an output that has any
  cases/<tag>/{inputs,expected}/    more input sets, same layout (another input size of a program that takes any)
  compare                           one line per fetch: NAME RTOL ATOL [ties COL] (see head_case.sh)
  meta.json                         script, versions, feeds, fetches, ops, the checks the script made
"""

import hashlib
from pathlib import Path

import numpy as np

import fixturelib as fl  # noqa: F401  (sets threads/env before paddle)
import paddle
from paddle.base.proto import framework_pb2

OUT = fl.FIXTURES / "detect"


def rng(tag):
    """A numpy Generator seeded from a string, so each parameter's values depend on its name only."""
    return np.random.default_rng(int.from_bytes(hashlib.sha256(tag.encode()).digest()[:8], "little"))


def synth_weights(layer, tag, override=None):
    """Fills every parameter and buffer of `layer` with deterministic values: conv/linear weights He-uniform
    (activations keep their scale through the layers), batch-norm statistics away from the trivial 0/1 (so that
    folding batch_norm into the convolution is exercised), small biases. override(name, value) may replace a
    value (a head's biases, chosen so that detections survive the thresholds)."""
    state = layer.state_dict()
    for name in sorted(state):
        t = state[name]
        shape = list(t.shape)
        r = rng(f"{tag}/{name}")
        if len(shape) >= 2:
            fan_in = int(np.prod(shape[1:]))
            bound = np.sqrt(6.0 / fan_in)
            v = r.uniform(-bound, bound, size=shape)
        elif name.endswith("_mean"):
            v = r.uniform(-0.2, 0.2, size=shape)
        elif name.endswith("_variance"):
            v = r.uniform(0.5, 1.5, size=shape)
        elif name.endswith(".weight"):  # batch-norm scale
            v = r.uniform(0.7, 1.3, size=shape)
        else:  # batch-norm shift, conv bias
            v = r.uniform(-0.1, 0.1, size=shape)
        if override is not None:
            v = override(name, v)
        t.set_value(np.asarray(v, dtype=t.numpy().dtype))


def image(tag, seed, h, w=None):
    """A synthetic image [3, h, w]: smooth blobs of colour over noise, about as a normalised photo ranges."""
    w = w or h
    r = rng(f"{tag}/image/{seed}")
    yy, xx = np.mgrid[0:h, 0:w]
    yy, xx = yy / h, xx / w
    img = 0.1 * r.standard_normal((3, h, w))
    for _ in range(6):
        cy, cx, s = r.uniform(0.1, 0.9), r.uniform(0.1, 0.9), r.uniform(0.05, 0.2)
        img += r.uniform(-1.5, 1.5, size=(3, 1, 1)) * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s))
    return img.astype(np.float32)


def export(layer, specs, out):
    """paddle.jit.save of `layer` (eval mode) into out/model.{pdmodel,pdiparams}; returns the program bytes."""
    layer.eval()
    paddle.jit.save(paddle.jit.to_static(layer, input_spec=specs), str(out / "model"))
    fl.sanitize_model_file(out / "model.pdmodel")
    for extra in out.glob("model.pdiparams.info"):  # dygraph bookkeeping, not part of the deployed model
        extra.unlink()
    data = (out / "model.pdmodel").read_bytes()
    fl.dump_text(f"detect_{out.name}.model", data)
    return data


def run_saved(out, feeds, extra_fetch=()):
    """Paddle's static Executor on the saved program (what Paddle Inference deploys): (fetch names, outputs as
    (array, LoD offsets) pairs, extra outputs). extra_fetch names intermediate variables to fetch as well (for
    the scripts' checks)."""
    paddle.enable_static()
    try:
        scope = paddle.static.Scope()
        exe = paddle.static.Executor(paddle.CPUPlace())
        with paddle.static.scope_guard(scope):
            prog, feed_names, targets = paddle.static.load_inference_model(str(out / "model"), exe)
            assert sorted(feed_names) == sorted(feeds), (feed_names, list(feeds))
            extra = [prog.global_block().var(n) for n in extra_fetch]
            res = exe.run(prog, feed=feeds, fetch_list=list(targets) + extra, return_numpy=False)
        lods = [v.lod() if hasattr(v, "lod") else [] for v in res[:len(targets)]]
        res = [np.asarray(v) for v in res]
        return [t.name for t in targets], list(zip(res[:len(targets)], lods)), res[len(targets):]
    finally:
        paddle.disable_static()


def write_case(d, feeds, fetch_names, outputs):
    """d/inputs/<feed>.npy and d/expected/<fetch>.npy (+ .lod<l>.npy); returns the fetches' file stems."""
    for k, a in feeds.items():
        fl.save_npy(d / "inputs" / f"{k}.npy", a)
    files = []
    for n, (a, lod) in zip(fetch_names, outputs):
        f = n.replace("/", "_")
        fl.save_npy(d / "expected" / f"{f}.npy", a)
        for level, offsets in enumerate(lod):
            fl.save_npy(d / "expected" / f"{f}.lod{level}.npy", np.asarray(offsets, dtype=np.int64))
        files.append(f)
    return files


def write_fixture(out, script, data, feeds, fetch_names, outputs, compare, checks, notes, cases=None):
    """inputs/, expected/, cases/, compare and meta.json beside the model export() wrote. cases: {tag: (feeds,
    outputs)}, more input sets of the same program."""
    files = write_case(out, feeds, fetch_names, outputs)
    for tag, (case_feeds, case_outputs) in (cases or {}).items():
        write_case(out / "cases" / tag, case_feeds, fetch_names, case_outputs)
    lines = []
    for f in files:
        lines.append(f"{f} {compare[f]}" if f in compare else f"{f} {compare['*']}")
    (out / "compare").write_text("".join(line + "\n" for line in lines))
    meta = {"kind": "deployed_head", "script": fl.rel(script), **fl.versions(),
            "export": "paddle.jit.save(paddle.jit.to_static(layer))",
            "feeds": {k: {"dtype": str(a.dtype), "shape": list(a.shape)} for k, a in feeds.items()},
            "fetch": fetch_names, "outputs": {f: {"dtype": str(a.dtype), "shape": list(a.shape), "lod": lod}
                                              for f, (a, lod) in zip(files, outputs)},
            "ops": fl.op_types(data), "ops_sequence": fl.op_types(data, unique=False),
            "checks": checks, "notes": notes,
            "cases": {tag: {k: list(a.shape) for k, a in f.items()} for tag, (f, _) in (cases or {}).items()}}
    fl.write_json(out / "meta.json", meta)


def iou(a, b, normalized):
    """IoU of corner boxes a [N, 4] against b [M, 4]: [N, M]; pixel boxes (normalized False) count the +1 as
    Paddle's NMS does."""
    off = 0.0 if normalized else 1.0
    area = lambda x: np.maximum(x[:, 2] - x[:, 0] + off, 0) * np.maximum(x[:, 3] - x[:, 1] + off, 0)  # noqa: E731
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.maximum(x2 - x1 + off, 0) * np.maximum(y2 - y1 + off, 0)
    return inter / (area(a)[:, None] + area(b)[None, :] - inter)


def nms_margins(boxes, scores, out, rois_num, attrs):
    """How far a batch's NMS inputs stay from the decisions NMS makes, as distances a float32 rounding in another
    implementation could not cross: the smallest |score - score_threshold| / score_threshold over all candidates;
    the smallest |IoU - nms_threshold| over the pairs of one class's candidates above the threshold; the smallest
    relative score gap between two such candidates that overlap by more than the threshold (which of them
    suppresses the other); and the smallest relative gap between the scores of two detections NMS kept for one
    image (their order in Out). A reference is worth comparing at 1e-4 only where all exceed about 1e-5.
    boxes [N, M, 4], scores [N, C, M], out [R, 6] and rois_num [N]: NMS's Out and NmsRoisNum; attrs the NMS op's."""
    score_threshold, nms_threshold = attrs["score_threshold"], attrs["nms_threshold"]
    normalized, background_label = attrs["normalized"], attrs["background_label"]
    s_margin = iou_margin = pair_gap = kept_gap = np.inf
    start = 0
    for n in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            if c == background_label:
                continue
            s = scores[n, c].astype(np.float64)
            s_margin = min(s_margin, float(np.min(np.abs(s - score_threshold)) / score_threshold))
            keep = s > score_threshold
            if keep.sum() > 1:
                m = iou(boxes[n, keep].astype(np.float64), boxes[n, keep].astype(np.float64), normalized)
                iu = np.triu_indices(m.shape[0], 1)
                iou_margin = min(iou_margin, float(np.min(np.abs(m[iu] - nms_threshold))))
                sk = s[keep]
                over = m[iu] > nms_threshold
                if over.any():
                    a, b = sk[iu[0][over]], sk[iu[1][over]]
                    pair_gap = min(pair_gap, float(np.min(np.abs(a - b) / np.maximum(a, b))))
        ks = np.sort(out[start:start + rois_num[n], 1].astype(np.float64))
        start += rois_num[n]
        if ks.size > 1:
            kept_gap = min(kept_gap, float(np.min(np.diff(ks) / ks[1:])))
    return {"score_threshold_margin": s_margin, "iou_threshold_margin": iou_margin,
            "suppressing_pair_score_gap": pair_gap, "kept_score_gap": kept_gap}


def op_args(data, op_type, slot):
    """The variable names in input slot `slot` of every `op_type` op of a serialised program, in program order."""
    pd = framework_pb2.ProgramDesc.FromString(data)
    return [a for op in pd.blocks[0].ops if op.type == op_type for v in op.inputs if v.parameter == slot
            for a in v.arguments]


def path(name):
    return fl.fresh_dir(OUT / name)
