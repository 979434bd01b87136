#!/usr/bin/env python3
"""Per-op Paddle references for roi_align (paddle.vision.ops.roi_align), see
tools/op_caselib.py: forward and X@GRAD, aligned true and false, sampling_ratio
fixed and adaptive (-1), spatial_scale, several images (RoisNum or ROIs' LoD), regions partly and wholly outside the image, fp32 and fp64.

Aligned regions here are all at least one pixel on each side once scaled:
Paddle 2.6.2's CPU roi_align_grad widens smaller aligned regions to 1 x 1 while
its forward does not, so its gradient there is not its forward's derivative
(fluidc's is; see kernels/roi_align.h).

  python3 tools/op_cases_roi_align.py   # rewrites test/fixtures/op_cases/roi_align/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.vision.ops import roi_align

FAMILY = "roi_align"

# Regions on an 8x8 image (x1, y1, x2, y2), at spatial_scale 1: inside; partly
# outside at the top-left and at the bottom-right; wholly outside; thin.
BOXES = [[1.3, 0.6, 5.8, 4.1],
         [-2.7, -1.4, 3.3, 2.9],
         [4.6, 5.2, 10.7, 9.6],
         [11.2, 12.5, 14.8, 15.3],
         [0.9, 2.2, 2.4, 7.7]]


def case(name, counts, pooled, scale=1.0, sampling=-1, aligned=False, lod=False, dtype="float32",
         xshape=(2, 3, 8, 8)):
    boxes = np.asarray(BOXES[:sum(counts)], dtype=np.float64) / scale
    with oc.program(FAMILY) as p:
        x = p.input("x", list(xshape), dtype=dtype, low=-2, high=2)
        rois = p.input("rois", list(boxes.shape), dtype=dtype, value=boxes, grad=False,
                       lod=[counts] if lod else None)
        num = None if lod else p.input("rois_num", [len(counts)], dtype="int32", value=np.asarray(counts),
                                       grad=False)
        y = roi_align(x, rois, num, pooled, spatial_scale=scale, sampling_ratio=sampling, aligned=aligned)
        p.case(name, [y], notes=f"pooled {pooled}, spatial_scale {scale}, sampling_ratio {sampling}, "
                                f"aligned {aligned}, {'LoD' if lod else 'RoisNum'} {counts}")


def main():
    oc.start(__file__, FAMILY)
    case("aligned_fixed", [2, 3], 2, sampling=2, aligned=True)
    case("aligned_adaptive", [3, 2], (3, 2), aligned=True)
    case("unaligned_fixed_scale", [1, 4], (2, 3), scale=0.5, sampling=3)
    # No int64 RoisNum case: Paddle 2.6.2's static roi_align reads RoisNum as int32 and fails on int64
    # (fluidc takes both; test/unit/kernels/roi_align_test.cc).
    case("unaligned_adaptive", [2, 2], 3)
    case("lod_unaligned", [2, 3], 2, sampling=1, lod=True)
    case("fp64_aligned_adaptive_scale", [4, 1], (2, 2), scale=0.25, aligned=True, dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
