#!/usr/bin/env python3
"""A PP-YOLOE-style detector (tools/ppyoloe_head.py) built and exported as PaddleDetection exports its PP-YOLOE models,
with Paddle 2.6.2's outputs on it: test/fixtures/detect/ppyoloe/ (layout: tools/detect_headlib.py; test:
e2e_detect_ppyoloe). Anchors are made at run time from each level's size, so a second input size
(cases/other_size, 128x96) checks them.

  /tmp/pd/bin/python tools/fixtures_ppyoloe.py
"""

import numpy as np

import detect_headlib as dh  # noqa: E402  (imports fixturelib: threads/env before paddle)
import fixtures_yolov3 as y3
import paddle
import ppyoloe_head as pe
from paddle.static import InputSpec

SIZE = 96


def nms3(bboxes, scores):
    y3.NMS.update(pe.NMS)  # y3.multiclass_nms3 appends the op with y3.NMS as its attributes
    return y3.multiclass_nms3(bboxes, scores)


MARGINS = ("score_threshold_margin", "iou_threshold_margin", "suppressing_pair_score_gap", "kept_score_gap")


def feeds_for(h, w, seed):
    images = np.stack([dh.image("ppyoloe", seed, h, w), dh.image("ppyoloe", seed + 1, h, w)])
    return {"image": images, "scale_factor": np.array([[h / 480, w / 640], [1.0, 1.0]], dtype=np.float32)}


def reference(out, data, h, w, first_seed):
    """Paddle's outputs on the first pair of synthetic images of h x w (seeds from first_seed on) whose NMS
    decisions all lie further than 1e-5 from a tie (detect_headlib.nms_margins), with a few detections each."""
    nms_in = dh.op_args(data, "multiclass_nms3", "BBoxes") + dh.op_args(data, "multiclass_nms3", "Scores")
    for seed in range(first_seed, first_seed + 40, 2):
        feeds = feeds_for(h, w, seed)
        fetch, outputs, extra = dh.run_saved(out, feeds, nms_in)
        det, _, rois_num = (a for a, _ in outputs)
        checks = dh.nms_margins(extra[0], extra[1], det, rois_num, pe.NMS)
        checks["detections_per_image"] = [int(n) for n in rois_num]
        checks["image_seed"] = seed
        if all(checks[k] > 1e-5 for k in MARGINS) and all(3 <= n < pe.NMS["keep_top_k"] for n in rois_num):
            print("ppyoloe:", checks)
            return feeds, fetch, outputs, checks
    raise SystemExit(f"no image pair of {h}x{w} is clear of NMS ties: {checks}")


def main():
    paddle.disable_static()
    out = dh.path("ppyoloe")
    model = pe.PPYOLOE(nms3)
    dh.synth_weights(model, "ppyoloe", pe.override)
    specs = [InputSpec([None, 3, None, None], "float32", "image"), InputSpec([None, 2], "float32", "scale_factor")]
    data = dh.export(model, specs, out)
    feeds, fetch, outputs, checks = reference(out, data, SIZE, SIZE, 0)
    other, _, other_outputs, other_checks = reference(out, data, 128, 96, 100)
    out_name = fetch[0].replace("/", "_")
    dh.write_fixture(out, __file__, data, feeds, fetch, outputs,
                     {out_name: "1e-4 1e-5 ties 1", fetch[1].replace("/", "_"): f"0 0 ties-from {out_name} 1",
                      "*": "0 0"}, {"main": checks, "other_size": other_checks},
                     "ESE, DFL softmax + projection conv, run-time anchors (arange/meshgrid/stack/full from shape), "
                     "distance-to-box, scale_factor, multiclass_nms3",
                     cases={"other_size": (other, other_outputs)})


if __name__ == "__main__":
    main()
