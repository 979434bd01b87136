#!/usr/bin/env python3
"""Per-op Paddle references for the Fluid 1.x FPN detectors' proposal ops (see tools/op_caselib.py):
collect_fpn_proposals (fluid.layers.collect_fpn_proposals: the levels' RPN proposals back into one list,
the post_nms_topN best over all images) and generate_proposals (v1: fluid.layers.generate_proposals, ImInfo
and LoD outputs). Paddle 2.6.2 has no Python function left for them: the ops are written with append_op,
slot for slot as Fluid 1.x wrote them.

generate_proposals (v1): two images of different sizes and scales (the size filter divides by ImInfo's
scale), adaptive NMS, every box dropped (Paddle's one zero box per image), fp64; the LoD of RpnRois and
RpnRoiProbs is compared. Scores are distinct floats, so no case depends on how ties sort.

collect_fpn_proposals: three levels of two images by MultiLevelRoIsNum and by LoD, a cut below and above
the box count, fp64. Every image has boxes at every level: Paddle 2.6.2 steps at most one image per box
while assigning a level's boxes to images, so an image with none there misfiles the next image's boxes
(fluidc files them by the counts; kernels/detection_rpn.h). Scores are distinct, so no case depends on
how ties sort.

  python3 tools/op_cases_detection_fpn.py   # rewrites test/fixtures/op_cases/detection_fpn/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "detection_fpn"


def level_boxes(rng, n):
    """n boxes [x1, y1, x2, y2] of assorted sizes inside a 100 x 80 image."""
    xy = rng.uniform(0, 60, size=(n, 2))
    wh = rng.uniform(2, 40, size=(n, 2))
    return np.concatenate([xy, xy + wh], axis=1)


def collect_case(name, counts, top_n, lod=False, dtype="float32"):
    """counts[l][i]: boxes of image i at level l."""
    rng = np.random.default_rng(sum(sum(c) for c in counts) * 31 + top_n)
    with oc.program(FAMILY) as p:
        rois, scores, nums = [], [], []
        for l, per_image in enumerate(counts):
            total = sum(per_image)
            rois.append(p.input(f"rois{l}", [total, 4], dtype=dtype, value=level_boxes(rng, total), grad=False,
                                lod=[per_image] if lod else None))
            scores.append(p.input(f"scores{l}", [total, 1], dtype=dtype, low=0.0, high=1.0, grad=False,
                                  lod=[per_image] if lod else None))
            if not lod:
                nums.append(p.input(f"num{l}", [len(per_image)], dtype="int32", value=np.asarray(per_image),
                                    grad=False))
        helper = LayerHelper("collect_fpn_proposals")
        out = helper.create_variable_for_type_inference(dtype)
        num = helper.create_variable_for_type_inference("int32")
        inputs = {"MultiLevelRois": rois, "MultiLevelScores": scores}
        if nums:
            inputs["MultiLevelRoIsNum"] = nums
        helper.append_op(type="collect_fpn_proposals", inputs=inputs, outputs={"FpnRois": out, "RoisNum": num},
                         attrs={"post_nms_topN": top_n})
        p.case(name, [out, num], grads=False,
               notes=f"levels x images {counts}, post_nms_topN {top_n}, {'LoD' if lod else 'MultiLevelRoIsNum'}")


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


def proposals_case(name, im_info, dtype="float32", variances=(1.0, 1.0, 1.0, 1.0), **attrs):
    n, a = len(im_info), len(SIZES)
    with oc.program(FAMILY) as p:
        s = p.input("scores", [n, a, H, W], dtype=dtype, low=0.01, high=0.99, grad=False)
        d = p.input("deltas", [n, 4 * a, H, W], dtype=dtype, low=-0.6, high=0.6, grad=False)
        im = p.input("im_info", [n, 3], dtype=dtype, value=im_info, grad=False)
        an = p.input("anchors", [H, W, a, 4], dtype=dtype, value=anchors(), grad=False)
        va = p.input("variances", [H, W, a, 4], dtype=dtype, grad=False,
                     value=np.broadcast_to(np.asarray(variances, dtype), [H, W, a, 4]))
        helper = LayerHelper("generate_proposals")
        rois = helper.create_variable_for_type_inference(dtype)
        probs = helper.create_variable_for_type_inference(dtype)
        num = helper.create_variable_for_type_inference("int32")
        helper.append_op(type="generate_proposals",
                         inputs={"Scores": s, "BboxDeltas": d, "ImInfo": im, "Anchors": an, "Variances": va},
                         outputs={"RpnRois": rois, "RpnRoiProbs": probs, "RpnRoisNum": num}, attrs=attrs)
        p.case(name, [rois, probs, num], grads=False, notes=f"ImInfo {im_info}, {attrs}")


def main():
    oc.start(__file__, FAMILY)
    # The second image's scale 1.6: boxes the size filter keeps at scale 1 drop out (sizes / 1.6 + 1 < min_size).
    proposals_case("proposals_v1_scaled", [[64, 80, 1.0], [50, 60, 1.6]], pre_nms_topN=60, post_nms_topN=20,
                   nms_thresh=0.5, min_size=12.0, eta=1.0)
    proposals_case("proposals_v1_adaptive_nms", [[64, 80, 2.0], [50, 60, 0.5]], pre_nms_topN=40, post_nms_topN=30,
                   nms_thresh=0.9, eta=0.8, min_size=1.0, variances=(0.1, 0.1, 0.2, 0.2))
    proposals_case("proposals_v1_all_dropped", [[64, 80, 1.0], [50, 60, 3.0]], pre_nms_topN=60, post_nms_topN=20,
                   nms_thresh=0.5, min_size=500.0, eta=1.0)
    proposals_case("proposals_v1_fp64", [[64, 80, 1.25], [50, 60, 1.0]], dtype="float64", pre_nms_topN=25,
                   post_nms_topN=12, nms_thresh=0.6, min_size=8.0, eta=1.0)
    collect_case("collect_rois_num", [[3, 2], [4, 5], [2, 1]], 9)
    collect_case("collect_lod", [[2, 3], [5, 1], [1, 4]], 8, lod=True)
    collect_case("collect_keep_all", [[1, 2], [3, 1]], 50)
    collect_case("collect_fp64_one_image", [[4], [3], [2], [5]], 6, dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
