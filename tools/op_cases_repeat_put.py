#!/usr/bin/env python3
"""Per-op Paddle references for repeat_interleave (a scalar Repeats, a
RepeatsTensor whose sum sizes the output at run time, a flattened X, negative
dims) and put_along_axis (Reduce assign, add, mul/multiply, Include_self both
ways, an Index smaller than Input) with their gradients, see tools/op_caselib.py.

Assign cases write each element at most once: which of several values written
to one element gets the gradient is not a documented fact of Paddle.

  python3 tools/op_cases_repeat_put.py   # rewrites test/fixtures/op_cases/repeat_put/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "repeat_put"


def repeat_case(name, shape, repeats, axis, dtype="float32"):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-3, high=3)
        if isinstance(repeats, list):
            repeats = p.input("repeats", [len(repeats)], dtype="int64", value=np.asarray(repeats), grad=False)
        p.case(name, [paddle.repeat_interleave(x, repeats, axis=axis)], notes=f"{shape} {dtype} axis {axis}")


def put_case(name, shape, index, axis, reduce, include_self=True, dtype="float32"):
    index = np.asarray(index)
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=0.5, high=2)
        idx = p.input("index", list(index.shape), dtype="int64", value=index, grad=False)
        v = p.input("value", list(index.shape), dtype=dtype, low=0.5, high=2)
        y = paddle.put_along_axis(x, idx, v, axis, reduce=reduce, include_self=include_self)
        p.case(name, [y], notes=f"Reduce {reduce} include_self {include_self} axis {axis}")


def main():
    oc.start(__file__, FAMILY)
    repeat_case("repeat_scalar_dim1", [2, 3, 2], 3, 1)
    repeat_case("repeat_flat", [2, 3], 2, None)
    repeat_case("repeat_tensor_dim0", [3, 4], [2, 0, 3], 0)
    repeat_case("repeat_tensor_negdim_fp64", [2, 4], [1, 3, 0, 2], -1, dtype="float64")
    repeat_case("repeat_int32", [2, 2], 2, 0, dtype="int32")
    put_case("put_assign_axis1", [3, 4], [[3, 0], [1, 2], [0, 1]], 1, "assign")
    put_case("put_assign_axis0_fp64", [3, 4], [[2, 0, 1, 2], [0, 1, 0, 1]], 0, "assign", dtype="float64")
    put_case("put_add_repeated", [3, 4], [[1, 1, 3], [0, 0, 0], [2, 3, 2]], 1, "add")
    put_case("put_add_no_self", [3, 4], [[1, 1], [0, 3], [2, 2]], 1, "add", include_self=False)
    put_case("put_mul_repeated", [2, 5], [[4, 4, 1], [0, 2, 0]], 1, "mul")
    put_case("put_multiply_axis0", [3, 3], [[2, 1, 0], [2, 0, 0]], 0, "multiply")
    put_case("put_mul_no_self", [2, 4], [[1, 1], [3, 0]], 1, "mul", include_self=False)
    oc.finish()


if __name__ == "__main__":
    main()
