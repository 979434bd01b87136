#!/usr/bin/env python3
"""Per-op Paddle references for atan2 (paddle.atan2; see tools/op_caselib.py): float32 and
float64 over all four quadrants with gradients, an axis (X2 = 0, either sign of X1) without them,
and int32/int64 operands, which Paddle turns into a float64 result (the origin included).

  python3 tools/op_cases_atan2.py   # rewrites test/fixtures/op_cases/atan2/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "atan2"


def main():
    oc.start(__file__, FAMILY)
    for name, shape, dtype in [("fp32", [3, 5], "float32"), ("fp64", [2, 3, 4], "float64")]:
        with oc.program(FAMILY) as p:
            y = p.input("y", shape, dtype=dtype, low=-2, high=2)
            x = p.input("x", shape, dtype=dtype, low=-2, high=2)
            tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else {}
            p.case(name, [paddle.atan2(y, x)], **tol)
    with oc.program(FAMILY) as p:
        y = p.input("y", [6], value=[1.0, -1.0, 0.0, -0.0, 3.0, -2.0], grad=False)
        x = p.input("x", [6], value=[0.0, 0.0, -1.0, -1.0, -0.0, 1e-30], grad=False)
        p.case("axes", [paddle.atan2(y, x)], grads=False)
    for dtype in ["int32", "int64"]:
        with oc.program(FAMILY) as p:
            y = p.input("y", [2, 4], dtype=dtype, value=[[0, 3, -3, 0], [5, -7, 2, 0]], grad=False)
            x = p.input("x", [2, 4], dtype=dtype, value=[[0, 0, 4, -4], [-1, -1, 9, 6]], grad=False)
            p.case(dtype, [paddle.atan2(y, x)], grads=False, rtol=1e-12, atol=1e-12)
    oc.finish()


if __name__ == "__main__":
    main()
