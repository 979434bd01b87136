#!/usr/bin/env python3
"""Per-op Paddle references for ops added together outside a larger family
(see tools/op_caselib.py): roll (shifts attribute, ShiftsTensor, flat),
logsumexp (one axis, several with keepdim, reduce_all), reduce_amax /
reduce_amin (ties, whose gradient Paddle splits evenly), forward and input
gradients.

  python3 tools/op_cases_misc.py   # rewrites test/fixtures/op_cases/misc/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "misc"


def one(name, shape, fn, dtype="float32", low=-2, high=2, value=None, notes=""):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=low, high=high, value=value)
        p.case(name, [fn(x)], grads=dtype in ("float32", "float64"), notes=notes)


# Values with ties in every row (a group of amax / amin), 0.5 apart otherwise.
TIES = np.array([[[1.0, 2.5], [2.5, 0.0], [-1.0, 2.5]],
                 [[0.5, 0.5], [0.5, -2.0], [3.0, -2.0]]])


def main():
    oc.start(__file__, FAMILY)
    one("roll_axes", [2, 3, 4], lambda x: paddle.roll(x, [1, -2], [0, 2]))
    one("roll_flat", [3, 4], lambda x: paddle.roll(x, 5))
    one("roll_repeated_axis_int64", [5], lambda x: paddle.roll(x, [2, 4], [0, 0]), dtype="int64", low=0, high=50)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4])
        s = p.input("shifts", [1], dtype="int64", grad=False, value=np.array([-3]))
        p.case("roll_shifts_tensor", [paddle.roll(x, s, 1)])

    one("logsumexp_axis1", [3, 4, 2], lambda x: paddle.logsumexp(x, axis=1))
    one("logsumexp_axes_keepdim", [3, 4, 2], lambda x: paddle.logsumexp(x, axis=[0, 2], keepdim=True))
    one("logsumexp_all", [3, 5], paddle.logsumexp)
    one("logsumexp_large", [2, 3], lambda x: paddle.logsumexp(x, axis=-1), low=80, high=90,
        notes="exp(80) overflows float32: the maximum must be taken out first")
    one("logsumexp_fp64", [3, 4], lambda x: paddle.logsumexp(x, axis=0), dtype="float64")

    one("amax_ties_axes_keepdim", [2, 3, 2], lambda x: paddle.amax(x, axis=[0, 2], keepdim=True), value=TIES)
    one("amax_ties_axis1", [2, 3, 2], lambda x: paddle.amax(x, axis=1), value=TIES)
    one("amax_all", [2, 3, 2], paddle.amax, value=TIES)
    one("amin_ties_axis_last", [2, 3, 2], lambda x: paddle.amin(x, axis=-1), value=TIES)
    one("amin_int64", [3, 4], lambda x: paddle.amin(x, axis=0), dtype="int64", low=-5, high=5)
    oc.finish()


if __name__ == "__main__":
    main()
