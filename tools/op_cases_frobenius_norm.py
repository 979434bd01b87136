#!/usr/bin/env python3
"""Per-op Paddle references for frobenius_norm (paddle.linalg.norm with
p='fro') and its gradient, see tools/op_caselib.py: a matrix, the last two
axes of a batch, keepdim, and fp64.

  python3 tools/op_cases_frobenius_norm.py   # rewrites test/fixtures/op_cases/frobenius_norm/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "frobenius_norm"


def fro_case(name, shape, dtype="float32", **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-2, high=2)
        p.case(name, [paddle.linalg.norm(x, p="fro", **kw)], notes=f"norm(p='fro') of {dtype} {shape} {kw}")


def main():
    oc.start(__file__, FAMILY)
    fro_case("matrix", [4, 5])
    fro_case("batch_last_axes", [3, 4, 5], axis=[1, 2])
    fro_case("first_axes_keepdim_fp64", [3, 4, 2], dtype="float64", axis=[0, 1], keepdim=True)
    oc.finish()


if __name__ == "__main__":
    main()
