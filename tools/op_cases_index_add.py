#!/usr/bin/env python3
"""Per-op Paddle references for index_add (paddle.index_add), see tools/op_caselib.py: forward, X@GRAD and
AddValue@GRAD, along the first, a middle and the last (negative) axis, repeated indices (they add up),
int32 and int64 Index, fp64, and int64 elements (forward only).

  python3 tools/op_cases_index_add.py   # rewrites test/fixtures/op_cases/index_add/
"""

import numpy as np
import paddle

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)

FAMILY = "index_add"


def case(name, shape, axis, picks, index_dtype="int64", dtype="float32", grads=True):
    a = axis % len(shape)
    vshape = list(shape)
    vshape[a] = len(picks)
    with oc.program(FAMILY) as p:
        low, high = (-20, 20) if dtype == "int64" else (-1, 1)
        x = p.input("x", shape, dtype=dtype, low=low, high=high, grad=grads)
        v = p.input("v", vshape, dtype=dtype, low=low, high=high, grad=grads)
        i = p.input("index", [len(picks)], dtype=index_dtype, grad=False, value=np.asarray(picks))
        p.case(name, [paddle.index_add(x, i, axis, v)], grads=grads,
               notes=f"X {shape} {dtype}, axis {axis}, {index_dtype} Index {picks}")


def main():
    oc.start(__file__, FAMILY)
    case("rows_repeated", [4, 3], 0, [3, 0, 3])
    case("middle_axis_int32", [2, 5, 3], 1, [4, 1], index_dtype="int32")
    case("last_axis_negative", [3, 2, 4], -1, [0, 2, 2, 1])
    case("fp64", [3, 4], 1, [1, 3], dtype="float64")
    case("int64_elements", [3, 4], 0, [2, 2], dtype="int64", grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
