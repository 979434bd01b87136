#!/usr/bin/env python3
"""Per-op Paddle references for linear_interp_v2 (1-D), trilinear_interp_v2 (3-D)
and bicubic_interp_v2 (2-D) through paddle.nn.functional.interpolate (see
tools/op_caselib.py): forward and X@GRAD over the size sources (size, scale
factor, one scale per dim, OutSize, SizeTensor, the Scale tensor),
align_corners, align_mode 0/1, channel-first and channel-last, up- and
down-sampling. The 2-D nearest / bilinear ops are in op_cases_interp.py.

  python3 tools/op_cases_interp_nd.py   # rewrites test/fixtures/op_cases/interp_nd/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F

FAMILY = "interp_nd"


def simple(name, shape, fn, notes=""):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, low=-2, high=2)
        p.case(name, [fn(x)], notes=notes)


def main():
    oc.start(__file__, FAMILY)
    lin = dict(mode="linear", data_format="NCW")
    simple("linear_scale2", [2, 3, 5], lambda x: F.interpolate(x, scale_factor=2, **lin))
    simple("linear_size_align_corners", [1, 2, 6], lambda x: F.interpolate(x, size=[9], align_corners=True, **lin))
    simple("linear_nwc_align_mode1_frac", [1, 5, 3],
           lambda x: F.interpolate(x, scale_factor=1.5, mode="linear", align_mode=1, data_format="NWC"))
    simple("linear_downsample", [1, 2, 9], lambda x: F.interpolate(x, size=[4], **lin))
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 2, 5], low=-2, high=2)
        sz = p.input("size", [1], dtype="int32", grad=False, value=np.array([8]))
        y = F.interpolate(x, size=sz, **lin)
        p.case("linear_outsize_tensor", [paddle.reshape(y, [1, 2, 8])])

    tri = dict(mode="trilinear", data_format="NCDHW")
    simple("trilinear_scale2", [1, 2, 2, 3, 4], lambda x: F.interpolate(x, scale_factor=2, **tri))
    simple("trilinear_size_align_corners", [1, 2, 3, 3, 4],
           lambda x: F.interpolate(x, size=[4, 5, 3], align_corners=True, **tri))
    simple("trilinear_scale_per_dim_mode1", [1, 1, 3, 4, 5],
           lambda x: F.interpolate(x, scale_factor=[1.5, 0.5, 2], align_mode=1, **tri))
    simple("trilinear_ndhwc_down", [1, 4, 5, 3, 2],
           lambda x: F.interpolate(x, scale_factor=0.6, mode="trilinear", data_format="NDHWC"))
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 2, 2, 3, 3], low=-2, high=2)
        d = p.input("d", [1], dtype="int32", grad=False, value=np.array([3]))
        y = F.interpolate(x, size=[d, 4, 2], **tri)
        p.case("trilinear_size_tensor_list", [paddle.reshape(y, [1, 2, 3, 4, 2])])

    cub = dict(mode="bicubic")
    simple("bicubic_scale2", [1, 2, 4, 5], lambda x: F.interpolate(x, scale_factor=2, **cub))
    simple("bicubic_size_align_corners", [1, 2, 4, 5],
           lambda x: F.interpolate(x, size=[7, 9], align_corners=True, **cub))
    simple("bicubic_nhwc_down", [1, 7, 9, 2],
           lambda x: F.interpolate(x, size=[4, 5], mode="bicubic", data_format="NHWC"))
    simple("bicubic_frac_scale", [2, 1, 5, 6], lambda x: F.interpolate(x, scale_factor=[1.5, 0.7], **cub))
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 2, 4, 5], low=-2, high=2)
        s = p.input("scale", [2], grad=False, value=np.array([1.5, 0.8]))
        y = F.interpolate(x, scale_factor=s, **cub)
        p.case("bicubic_scale_tensor", [paddle.reshape(y, [1, 2, 6, 4])])
    oc.finish()


if __name__ == "__main__":
    main()
