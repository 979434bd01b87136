#!/usr/bin/env python3
"""Per-op Paddle references for nms (paddle.vision.ops.nms's op), see tools/op_caselib.py: the op alone on
boxes in the order given (fp32 and fp64, two thresholds), and paddle.vision.ops.nms with scores as a detector
exports it (argsort by score, gather_nd, nms, the kept indices mapped back by gather_nd; given top_k, Paddle
2.6.2's static program still keeps every survivor, and so does the case).
Boxes are drawn in clusters so that many overlap; no gradient (Paddle has none).

  python3 tools/op_cases_nms_single.py   # rewrites test/fixtures/op_cases/nms_single/
"""

import numpy as np
import paddle
from paddle.base.layer_helper import LayerHelper

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)

FAMILY = "nms_single"


def clustered_boxes(rng, n):
    centres = rng.uniform(10, 60, size=(3, 2))
    c = centres[rng.integers(0, 3, size=n)] + rng.normal(0, 3, size=(n, 2))
    wh = rng.uniform(8, 20, size=(n, 2))
    return np.concatenate([c - wh / 2, c + wh / 2], axis=1)


def nms_op(boxes, threshold):
    helper = LayerHelper("nms")
    keep = helper.create_variable_for_type_inference("int64")
    helper.append_op(type="nms", inputs={"Boxes": boxes}, outputs={"KeepBoxesIdxs": keep},
                     attrs={"iou_threshold": threshold})
    return keep


def main():
    oc.start(__file__, FAMILY)
    rng = np.random.default_rng(17)
    for name, n, dtype, threshold in [("op_fp32_03", 24, "float32", 0.3), ("op_fp32_06", 24, "float32", 0.6),
                                      ("op_fp64_05", 16, "float64", 0.5)]:
        with oc.program(FAMILY) as p:
            b = p.input("boxes", [n, 4], dtype=dtype, grad=False, value=clustered_boxes(rng, n))
            p.case(name, [nms_op(b, threshold)], grads=False, notes=f"{n} {dtype} boxes, iou_threshold {threshold}")
    with oc.program(FAMILY) as p:
        n = 30
        b = p.input("boxes", [n, 4], grad=False, value=clustered_boxes(rng, n))
        s = p.input("scores", [n], grad=False, value=rng.permutation(n) / n)
        keep = paddle.vision.ops.nms(b, 0.4, scores=s, top_k=6)
        p.case("vision_ops_scores_top_k", [keep], grads=False,
               notes="paddle.vision.ops.nms(boxes, 0.4, scores, top_k=6): sort, nms, map back (no cut in static mode)")
    oc.finish()


if __name__ == "__main__":
    main()
