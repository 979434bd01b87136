#!/usr/bin/env python3
"""Per-op Paddle references for bilinear_tensor_product (paddle.nn.functional.bilinear),
see tools/op_caselib.py: forward and the gradients of X, Y, Weight and Bias, with and
without Bias, fp32 and fp64.

  python3 tools/op_cases_bilinear.py   # rewrites test/fixtures/op_cases/bilinear/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle.nn.functional as F

FAMILY = "bilinear"


def case(name, b, m, n, k, bias=True, dtype="float32"):
    with oc.program(FAMILY) as p:
        x = p.input("x", [b, m], dtype=dtype)
        y = p.input("y", [b, n], dtype=dtype)
        w = p.input("weight", [k, m, n], dtype=dtype)
        bb = p.input("bias", [1, k], dtype=dtype) if bias else None
        p.case(name, [F.bilinear(x, y, w, bb)], notes="with Bias" if bias else "no Bias")


def main():
    oc.start(__file__, FAMILY)
    case("bilinear_bias", 3, 4, 5, 6)
    case("bilinear_nobias", 2, 3, 2, 4, bias=False)
    case("bilinear_fp64", 4, 2, 3, 3, dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
