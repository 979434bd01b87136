#!/usr/bin/env python3
"""Per-op Paddle references for elementwise_heaviside (paddle.heaviside) and
its gradient, see tools/op_caselib.py: X with exact zeros (where Out is Y and
Y's gradient flows), same shapes, a broadcast Y, fp64 and int64.

  python3 tools/op_cases_heaviside.py   # rewrites test/fixtures/op_cases/heaviside/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "heaviside"


def heaviside_case(name, xshape, yshape, dtype="float32"):
    r = np.random.default_rng(sum(map(ord, name)))
    x = r.integers(-2, 3, size=xshape) * (0.5 if dtype.startswith("float") else 1)  # a fifth of X is 0
    with oc.program(FAMILY) as p:
        xv = p.input("x", xshape, dtype=dtype, value=x)
        yv = p.input("y", yshape, dtype=dtype, low=-2, high=2)
        p.case(name, [paddle.heaviside(xv, yv)], notes=f"heaviside X {xshape} Y {yshape} {dtype}")


def main():
    oc.start(__file__, FAMILY)
    heaviside_case("same_shape", [4, 5], [4, 5])
    heaviside_case("broadcast_y_fp64", [3, 4, 5], [5], dtype="float64")
    heaviside_case("broadcast_y_middle", [2, 3, 4], [3, 1])
    heaviside_case("int64", [3, 4], [3, 4], dtype="int64")
    oc.finish()


if __name__ == "__main__":
    main()
