#!/usr/bin/env python3
"""Per-op Paddle references for the elementwise ops added for deployed programs
(see tools/op_caselib.py): elementwise_pow (forward and both gradients, with
broadcasting), elementwise_floordiv (integers of both signs and floats: Python's
floor rule), bitwise_and/or/xor/not on integers and bools.

  python3 tools/op_cases_elementwise.py   # rewrites test/fixtures/op_cases/elementwise/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "elementwise"


def main():
    oc.start(__file__, FAMILY)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4], low=0.3, high=2.0)  # positive: log(x) in Y's gradient
        y = p.input("y", [3, 4], low=-2.0, high=3.0)
        p.case("pow", [paddle.pow(x, y)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 4], low=0.3, high=2.0)
        y = p.input("y", [4], low=-1.0, high=2.0)
        p.case("pow_broadcast_row", [paddle.pow(x, y)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4], dtype="int32", low=1, high=5, grad=False)
        y = p.input("y", [3, 4], dtype="int32", low=0, high=4, grad=False)
        p.case("pow_int32", [paddle.pow(x, y)], grads=False)

    signs = np.array([[7, -7, 7, -7, 0, -1], [9, -9, 10, -10, 5, -6]])
    divs = np.array([[2, 2, -2, -2, 3, 4], [3, 3, -4, -4, -5, 6]])
    for dt in ("int32", "int64"):
        with oc.program(FAMILY) as p:
            x = p.input("x", [2, 6], dtype=dt, grad=False, value=signs)
            y = p.input("y", [2, 6], dtype=dt, grad=False, value=divs)
            p.case(f"floordiv_{dt}", [paddle.floor_divide(x, y)], grads=False)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 5], dtype="int64", low=-20, high=20, grad=False)
        y = p.input("y", [5], dtype="int64", grad=False, value=np.array([3, -3, 7, -2, 1]))
        p.case("floordiv_broadcast", [paddle.floor_divide(x, y)], grads=False)
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 4], grad=False, value=np.array([[7.5, -7.5, 7.5, -7.5], [1, -1, 0.25, -3]]))
        y = p.input("y", [2, 4], grad=False, value=np.array([[2, 2, -2, -2], [3, 3, 0.5, 1.5]]))
        p.case("floordiv_float", [paddle.floor_divide(x, y)], grads=False)

    for dt in ("int32", "int64"):
        with oc.program(FAMILY) as p:
            x = p.input("x", [3, 4], dtype=dt, low=-100, high=100, grad=False)
            y = p.input("y", [4], dtype=dt, low=-100, high=100, grad=False)
            p.case(f"bitwise_{dt}", [paddle.bitwise_and(x, y), paddle.bitwise_or(x, y), paddle.bitwise_xor(x, y),
                                     paddle.bitwise_not(x)], grads=False)
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 5], dtype="bool", low=0, high=2, grad=False)
        y = p.input("y", [2, 5], dtype="bool", low=0, high=2, grad=False)
        p.case("bitwise_bool", [paddle.bitwise_and(x, y), paddle.bitwise_or(x, y), paddle.bitwise_xor(x, y),
                                paddle.bitwise_not(x)], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
