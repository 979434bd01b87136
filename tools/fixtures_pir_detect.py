#!/usr/bin/env python3
"""The deployed detection and segmentation programs of tools/fixtures_{yolov3,ssd,bisenet,ppyoloe}.py as Paddle 3 saves
them (PIR JSON, inference.json), with Paddle 3.3.1's outputs: test/fixtures/detect_pir/<family>/ (test:
e2e_detect_pir_<family>, through test/e2e/head_case.sh).

The same layers, weights (detect_headlib.synth_weights) and images as the Paddle 2.6.2 fixtures in
test/fixtures/detect/; what changes is the release that exports them and how the NMS is written: PaddleDetection
on Paddle 3 calls paddle._C_ops.multiclass_nms3 (its ppdet.modeling.ops), whose RoisNum output replaces the LoD
the v1 op gave SSD. Paddle 3 has no LoD outputs, so expected/ holds none.

  python3 -m venv /tmp/pd3 && /tmp/pd3/bin/pip install paddlepaddle==3.3.1 'numpy<2'
  cd tools && /tmp/pd3/bin/python fixtures_pir_detect.py [yolov3 ssd bisenet ppyoloe]
"""

import hashlib
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

import detect_headlib as dh  # noqa: E402  (imports fixturelib: threads/env before paddle)
import fixturelib as fl
import fixtures_bisenet as bis
import fixtures_ssd as ssd
import fixtures_yolov3 as y3
import paddle
import ppyoloe_head as pe
from paddle.static import InputSpec

OUT = fl.FIXTURES / "detect_pir"


def nms3(attrs):
    """multiclass_nms3 as PaddleDetection calls it under Paddle 3: (Out, Index, NmsRoisNum)."""
    def call(bboxes, scores):
        return paddle._C_ops.multiclass_nms3(bboxes, scores, None, attrs["score_threshold"], attrs["nms_top_k"],
                                             attrs["keep_top_k"], attrs["nms_threshold"], attrs["normalized"],
                                             attrs["nms_eta"], attrs["background_label"])
    return call


def ssd_nms(bboxes, scores):
    out, _, rois_num = nms3(ssd.NMS)(bboxes, scores)
    return out, rois_num


def run_saved(prefix, feeds):
    """Paddle 3 running the saved program, as a user deploys it (paddle.jit.load): outputs in fetch order."""
    loaded = paddle.jit.load(prefix)
    loaded.eval()
    outs = loaded(*[paddle.to_tensor(a) for a in feeds.values()])
    return [o.numpy() for o in (outs if isinstance(outs, (list, tuple)) else [outs])]


def export(name, model, specs, override):
    paddle.seed(fl.SEED)
    dh.synth_weights(model, name, override)
    model.eval()
    d = fl.fresh_dir(OUT / name)
    tmp = Path(tempfile.mkdtemp())
    paddle.jit.save(paddle.jit.to_static(model, input_spec=specs, full_graph=True), str(tmp / "inference"))
    for f in ("inference.json", "inference.pdiparams"):
        shutil.copy(tmp / f, d / f)
    return d


def write(d, feeds, outputs, compare, checks, notes, cases=None):
    fetch = [f"fetch_name_{i}" for i in range(len(outputs))]
    dh.write_case(d, feeds, fetch, [(a, []) for a in outputs])
    for tag, (case_feeds, case_outputs) in (cases or {}).items():
        dh.write_case(d / "cases" / tag, case_feeds, fetch, [(a, []) for a in case_outputs])
    (d / "compare").write_text("".join(f"{f} {compare.get(f, compare['*'])}\n" for f in fetch))
    program = (d / "inference.json").read_bytes()
    fl.write_json(d / "meta.json", {
        "kind": "deployed_head_pir", "script": fl.rel(__file__), **fl.versions(),
        "export": "paddle.jit.save(paddle.jit.to_static(layer, full_graph=True))",
        "program_sha256": hashlib.sha256(program).hexdigest(),
        "feeds": {k: {"dtype": str(a.dtype), "shape": list(a.shape)} for k, a in feeds.items()},
        "outputs": {f: {"dtype": str(a.dtype), "shape": list(a.shape)} for f, a in zip(fetch, outputs)},
        "checks": checks, "notes": notes,
        "cases": {tag: {k: list(a.shape) for k, a in f.items()} for tag, (f, _) in (cases or {}).items()}})
    print(f"== {fl.rel(d)}: outputs {[a.shape for a in outputs]}, {checks}")


