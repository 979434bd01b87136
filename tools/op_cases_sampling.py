#!/usr/bin/env python3
"""Per-op Paddle references for grid_sampler (paddle.nn.functional.grid_sample)
and deformable_conv (paddle.vision.ops.deform_conv2d), see tools/op_caselib.py.

grid_sampler: forward, X@GRAD and Grid@GRAD for bilinear and nearest sampling,
padding_mode zeros / border / reflection, align_corners true and false, with
grid points up to 1.3 beyond [-1, 1] so every padding rule is exercised.

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


def main():
    oc.start(__file__, FAMILY)
    for padding in ("zeros", "border", "reflection"):
        for align in (True, False):
            grid_case(f"grid_bilinear_{padding}_{'align' if align else 'noalign'}", "bilinear", padding, align)
        grid_case(f"grid_nearest_{padding}", "nearest", padding, padding != "border")
    grid_case("grid_bilinear_fp64_upsample", "bilinear", "zeros", False, xshape=(1, 2, 3, 4), gshape=(1, 6, 7, 2),
              dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
