#!/usr/bin/env python3
"""Per-op Paddle references for the pad family (see tools/op_caselib.py):
pad3d forward and X@GRAD in every mode (constant with a value, reflect,
replicate, circular) on the 3-, 4- and 5-D inputs F.pad unsqueezes to 5-D,
both data formats, asymmetric and cropping (negative) paddings, circular
padding wider than the input, paddings given as a tensor (pad3d's Paddings
input), a reflect pad in front of a convolution (what Conv2D(padding_mode=
"reflect") writes), an int64 input; and pad (F.pad's constant mode with a
pair for every dim). pad2d has no case: Paddle 2.6.2 registers the op but no
kernel for it; kernels.pad checks it against pad3d.

  python3 tools/op_cases_pad.py   # rewrites test/fixtures/op_cases/pad/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F

FAMILY = "pad"


def one(name, shape, fn, dtype="float32", notes=""):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-5, high=5)
        p.case(name, [fn(x)], grads=dtype == "float32", notes=notes)


def main():
    oc.start(__file__, FAMILY)
    for mode in ["constant", "reflect", "replicate", "circular"]:
        one(f"pad3d_4d_{mode}", [2, 3, 4, 5], lambda x, m=mode: F.pad(x, [1, 2, 3, 1], mode=m, value=0.5))
    one("pad3d_4d_nhwc_reflect", [2, 4, 5, 3], lambda x: F.pad(x, [2, 1, 0, 3], mode="reflect", data_format="NHWC"))
    one("pad3d_4d_nhwc_constant", [2, 4, 5, 3],
        lambda x: F.pad(x, [1, 0, 2, 1], mode="constant", value=-2.0, data_format="NHWC"))
    one("pad3d_5d_replicate", [1, 2, 3, 4, 3], lambda x: F.pad(x, [1, 2, 0, 1, 2, 1], mode="replicate", data_format="NCDHW"))
    one("pad3d_5d_ndhwc_circular", [1, 3, 4, 3, 2],
        lambda x: F.pad(x, [1, 2, 0, 1, 2, 1], mode="circular", data_format="NDHWC"))
    one("pad3d_5d_ndhwc_reflect", [1, 3, 4, 3, 2],
        lambda x: F.pad(x, [2, 1, 3, 0, 1, 2], mode="reflect", data_format="NDHWC"))
    one("pad3d_3d_ncl_reflect", [2, 3, 6], lambda x: F.pad(x, [3, 2], mode="reflect", data_format="NCL"))
    one("pad3d_3d_nlc_replicate", [2, 6, 3], lambda x: F.pad(x, [1, 4], mode="replicate", data_format="NLC"))
    one("pad3d_crop_constant", [2, 3, 4, 5], lambda x: F.pad(x, [-1, 2, 1, -2], mode="constant", value=1.0))
    one("pad3d_crop_reflect", [2, 3, 4, 5], lambda x: F.pad(x, [2, -1, -1, 3], mode="reflect"))
    one("pad3d_circular_wider_than_x", [1, 2, 3, 4], lambda x: F.pad(x, [5, 6, 4, 3], mode="circular"),
        notes="circular padding beyond one period wraps around again")
    one("pad3d_int64_replicate", [1, 2, 3, 4], lambda x: F.pad(x, [1, 2, 2, 1], mode="replicate"), dtype="int64")

    def tensor_pad(x):
        pads = paddle.assign(np.array([2, 1, 1, 2], dtype="int32"))
        return F.pad(x, pads, mode="reflect")
    one("pad3d_paddings_tensor", [2, 3, 4, 5], tensor_pad, notes="Paddings input instead of the attribute")

    with oc.program(FAMILY) as p:  # Conv2D(padding_mode="reflect") writes this pad3d before its conv2d
        x = p.input("x", [1, 2, 5, 6])
        w = p.input("w", [3, 2, 3, 3])
        p.case("pad3d_reflect_conv2d", [F.conv2d(F.pad(x, [1, 1, 1, 1], mode="reflect"), w)])

    one("pad_constant_2d", [3, 4], lambda x: F.pad(x, [1, 2, 0, 3], mode="constant", value=0.25))
    one("pad_constant_4d", [2, 3, 2, 3], lambda x: F.pad(x, [0, 1, 2, 0, 1, 1, 0, 2], mode="constant", value=-1.0))
    one("pad_int32_3d", [2, 2, 3], lambda x: F.pad(x, [1, 0, 0, 1, 2, 1], value=7), dtype="int32")
    oc.finish()


if __name__ == "__main__":
    main()
