#!/usr/bin/env python3
"""Per-op Paddle references for elementwise_max / min / fmax / fmin (see
tools/op_caselib.py): forward, X@GRAD and Y@GRAD with ties (X == Y at some
elements, where each op's tie rule decides which operand takes the
gradient), broadcast Y (trailing; at an axis forward only, as Paddle's gradient
ignores the axis), NaN operands for fmax/fmin
(a NaN loses to a number), fp64 and integer inputs.

  python3 tools/op_cases_minmax.py   # rewrites test/fixtures/op_cases/minmax/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
from paddle.base.layer_helper import LayerHelper

FAMILY = "minmax"


def raw(op, x, y, axis):
    """An elementwise op with an axis the paddle.* API never sets."""
    helper = LayerHelper(op)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type=op, inputs={"X": x, "Y": y}, outputs={"Out": out}, attrs={"axis": axis})
    return out


def tied(shape, dtype="float32", nan_x=False, nan_y=False, seed=0):
    """X and Y uniform in [-1, 1) but equal at every third element; optionally
    a NaN in X and another (elsewhere) in Y."""
    r = np.random.default_rng(seed)
    x = r.uniform(-1, 1, size=shape)
    y = r.uniform(-1, 1, size=shape)
    y.flat[::3] = x.flat[::3]
    if nan_x:
        x.flat[1] = np.nan
    if nan_y:
        y.flat[2] = np.nan
    return x.astype(dtype), y.astype(dtype)


def pair(name, fn, xv, yv, dtype="float32", grads=True, notes=""):
    with oc.program(FAMILY) as p:
        x = p.input("x", list(xv.shape), dtype=dtype, value=xv)
        y = p.input("y", list(yv.shape), dtype=dtype, value=yv)
        p.case(name, [fn(x, y)], grads=grads and dtype != "int32", notes=notes)


def main():
    oc.start(__file__, FAMILY)
    for op, fn in [("max", paddle.maximum), ("min", paddle.minimum), ("fmax", paddle.fmax), ("fmin", paddle.fmin)]:
        pair(f"{op}_ties", fn, *tied([3, 4], seed=1))
        r = np.random.default_rng(2)
        pair(f"{op}_broadcast_trailing", fn, r.uniform(-1, 1, [2, 3, 4]), r.uniform(-1, 1, [4]))
    pair("fmax_nan", paddle.fmax, *tied([2, 5], nan_x=True, nan_y=True, seed=3))
    pair("fmin_nan", paddle.fmin, *tied([2, 5], nan_x=True, nan_y=True, seed=4))
    r = np.random.default_rng(5)
    xv, yv = r.uniform(-1, 1, [2, 3, 4]), r.uniform(-1, 1, [3])
    # Forward only: Paddle 2.6.2's max/min grad kernels ignore axis and fail on these shapes.
    nograd = "forward only: Paddle's grad kernel ignores axis"
    pair("max_axis1", lambda x, y: raw("elementwise_max", x, y, 1), xv, yv, grads=False, notes=nograd)
    pair("min_axis1", lambda x, y: raw("elementwise_min", x, y, 1), xv, yv, grads=False, notes=nograd)
    pair("min_fp64_ties", paddle.minimum, *tied([4, 3], dtype="float64", seed=6), dtype="float64")
    xi, yi = r.integers(-5, 5, [3, 4]), r.integers(-5, 5, [3, 4])
    pair("min_int32", paddle.minimum, xi, yi, dtype="int32")
    pair("max_int32", paddle.maximum, xi, yi, dtype="int32")
    oc.finish()


if __name__ == "__main__":
    main()
