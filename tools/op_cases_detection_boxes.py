#!/usr/bin/env python3
"""Per-op Paddle references for Fluid 1.x box ops (see tools/op_caselib.py):
box_clip (LoD Input, one ImInfo row per sequence, scale != 1), iou_similarity
(normalised and pixel boxes, a LoD X) and anchor_generator (square and
non-square strides, offsets) and box_decoder_and_assign (Cascade R-CNN: a LoD PriorBox, deltas past
box_clip, tied class scores, a row whose scores keep its prior box, fp64). Forward only: Paddle has no gradient for them.
Paddle 2.6.2's box_clip needs a LoD Input (without one it crashes), so the
LoD-free forms fluidc also accepts are covered by kernels.detection_boxes.

  python3 tools/op_cases_detection_boxes.py   # rewrites test/fixtures/op_cases/detection_boxes/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "detection_boxes"


def raw_op(op, inputs, outs, attrs, dtype="float32"):
    helper = LayerHelper(op)
    created = {s: helper.create_variable_for_type_inference(dtype) for s in outs}
    helper.append_op(type=op, inputs=inputs, outputs=created, attrs=attrs)
    return created


def boxes(rng, n, lo, hi, size_lo, size_hi):
    """n valid boxes (x1 < x2, y1 < y2) with corners from [lo, hi)."""
    xy = rng.uniform(lo, hi, size=(n, 2))
    wh = rng.uniform(size_lo, size_hi, size=(n, 2))
    return np.concatenate([xy, xy + wh], axis=1).astype("float32")


def main():
    oc.start(__file__, FAMILY)
    rng = np.random.default_rng(7)

    with oc.program(FAMILY) as p:
        # Corners well outside both images, so every clamp is taken.
        b = p.input("boxes", [7, 4], low=-30, high=130, grad=False, lod=[[3, 4]])
        im = p.input("im_info", [2, 3], grad=False, value=[[100, 80, 1.0], [61, 95, 1.5]])
        p.case("box_clip_lod", [raw_op("box_clip", {"Input": b, "ImInfo": im}, ["Output"], {})["Output"]],
               grads=False)

    for name, normalized, lo, hi, size in (("iou_similarity_normalized", True, 0.0, 0.6, (0.05, 0.4)),
                                            ("iou_similarity_pixel", False, 0.0, 40.0, (2.0, 25.0))):
        with oc.program(FAMILY) as p:
            x = p.input("x", [6, 4], grad=False, value=boxes(rng, 6, lo, hi, *size))
            y = p.input("y", [4, 4], grad=False, value=boxes(rng, 4, lo, hi, *size))
            out = raw_op("iou_similarity", {"X": x, "Y": y}, ["Out"], {"box_normalized": normalized})["Out"]
            p.case(name, [out], grads=False)
    with oc.program(FAMILY) as p:
        x = p.input("x", [5, 4], grad=False, value=boxes(rng, 5, 0.0, 0.6, 0.05, 0.4), lod=[[2, 3]])
        y = p.input("y", [3, 4], grad=False, value=boxes(rng, 3, 0.0, 0.6, 0.05, 0.4))
        p.case("iou_similarity_lod", [raw_op("iou_similarity", {"X": x, "Y": y}, ["Out"], {})["Out"]], grads=False)

    for name, shape, attrs in (
            ("anchor_generator_default_stride", [1, 2, 3, 4],
             {"anchor_sizes": [32.0, 64.0, 128.0], "aspect_ratios": [0.5, 1.0, 2.0],
              "variances": [0.1, 0.1, 0.2, 0.2]}),
            ("anchor_generator_stride_offset", [2, 1, 4, 2],
             {"anchor_sizes": [30.0, 70.0], "aspect_ratios": [0.7, 1.3], "variances": [1.0, 1.0, 0.5, 0.5],
              "stride": [12.0, 20.0], "offset": 0.3})):
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, grad=False)
            o = raw_op("anchor_generator", {"Input": x}, ["Anchors", "Variances"], attrs)
            p.case(name, [o["Anchors"], o["Variances"]], grads=False)

    for name, dtype, lod, clip in (("box_decoder_and_assign_lod", "float32", [[2, 3]], 4.135),
                                   ("box_decoder_and_assign_fp64_clip", "float64", None, 1.5)):
        with oc.program(FAMILY) as p:
            n, c = 5, 3
            prior = p.input("prior", [n, 4], dtype=dtype, grad=False, value=boxes(rng, n, 0.0, 60.0, 4.0, 30.0),
                            lod=lod)
            var = p.input("var", [4], dtype=dtype, grad=False, value=[0.1, 0.1, 0.2, 0.2] if lod else [1, 1, 1, 1])
            # Width/height deltas up to 25 x var: some pass box_clip.
            target = p.input("target", [n, 4 * c], dtype=dtype, grad=False, low=-3.0, high=25.0)
            score = np.round(rng.uniform(-0.9, 1.0, size=(n, c)), 1)
            score[1, 1] = score[1, 2] = 0.7  # a tie: the first class wins
            score[3, 1:] = [-1.0, -1.5]      # no class above Paddle's start value -1: the prior box
            sc = p.input("score", [n, c], dtype=dtype, grad=False, value=score)
            o = raw_op("box_decoder_and_assign", {"PriorBox": prior, "PriorBoxVar": var, "TargetBox": target,
                                                  "BoxScore": sc}, ["DecodeBox", "OutputAssignBox"],
                       {"box_clip": clip}, dtype)
            p.case(name, [o["DecodeBox"], o["OutputAssignBox"]], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
