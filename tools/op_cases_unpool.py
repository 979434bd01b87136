#!/usr/bin/env python3
"""Per-op Paddle references for unpool (paddle.nn.functional.max_unpool2d; SegNet's decoder), see
tools/op_caselib.py: forward and X@GRAD, after max_pool2d_with_index as SegNet chains them (the gradient
then runs through both ops), overlapping windows with padding and an explicit output_size, fp64, and
indices fed directly, two of them naming one position (the later value stays).

  python3 tools/op_cases_unpool.py   # rewrites test/fixtures/op_cases/unpool/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle.nn.functional as F

FAMILY = "unpool"


def pooled_case(name, shape, kernel, stride, padding, output_size=None, dtype="float32"):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-2, high=2)
        pooled, mask = F.max_pool2d(x, kernel, stride, padding, return_mask=True)
        y = F.max_unpool2d(pooled, mask, kernel, stride, padding, output_size=output_size)
        p.case(name, [y], notes=f"max_pool2d then max_unpool2d, kernel {kernel}, stride {stride}, padding {padding}, "
                                f"output_size {output_size}, {dtype}")


def main():
    oc.start(__file__, FAMILY)
    pooled_case("segnet_2x2", [2, 3, 6, 8], 2, 2, 0)
    pooled_case("overlap_pad_output_size", [1, 2, 7, 9], 3, 2, 1, output_size=[8, 10])
    pooled_case("fp64_3x3", [2, 2, 6, 6], 3, 3, 0, dtype="float64")
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 2, 2, 3], low=-2, high=2)
        # Channel 0's values 1 and 4 both go to position 5 (value 4, the later, stays); channel 1's scatter apart.
        idx = np.array([[[[0, 5, 7], [2, 5, 11]], [[11, 0, 3], [4, 9, 6]]]], "int32")
        mask = p.input("indices", [1, 2, 2, 3], dtype="int32", value=idx, grad=False)
        y = F.max_unpool2d(x, mask, 2, 2, 0, output_size=[3, 5])
        p.case("fed_indices_collision", [y], notes="indices fed directly, two naming one position")
    oc.finish()


if __name__ == "__main__":
    main()