def yolov3():
    y3.multiclass_nms3 = nms3(y3.NMS)
    S = y3.SIZE
    specs = [InputSpec([None, 3, S, S], "float32", "image"), InputSpec([None, 2], "float32", "im_shape"),
             InputSpec([None, 2], "float32", "scale_factor")]
    d = export("yolov3", y3.YOLOv3(), specs, y3.objectness_bias)
    images = np.stack([dh.image("yolov3", 0, S), dh.image("yolov3", 1, S)])
    feeds = {"image": images, "im_shape": np.array([[S, S]] * 2, dtype=np.float32),
             "scale_factor": np.array([[S / 480, S / 640], [S / 384, S / 384]], dtype=np.float32)}
    outputs = run_saved(str(d / "inference"), feeds)
    empty = dict(feeds, image=np.stack([images[0], images[1] * np.float32(0.1)]))
    empty_outputs = run_saved(str(d / "inference"), empty)
    counts, empty_counts = outputs[2].tolist(), empty_outputs[2].tolist()
    assert all(5 <= k <= 50 for k in counts) and 5 <= empty_counts[0] <= 50 and empty_counts[1] == 0, \
        (counts, empty_counts)
    write(d, feeds, outputs, {"fetch_name_0": "1e-4 1e-5 ties 1", "fetch_name_1": "0 0 ties-from fetch_name_0 1",
                              "*": "0 0"},
          {"boxes_per_image": counts, "empty_image_boxes_per_image": empty_counts},
          "yolo_box -> transpose/concat -> multiclass_nms3 (Out, Index, NmsRoisNum); cases/empty_image: the second "
          "image faded so that nothing of it passes", cases={"empty_image": (empty, empty_outputs)})


def ssd_head():
    ssd.multiclass_nms = ssd_nms
    s = 96
    d = export("ssd", ssd.SSD(), [InputSpec([None, 3, s, s], "float32", "image")], ssd.spread_conf)
    feeds = {"image": np.stack([dh.image("ssd", 0, s), dh.image("ssd", 1, s)])}
    outputs = run_saved(str(d / "inference"), feeds)
    counts = outputs[1].tolist()
    assert all(3 <= k <= 60 for k in counts), counts
    write(d, feeds, outputs, {"fetch_name_0": "1e-4 1e-6 ties 1", "*": "0 0"}, {"boxes_per_image": counts},
          "prior_box x3 -> box_coder decode_center_size, softmax -> multiclass_nms3 (Out, NmsRoisNum)")


def bisenet():
    d = export("bisenet", bis.BiSeNet(), [InputSpec([None, 3, None, None], "float32", "x")], None)
    # The first synthetic image whose every pixel's top two logits lie further apart than the logits' bound
    # lets them move: the label map is then compared exactly (as tools/fixtures_bisenet.py chooses its input).
    for seed in range(20):
        feeds = {"x": np.stack([dh.image("bisenet/pir", seed, 64, 96)])}
        outputs = run_saved(str(d / "inference"), feeds)
        top2 = np.sort(outputs[1].astype(np.float64), axis=1)[:, -2:]
        slack = (top2[:, 1] - top2[:, 0]) / (2 * (1e-4 * np.abs(top2).max(axis=1) + 1e-5))
        if slack.min() > 1:
            break
    labels = np.bincount(outputs[0].reshape(-1), minlength=bis.CLASSES).tolist()
    assert slack.min() > 1 and sum(n > 0 for n in labels) >= 3, (slack.min(), labels)
    write(d, feeds, outputs, {"fetch_name_0": "0 0", "fetch_name_1": "1e-4 1e-5", "*": "0 0"},
          {"input_seed": seed, "min_top2_gap_over_tolerance": float(slack.min()), "pixels_per_class": labels},
          "bilinear_interp_v2 with sizes from shape, argmax: free height and width")


def ppyoloe():
    d = export("ppyoloe", pe.PPYOLOE(nms3(pe.NMS)), [InputSpec([None, 3, None, None], "float32", "image"),
                                                   InputSpec([None, 2], "float32", "scale_factor")], pe.override)
    # The Paddle 2.6.2 fixture's inputs, which tools/fixtures_ppyoloe.py chose clear of NMS ties.
    src = fl.FIXTURES / "detect" / "ppyoloe"
    def inputs(case):
        return {k: np.load(case / "inputs" / f"{k}.npy") for k in ("image", "scale_factor")}
    feeds, other = inputs(src), inputs(src / "cases" / "other_size")
    outputs, other_outputs = run_saved(str(d / "inference"), feeds), run_saved(str(d / "inference"), other)
    write(d, feeds, outputs, {"fetch_name_0": "1e-4 1e-5 ties 1", "fetch_name_1": "0 0 ties-from fetch_name_0 1",
                              "*": "0 0"},
          {"boxes_per_image": outputs[2].tolist(), "other_size_boxes_per_image": other_outputs[2].tolist()},
          "ESE, DFL softmax + projection conv, run-time anchors, multiclass_nms3 through _C_ops; the inputs of "
          "test/fixtures/detect/ppyoloe", cases={"other_size": (other, other_outputs)})


FAMILIES = {"yolov3": yolov3, "ssd": ssd_head, "bisenet": bisenet, "ppyoloe": ppyoloe}


def main():
    paddle.disable_static()
    for name in sys.argv[1:] or list(FAMILIES):
        FAMILIES[name]()


if __name__ == "__main__":
    main()
