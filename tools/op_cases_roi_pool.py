#!/usr/bin/env python3
"""Per-op Paddle references for roi_pool (paddle.vision.ops.roi_pool, Faster R-CNN) and psroi_pool
(paddle.vision.ops.psroi_pool, R-FCN), see tools/op_caselib.py: forward (roi_pool's Argmax too) and
X@GRAD; several images by RoisNum or by ROIs' LoD; spatial_scale; regions partly
and wholly outside the image (empty bins), reversed and sub-pixel regions, bins of uneven size;
fp32 and fp64.

The ops are written with append_op, as the Python functions write them but with every slot:
paddle.vision.ops.psroi_pool in static mode drops boxes_num (the op then reads ROIs' LoD), and
roi_pool's Argmax is fetched to compare. RoisNum is int32 only: Paddle 2.6.2's kernels read it as
int32 and fail on int64 (fluidc takes both; test/unit/kernels/roi_pool_test.cc).

  python3 tools/op_cases_roi_pool.py   # rewrites test/fixtures/op_cases/roi_pool/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "roi_pool"

# Regions on a 9x9 image (x1, y1, x2, y2) at spatial_scale 1: inside; partly outside at the top-left and
# at the bottom-right; wholly outside (every bin empty); reversed (x2 < x1: one pixel wide); sub-pixel;
# a tall one whose height does not divide into the bins.
BOXES = [[1.3, 0.6, 5.8, 4.1],
         [-2.7, -1.4, 3.3, 2.9],
         [4.6, 5.2, 10.7, 12.6],
         [11.2, 12.5, 14.8, 15.3],
         [6.2, 1.1, 3.9, 7.4],
         [2.4, 3.3, 2.6, 3.45],
         [0.2, 0.4, 3.4, 8.7]]


def region_pool(p, op, x, counts, attrs, scale, dtype, num_dtype, lod):
    boxes = np.asarray(BOXES[:sum(counts)], dtype=np.float64) / scale
    rois = p.input("rois", list(boxes.shape), dtype=dtype, value=boxes, grad=False,
                   lod=[counts] if lod else None)
    inputs = {"X": x, "ROIs": rois}
    if not lod:
        inputs["RoisNum"] = p.input("rois_num", [len(counts)], dtype=num_dtype, value=np.asarray(counts), grad=False)
    helper = LayerHelper(op)
    out = helper.create_variable_for_type_inference(dtype)
    outputs = {"Out": out}
    if op == "roi_pool":
        outputs["Argmax"] = helper.create_variable_for_type_inference("int64")
    helper.append_op(type=op, inputs=inputs, outputs=outputs, attrs=dict(attrs, spatial_scale=scale))
    return outputs


def roi_pool_case(name, counts, pooled, scale=1.0, dtype="float32", num_dtype="int32", lod=False,
                  xshape=(2, 3, 9, 9)):
    with oc.program(FAMILY) as p:
        x = p.input("x", [len(counts)] + list(xshape[1:]), dtype=dtype, low=-2, high=2)
        o = region_pool(p, "roi_pool", x, counts, dict(pooled_height=pooled[0], pooled_width=pooled[1]), scale,
                        dtype, num_dtype, lod)
        p.case(name, [o["Out"], o["Argmax"]],
               notes=f"roi_pool pooled {pooled}, spatial_scale {scale}, {'LoD' if lod else num_dtype} {counts}")


def psroi_pool_case(name, counts, pooled, out_channels, scale=1.0, dtype="float32", num_dtype="int32", lod=False,
                    hw=(9, 9)):
    with oc.program(FAMILY) as p:
        x = p.input("x", [len(counts), out_channels * pooled[0] * pooled[1]] + list(hw), dtype=dtype, low=-2, high=2)
        o = region_pool(p, "psroi_pool", x, counts, dict(pooled_height=pooled[0], pooled_width=pooled[1],
                                                         output_channels=out_channels), scale, dtype, num_dtype, lod)
        p.case(name, [o["Out"]], notes=f"psroi_pool pooled {pooled}, output_channels {out_channels}, "
                                       f"spatial_scale {scale}, {'LoD' if lod else num_dtype} {counts}")


def main():
    oc.start(__file__, FAMILY)
    roi_pool_case("roi_pool_2x2", [3, 4], (2, 2))
    roi_pool_case("roi_pool_3x2_scale", [4, 3], (3, 2), scale=0.5)
    roi_pool_case("roi_pool_lod", [2, 5], (2, 3), lod=True)
    roi_pool_case("roi_pool_fp64_uneven", [7], (4, 3), scale=0.625, dtype="float64", xshape=(1, 2, 9, 9))
    psroi_pool_case("psroi_pool_2x2", [3, 4], (2, 2), 2)
    psroi_pool_case("psroi_pool_3x3_scale", [5, 2], (3, 3), 3, scale=0.5)
    psroi_pool_case("psroi_pool_lod", [4, 3], (2, 3), 2, lod=True)
    psroi_pool_case("psroi_pool_fp64_uneven", [2, 5], (3, 2), 2, scale=0.625, dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
