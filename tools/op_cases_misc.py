#!/usr/bin/env python3
"""Per-op Paddle references for ops added together outside a larger family
(see tools/op_caselib.py): roll (shifts attribute, ShiftsTensor, flat),
logsumexp (one axis, several with keepdim, reduce_all), reduce_amax /
reduce_amin (ties, whose gradient Paddle splits evenly), dot (1-D, 2-D), unbind
(its gradient is a stack), meshgrid, linspace (float and integer, run-time Num),
cumprod (with zeros), kthvalue (Out and Indices), scatter_nd_add (repeated
index tuples), lerp (scalar and broadcast tensor weights), forward and input
gradients.

  python3 tools/op_cases_misc.py   # rewrites test/fixtures/op_cases/misc/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "misc"


def one(name, shape, fn, dtype="float32", low=-2, high=2, value=None, notes=""):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=low, high=high, value=value)
        p.case(name, [fn(x)], grads=dtype in ("float32", "float64"), notes=notes)


# Values with ties in every row (a group of amax / amin), 0.5 apart otherwise.
TIES = np.array([[[1.0, 2.5], [2.5, 0.0], [-1.0, 2.5]],
                 [[0.5, 0.5], [0.5, -2.0], [3.0, -2.0]]])


def main():
    oc.start(__file__, FAMILY)
    one("roll_axes", [2, 3, 4], lambda x: paddle.roll(x, [1, -2], [0, 2]))
    one("roll_flat", [3, 4], lambda x: paddle.roll(x, 5))
    one("roll_repeated_axis_int64", [5], lambda x: paddle.roll(x, [2, 4], [0, 0]), dtype="int64", low=0, high=50)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4])
        s = p.input("shifts", [1], dtype="int64", grad=False, value=np.array([-3]))
        p.case("roll_shifts_tensor", [paddle.roll(x, s, 1)])

    one("logsumexp_axis1", [3, 4, 2], lambda x: paddle.logsumexp(x, axis=1))
    one("logsumexp_axes_keepdim", [3, 4, 2], lambda x: paddle.logsumexp(x, axis=[0, 2], keepdim=True))
    one("logsumexp_all", [3, 5], paddle.logsumexp)
    one("logsumexp_large", [2, 3], lambda x: paddle.logsumexp(x, axis=-1), low=80, high=90,
        notes="exp(80) overflows float32: the maximum must be taken out first")
    one("logsumexp_fp64", [3, 4], lambda x: paddle.logsumexp(x, axis=0), dtype="float64")

    one("amax_ties_axes_keepdim", [2, 3, 2], lambda x: paddle.amax(x, axis=[0, 2], keepdim=True), value=TIES)
    one("amax_ties_axis1", [2, 3, 2], lambda x: paddle.amax(x, axis=1), value=TIES)
    one("amax_all", [2, 3, 2], paddle.amax, value=TIES)
    one("amin_ties_axis_last", [2, 3, 2], lambda x: paddle.amin(x, axis=-1), value=TIES)
    one("amin_int64", [3, 4], lambda x: paddle.amin(x, axis=0), dtype="int64", low=-5, high=5)

    with oc.program(FAMILY) as p:
        x, y = p.input("x", [6]), p.input("y", [6])
        p.case("dot_1d", [paddle.dot(x, y)])
    with oc.program(FAMILY) as p:
        x, y = p.input("x", [4, 5], dtype="float64"), p.input("y", [4, 5], dtype="float64")
        p.case("dot_2d_fp64", [paddle.dot(x, y)])
    one("dot_int32", [5], lambda x: paddle.dot(x, x), dtype="int32", low=-9, high=9)

    one("unbind_axis1", [2, 3, 4], lambda x: paddle.stack(paddle.unbind(x, axis=1)[::-1], axis=0),
        notes="the outputs restacked in reverse so each slice's gradient lands in its own place")
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 2])
        a, b, c = paddle.unbind(x, axis=0)
        p.case("unbind_axis0_outputs", [a, b, c])
    with oc.program(FAMILY) as p:
        xs = [p.input("x", [3]), p.input("y", [4]), p.input("z", [2])]
        p.case("meshgrid_three", list(paddle.meshgrid(*xs)))
    with oc.program(FAMILY) as p:
        x, y = p.input("x", [3], dtype="float64"), p.input("y", [1], dtype="float64")
        p.case("meshgrid_two_fp64", list(paddle.meshgrid(x, y)))
    with oc.program(FAMILY) as p:
        num = p.input("num", [1], dtype="int32", grad=False, value=np.array([7]))
        out = paddle.linspace(-1.3, 2.1, num, dtype="float32")
        p.case("linspace_run_time_num", [paddle.reshape(out, [7])], grads=False)
    # op_case.sh feeds at least one input: Start comes from a fed tensor here.
    with oc.program(FAMILY) as p:
        start = p.input("start", [1], dtype="int32", grad=False, value=np.array([0]))
        p.case("linspace_int32", [paddle.linspace(start, 10, 4, dtype="int32")], grads=False)
    with oc.program(FAMILY) as p:
        stop = p.input("stop", [1], dtype="float64", grad=False, value=np.array([5.0]))
        p.case("linspace_fp64_one", [paddle.linspace(3, stop, 1, dtype="float64")], grads=False)

    one("cumprod_dim1", [3, 4, 2], lambda x: paddle.cumprod(x, dim=1), low=-1.5, high=1.5)
    one("cumprod_dim_last_zeros", [2, 5], lambda x: paddle.cumprod(x, dim=-1),
        value=np.array([[2.0, 0.0, 3.0, 0.5, -1.0], [0.0, 1.5, 0.0, 2.0, 1.0]]),
        notes="zeros: the gradient must not divide by X")
    one("cumprod_int64", [3, 3], lambda x: paddle.cumprod(x, dim=0), dtype="int64", low=-3, high=4)

    # Distinct values (a permutation): which of two equal values kthvalue
    # returns is unspecified in Paddle. Indices (int64, though the program
    # declares it float32) is recorded outside the loss.
    perm = np.random.default_rng(3).permutation(24).reshape(2, 3, 4) * 0.25 - 3.0
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 4], value=perm)
        out, idx = paddle.kthvalue(x, 2, axis=1)
        p.case("kthvalue_axis1", [out], extra=[idx])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 4], value=perm)
        out, idx = paddle.kthvalue(x, 4, keepdim=True)
        p.case("kthvalue_last_keepdim", [out], extra=[idx])
    with oc.program(FAMILY) as p:
        x = p.input("x", [5, 3], dtype="float64")
        out, idx = paddle.kthvalue(x, 5, axis=0)
        p.case("kthvalue_largest_fp64", [out], extra=[idx])

    with oc.program(FAMILY) as p:
        x, upd = p.input("x", [4, 3]), p.input("updates", [3, 3])
        index = p.input("index", [3, 1], dtype="int64", grad=False, value=np.array([[2], [0], [2]]))
        p.case("scatter_nd_add_rows_repeated", [paddle.scatter_nd_add(x, index, upd)])
    with oc.program(FAMILY) as p:
        x, upd = p.input("x", [3, 4, 2]), p.input("updates", [2, 2], dtype="float32")
        index = p.input("index", [2, 2], dtype="int32", grad=False, value=np.array([[1, 3], [0, 0]]))
        p.case("scatter_nd_add_two_coords", [paddle.scatter_nd_add(x, index, upd)])

    with oc.program(FAMILY) as p:
        x, y = p.input("x", [3, 4]), p.input("y", [3, 4])
        p.case("lerp_scalar_weight", [paddle.lerp(x, y, 0.3)])
    with oc.program(FAMILY) as p:
        x, y = p.input("x", [2, 3, 4]), p.input("y", [3, 1])
        w = p.input("w", [4], grad=False, low=0, high=1)
        p.case("lerp_broadcast", [paddle.lerp(x, y, w)])
    oc.finish()


if __name__ == "__main__":
    main()
