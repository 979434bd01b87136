#!/usr/bin/env python3
"""Per-op Paddle references for diagonal (paddle.diagonal; see tools/op_caselib.py): the main
diagonal, positive and negative offsets, swapped and negative axes, a batch dim kept in front of the
diagonal, float64, int64 and bool, with gradients for the floats.

  python3 tools/op_cases_diagonal.py   # rewrites test/fixtures/op_cases/diagonal/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "diagonal"


def main():
    oc.start(__file__, FAMILY)
    for name, shape, dtype, kw in [("main", [4, 5], "float32", {}),
                                   ("offset_pos", [4, 5], "float32", dict(offset=2)),
                                   ("offset_neg_swapped", [3, 4, 5], "float32", dict(offset=-1, axis1=2, axis2=0)),
                                   ("neg_axes_fp64", [2, 3, 4], "float64", dict(offset=1, axis1=-2, axis2=-1))]:
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, dtype=dtype)
            tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else {}
            p.case(name, [paddle.diagonal(x, **kw)], **tol)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 3, 2], dtype="int64", low=-9, high=9, grad=False)
        p.case("int64", [paddle.diagonal(x, offset=-1)], grads=False)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4], dtype="int32", low=0, high=2, grad=False)
        p.case("bool", [paddle.diagonal(paddle.cast(x, "bool"), offset=1)], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
