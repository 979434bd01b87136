#!/usr/bin/env python3
"""Per-op Paddle references for grid_sampler (paddle.nn.functional.grid_sample)
and deformable_conv (paddle.vision.ops.deform_conv2d), see tools/op_caselib.py.

grid_sampler: forward, X@GRAD and Grid@GRAD for bilinear and nearest sampling,
padding_mode zeros / border / reflection, align_corners true and false, with
grid points up to 1.3 beyond [-1, 1] so every padding rule is exercised; on
4-D images and on 5-D volumes (grid3d_*: trilinear).

deformable_conv (v2, with Mask) and deformable_conv_v1 (mask=None): forward and
the gradients of Input, Offset, Mask and Filter, with fractional offsets up to
2.5 pixels (taps land between pixels and outside the image), stride,
dilation, groups and deformable_groups.

affine_grid: the grid and Theta@GRAD for 2-D and 3-D thetas, align_corners true and false.
  python3 tools/op_cases_sampling.py   # rewrites test/fixtures/op_cases/sampling/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F

FAMILY = "sampling"


def grid_case(name, mode, padding, align, xshape=(2, 3, 5, 6), gshape=(2, 4, 3, 2), dtype="float32"):
    with oc.program(FAMILY) as p:
        x = p.input("x", list(xshape), dtype=dtype, low=-2, high=2)
        g = p.input("grid", list(gshape), dtype=dtype, low=-1.3, high=1.3)
        y = F.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align)
        p.case(name, [y], notes=f"mode {mode}, padding_mode {padding}, align_corners {align}")


def deform_case(name, xshape, cout, k, stride=1, padding=0, dilation=1, groups=1, dg=1, with_mask=True):
    n, cin, h, w = xshape
    ho = (h + 2 * padding - (dilation * (k - 1) + 1)) // stride + 1
    wo = (w + 2 * padding - (dilation * (k - 1) + 1)) // stride + 1
    with oc.program(FAMILY) as p:
        x = p.input("x", list(xshape))
        off = p.input("offset", [n, 2 * dg * k * k, ho, wo], low=-2.5, high=2.5)
        m = p.input("mask", [n, dg * k * k, ho, wo], low=0, high=1) if with_mask else None
        wt = p.input("filter", [cout, cin // groups, k, k])
        y = paddle.vision.ops.deform_conv2d(x, off, wt, stride=stride, padding=padding, dilation=dilation,
                                            deformable_groups=dg, groups=groups, mask=m)
        p.case(name, [y], notes="deformable_conv" if with_mask else "deformable_conv_v1")


def affine_case(name, theta_shape, out_shape, align):
    with oc.program(FAMILY) as p:
        theta = p.input("theta", list(theta_shape), low=-1.5, high=1.5)
        p.case(name, [F.affine_grid(theta, out_shape, align_corners=align)], notes=f"align_corners {align}")


def main():
    oc.start(__file__, FAMILY)
    for padding in ("zeros", "border", "reflection"):
        for align in (True, False):
            grid_case(f"grid_bilinear_{padding}_{'align' if align else 'noalign'}", "bilinear", padding, align)
        grid_case(f"grid_nearest_{padding}", "nearest", padding, padding != "border")
    grid_case("grid_bilinear_fp64_upsample", "bilinear", "zeros", False, xshape=(1, 2, 3, 4), gshape=(1, 6, 7, 2),
              dtype="float64")
    # Volumetric (5-D X, Grid [N, D, H, W, 3]): trilinear and nearest, every padding mode.
    for padding in ("zeros", "border", "reflection"):
        for align in (True, False):
            grid_case(f"grid3d_bilinear_{padding}_{'align' if align else 'noalign'}", "bilinear", padding, align,
                      xshape=(2, 2, 3, 4, 5), gshape=(2, 2, 3, 2, 3))
        grid_case(f"grid3d_nearest_{padding}", "nearest", padding, padding == "border", xshape=(1, 2, 3, 4, 5),
                  gshape=(1, 3, 2, 4, 3))
    affine_case("affine_grid_align", (2, 2, 3), [2, 3, 4, 5], True)
    affine_case("affine_grid_noalign", (2, 2, 3), [2, 3, 5, 4], False)
    # No case with a size-1 axis: Paddle 2.6.2's linspace divides 0 by 0 there and its grid is NaN; fluidc
    # gives PyTorch's values (-1 aligned, 0 not), checked in test/unit/kernels/sampling_test.cc.
    affine_case("affine_grid_3d", (2, 3, 4), [2, 1, 3, 4, 2], False)
    # (The OutputShape-input form is checked in test/unit/kernels/sampling_test.cc: Paddle's static shape
    # rule gives that output [N, -1, -1, -1, 3] whatever Theta, which the case recipe cannot weight.)
    deform_case("deform_v2_3x3_pad1", (2, 3, 5, 6), 4, 3, padding=1)
    deform_case("deform_v2_stride_dilation_groups", (1, 4, 7, 8), 6, 3, stride=2, padding=2, dilation=2, groups=2,
                dg=2)
    deform_case("deform_v1_3x3", (1, 2, 5, 5), 3, 3, padding=1, with_mask=False)
    deform_case("deform_v1_2x2_dg2", (2, 4, 4, 5), 2, 2, stride=1, dg=2, with_mask=False)
    oc.finish()


if __name__ == "__main__":
    main()
