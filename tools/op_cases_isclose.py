#!/usr/bin/env python3
"""Per-op Paddle references for isclose and allclose (paddle.isclose / paddle.allclose; see
tools/op_caselib.py): the default tolerances, loose ones, equal_nan both ways over NaN and inf
pairs, float64, and allclose true and false. No gradient (Paddle defines none).

  python3 tools/op_cases_isclose.py   # rewrites test/fixtures/op_cases/isclose/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "isclose"
NAN, INF = float("nan"), float("inf")
A = [1.0, 1.0, 1e-9, NAN, NAN, INF, INF, -INF, 100.0, 100.0, 0.0, -2.0]
B = [1.0, 1.00001, 0.0, NAN, 1.0, INF, -INF, -INF, 100.001, 100.0005, 1e-8, -2.00002]


def main():
    oc.start(__file__, FAMILY)
    for name, dtype, kw in [("default", "float32", {}), ("equal_nan", "float32", dict(equal_nan=True)),
                            ("loose", "float32", dict(rtol=1e-3, atol=1e-4)),
                            ("fp64", "float64", dict(rtol=1e-6, atol=0.0, equal_nan=True))]:
        with oc.program(FAMILY) as p:
            a = p.input("a", [3, 4], dtype=dtype, value=np.reshape(A, [3, 4]), grad=False)
            b = p.input("b", [3, 4], dtype=dtype, value=np.reshape(B, [3, 4]), grad=False)
            p.case(name, [paddle.isclose(a, b, **kw), paddle.allclose(a, b, **kw)], grads=False)
    with oc.program(FAMILY) as p:
        a = p.input("a", [2, 3], value=[[1, 2, 3], [4, 5, 6]], grad=False)
        b = p.input("b", [2, 3], value=[[1, 2.000001, 3], [4, 5, 6.00001]], grad=False)
        p.case("allclose_true", [paddle.allclose(a, b), paddle.isclose(a, b)], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
