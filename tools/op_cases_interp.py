#!/usr/bin/env python3
"""Per-op Paddle references for the interp family (see tools/op_caselib.py):
nearest_interp_v2 / bilinear_interp_v2 (through paddle.nn.functional.interpolate
and nn.Upsample) and the v1 ops nearest_interp / bilinear_interp (raw ops),
forward and X@GRAD, over the size sources (out_h/out_w, the scale attribute,
OutSize, SizeTensor, the Scale tensor), align_corners, align_mode 0/1, NCHW and
NHWC, integer and fractional scales, up- and down-sampling.

A size computed at run time leaves Out's static dims at -1; those cases pass
Out through a reshape to its known shape so the weighted loss can be built.

  python3 tools/op_cases_interp.py   # rewrites test/fixtures/op_cases/interp/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper

FAMILY = "interp"


def raw_interp(op, x, inputs=None, **attrs):
    """An interpolation op built directly: the v1 ops and attribute forms the
    functional API never writes (nearest with align_corners)."""
    helper = LayerHelper(op)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type=op, inputs={"X": x, **(inputs or {})}, outputs={"Out": out}, attrs=attrs)
    return out


def simple(name, shape, fn, notes=""):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, low=-2, high=2)
        p.case(name, [fn(x)], notes=notes)


def main():
    oc.start(__file__, FAMILY)
    up = "bilinear"
    # F.interpolate's defaults: align_corners False, align_mode 0 (half-pixel centres).
    simple("bilinear_scale2", [2, 3, 4, 5], lambda x: F.interpolate(x, scale_factor=2, mode=up))
    simple("bilinear_size_align_corners", [1, 2, 4, 5],
           lambda x: F.interpolate(x, size=[7, 9], mode=up, align_corners=True))
    simple("bilinear_align_mode1_frac_scale", [1, 2, 5, 6],
           lambda x: F.interpolate(x, scale_factor=[1.5, 1.7], mode=up, align_mode=1))
    simple("bilinear_downsample_scale0.6", [1, 2, 7, 9],
           lambda x: F.interpolate(x, scale_factor=0.6, mode=up))
    simple("bilinear_downsample_size", [1, 2, 8, 9], lambda x: F.interpolate(x, size=[3, 4], mode=up))
    simple("bilinear_nhwc", [2, 4, 5, 3],
           lambda x: F.interpolate(x, scale_factor=[1.5, 2], mode=up, data_format="NHWC"))
    simple("bilinear_nhwc_align_corners_down", [1, 6, 7, 3],
           lambda x: F.interpolate(x, size=[4, 3], mode=up, align_corners=True, data_format="NHWC"))
    simple("upsample_bilinear", [1, 3, 3, 4], lambda x: paddle.nn.Upsample(scale_factor=2, mode=up)(x))
    simple("upsample_nearest", [1, 3, 3, 4], lambda x: paddle.nn.Upsample(size=[5, 7], mode="nearest")(x))
    simple("nearest_scale2", [2, 3, 3, 4], lambda x: F.interpolate(x, scale_factor=2, mode="nearest"))
    simple("nearest_frac_scale", [1, 2, 5, 6], lambda x: F.interpolate(x, scale_factor=[1.5, 0.7], mode="nearest"))
    simple("nearest_size_down", [1, 2, 7, 8], lambda x: F.interpolate(x, size=[3, 5], mode="nearest"))
    simple("nearest_nhwc", [2, 3, 4, 3],
           lambda x: F.interpolate(x, size=[5, 9], mode="nearest", data_format="NHWC"))
    simple("nearest_align_corners", [1, 2, 4, 5],
           lambda x: raw_interp("nearest_interp_v2", x, out_h=7, out_w=3, scale=[], interp_method="nearest",
                                align_corners=True, align_mode=1, data_layout="NCHW"),
           notes="raw op: the functional API refuses align_corners for nearest")

    # Sizes computed at run time: OutSize (size given as one tensor), SizeTensor
    # (a list holding a tensor), the Scale tensor; Out is reshaped to its known dims.
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 2, 4, 5], low=-2, high=2)
        sz = p.input("size", [2], dtype="int32", grad=False, value=np.array([6, 7]))
        y = F.interpolate(x, size=sz, mode=up)
        p.case("bilinear_outsize_tensor", [paddle.reshape(y, [1, 2, 6, 7])])
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 2, 4, 5], low=-2, high=2)
        h = p.input("h", [1], dtype="int32", grad=False, value=np.array([3]))
        y = F.interpolate(x, size=[h, 8], mode="nearest")
        p.case("nearest_size_tensor_list", [paddle.reshape(y, [1, 2, 3, 8])])
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 2, 4, 5], low=-2, high=2)
        s = p.input("scale", [2], grad=False, value=np.array([1.5, 0.8]))
        y = F.interpolate(x, scale_factor=s, mode=up, align_corners=False, align_mode=1)
        p.case("bilinear_scale_tensor", [paddle.reshape(y, [1, 2, 6, 4])])

    # The v1 ops (old programs): one float scale, or out_h/out_w, or OutSize.
    v1 = dict(data_layout="NCHW", align_corners=False, align_mode=1)
    simple("v1_bilinear_scale", [1, 2, 4, 5],
           lambda x: raw_interp("bilinear_interp", x, scale=1.5, out_h=0, out_w=0, interp_method="bilinear", **v1))
    simple("v1_bilinear_out_hw_align_corners", [1, 2, 4, 5],
           lambda x: raw_interp("bilinear_interp", x, out_h=6, out_w=3, interp_method="bilinear",
                                data_layout="NCHW", align_corners=True, align_mode=1))
    simple("v1_nearest_out_hw", [1, 2, 4, 5],
           lambda x: raw_interp("nearest_interp", x, out_h=8, out_w=7, interp_method="nearest", **v1))
    simple("v1_nearest_scale2", [1, 2, 3, 4],
           lambda x: raw_interp("nearest_interp", x, scale=2.0, interp_method="nearest", **v1))
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 2, 4, 5], low=-2, high=2)
        s = p.input("scale", [1], grad=False, value=np.array([1.5]))
        y = raw_interp("nearest_interp", x, {"Scale": s}, out_h=-1, out_w=-1, interp_method="nearest", **v1)
        p.case("v1_nearest_scale_tensor", [paddle.reshape(y, [1, 2, 6, 7])],
               notes="the v1 step is in/out (7 for 5 columns), not 1/scale as in v2")
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 2, 4, 5], low=-2, high=2)
        sz = p.input("size", [2], dtype="int32", grad=False, value=np.array([5, 3]))
        y = raw_interp("bilinear_interp", x, {"OutSize": sz}, out_h=-1, out_w=-1, interp_method="bilinear",
                       data_layout="NCHW", align_corners=False, align_mode=0)
        p.case("v1_bilinear_outsize_align_mode0", [paddle.reshape(y, [1, 2, 5, 3])])
    oc.finish()


if __name__ == "__main__":
    main()
