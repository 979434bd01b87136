#!/usr/bin/env python3
"""Per-op Paddle references for the two-stage detectors' proposal ops (see tools/op_caselib.py):
generate_proposals_v2 (paddle.vision.ops.generate_proposals) and distribute_fpn_proposals, as
PaddleDetection's Faster / Mask R-CNN exports run them between the RPN head and roi_align.

generate_proposals_v2: realistic anchors (stride 16, three sizes) over two images of different sizes,
random objectness and deltas; with and without pixel_offset, a pre-NMS cut below the anchor count,
adaptive NMS (eta < 1), no NMS, and a min_size that drops every box (Paddle's one zero box). Scores are
distinct floats, so no case depends on how ties sort. distribute_fpn_proposals: boxes of widely spread
sizes by RoisNum (int32, as generate_proposals writes it) and by LoD, with and without pixel_offset,
and chained after generate_proposals_v2 as the detectors run it.

  python3 tools/op_cases_detection_rpn.py   # rewrites test/fixtures/op_cases/detection_rpn/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "detection_rpn"
H, W, SIZES = 4, 5, (16.0, 40.0, 96.0)


def anchors():
    """[H, W, A, 4] square anchors centred on a 16-pixel grid."""
    a = np.zeros([H, W, len(SIZES), 4], "float32")
    for h in range(H):
        for w in range(W):
            for k, s in enumerate(SIZES):
                cx, cy = w * 16 + 8, h * 16 + 8
                a[h, w, k] = [cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2]
    return a


def rpn_inputs(p, variances=(1.0, 1.0, 1.0, 1.0)):
    n, a = 2, len(SIZES)
    s = p.input("scores", [n, a, H, W], low=0.01, high=0.99, grad=False)
    d = p.input("deltas", [n, 4 * a, H, W], low=-0.6, high=0.6, grad=False)
    im = p.input("im_shape", [n, 2], value=[[64, 80], [50, 60]], grad=False)
    an = p.input("anchors", [H, W, a, 4], value=anchors(), grad=False)
    va = p.input("variances", [H, W, a, 4], value=np.broadcast_to(np.float32(variances), [H, W, a, 4]), grad=False)
    return s, d, im, an, va


def main():
    oc.start(__file__, FAMILY)
    for name, kw, var in [
            ("proposals", dict(pre_nms_top_n=60, post_nms_top_n=20, nms_thresh=0.5, min_size=2.0), (1, 1, 1, 1)),
            ("proposals_pixel_offset", dict(pre_nms_top_n=60, post_nms_top_n=20, nms_thresh=0.5, min_size=2.0,
                                            pixel_offset=True), (0.1, 0.1, 0.2, 0.2)),
            ("proposals_pre_nms_cut", dict(pre_nms_top_n=25, post_nms_top_n=12, nms_thresh=0.6, min_size=1.0),
             (1, 1, 1, 1)),
            ("proposals_adaptive_nms", dict(pre_nms_top_n=60, post_nms_top_n=30, nms_thresh=0.9, eta=0.8,
                                            min_size=1.0), (1, 1, 1, 1)),
            ("proposals_no_nms", dict(pre_nms_top_n=100, post_nms_top_n=100, nms_thresh=0.0, min_size=1.0),
             (1, 1, 1, 1)),
            ("proposals_all_dropped", dict(pre_nms_top_n=60, post_nms_top_n=20, nms_thresh=0.5, min_size=500.0),
             (1, 1, 1, 1))]:
        with oc.program(FAMILY) as p:
            s, d, im, an, va = rpn_inputs(p, var)
            rois, probs, num = paddle.vision.ops.generate_proposals(s, d, im, an, va, return_rois_num=True, **kw)
            p.case(name, [rois, probs, num], grads=False)

    # Boxes of sides 4 to 600 over 3 images: every level from 2 to 5 gets some. (An image without boxes
    # stops Paddle 2.6.2: "The start row index must be less than the end row index".)
    r = np.random.default_rng(7)
    per_image = [9, 3, 7]
    side = np.exp(r.uniform(np.log(4), np.log(600), size=[sum(per_image), 2])).astype("float32")
    x1y1 = r.uniform(0, 200, size=[sum(per_image), 2]).astype("float32")
    boxes = np.concatenate([x1y1, x1y1 + side], axis=1)
    for name, pixel_offset, by_lod in [("fpn_by_rois_num", False, False), ("fpn_pixel_offset", True, False),
                                       ("fpn_by_lod", False, True)]:
        with oc.program(FAMILY) as p:
            rois = p.input("rois", [sum(per_image), 4], value=boxes, grad=False,
                           lod=[per_image] if by_lod else None)
            num = None if by_lod else p.input("rois_num", [len(per_image)], dtype="int32", value=per_image,
                                              grad=False)
            multi, restore, nums = paddle.vision.ops.distribute_fpn_proposals(
                rois, 2, 5, 4, 224, pixel_offset=pixel_offset, rois_num=num)
            p.case(name, list(multi) + [restore] + (list(nums) if nums else []), grads=False)

    with oc.program(FAMILY) as p:  # the detectors' chain: proposals, then their FPN levels
        s, d, im, an, va = rpn_inputs(p)
        rois, probs, num = paddle.vision.ops.generate_proposals(s, d, im, an, va, pre_nms_top_n=60, post_nms_top_n=20,
                                                                return_rois_num=True)
        multi, restore, nums = paddle.vision.ops.distribute_fpn_proposals(rois, 2, 5, 4, 24, rois_num=num)
        p.case("rpn_then_fpn", list(multi) + [restore] + list(nums), grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
