#!/usr/bin/env python3
"""Per-op Paddle references for the unary ops of kernels/activation_unary.h and
kernels/unary_math.h (see tools/op_caselib.py): forward output and input
gradient of each, on random inputs.

Input ranges straddle every kink (brelu's t_min and t_max, the shrinks'
+-threshold, thresholded_relu's threshold, celu's and selu's 0), and keep to
each function's domain (log2 of positives, acosh above 1, asin inside +-1).
Attributes are given both at Paddle's Python defaults and at other values;
hardshrink also with a negative threshold (every element passes). round and
trunc record Paddle's zero round_grad/trunc_grad; isnan/isinf/isfinite get
NaN, +-inf and finite values (and an integer input).

  cd tools && python3 op_cases_unary.py   # rewrites test/fixtures/op_cases/unary/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F

FAMILY = "unary"


def unary(name, fn, low=-1.0, high=1.0, shape=(3, 5), dtype="float32", notes=""):
    """One case: fn applied to one random input in [low, high)."""
    with oc.program(FAMILY) as p:
        x = p.input("x", list(shape), dtype=dtype, low=low, high=high)
        p.case(name, [fn(x)], notes=notes)


def main():
    oc.start(__file__, FAMILY)
    unary("hardtanh", F.hardtanh, -2, 2, notes="brelu with t_min -1, t_max 1")
    unary("hardtanh_-0.5_2", lambda x: F.hardtanh(x, -0.5, 2.0), -1.5, 3)
    unary("log_sigmoid", F.log_sigmoid, -6, 6)
    unary("selu", F.selu, -3, 3)
    unary("selu_scale1.5_alpha2", lambda x: F.selu(x, scale=1.5, alpha=2.0), -3, 3)
    unary("selu_fp64", F.selu, -3, 3, dtype="float64")
    unary("celu", F.celu, -3, 3)
    unary("celu_alpha0.5", lambda x: F.celu(x, alpha=0.5), -3, 3)
    unary("celu_alpha-0.5", lambda x: F.celu(x, alpha=-0.5), -2, 2)
    unary("softsign", F.softsign, -4, 4)
    unary("softshrink", F.softshrink, -1.5, 1.5)
    unary("softshrink_0.2", lambda x: F.softshrink(x, 0.2), -1, 1)
    unary("hardshrink", F.hardshrink, -1.5, 1.5)
    unary("hardshrink_0.2", lambda x: F.hardshrink(x, 0.2), -1, 1)
    unary("hardshrink_-0.2", lambda x: F.hardshrink(x, -0.2), -1, 1)
    unary("tanhshrink", F.tanhshrink, -3, 3)
    unary("thresholded_relu", F.thresholded_relu, -2, 3)
    unary("thresholded_relu_0.3", lambda x: F.thresholded_relu(x, 0.3), -1, 1)

    unary("log1p", paddle.log1p, -0.5, 3)
    unary("log2", paddle.log2, 0.1, 5)
    unary("log10", paddle.log10, 0.1, 5)
    unary("expm1", paddle.expm1, -2, 2)
    unary("expm1_fp64", paddle.expm1, -2, 2, dtype="float64")
    unary("asin", paddle.asin, -0.9, 0.9)
    unary("acos", paddle.acos, -0.9, 0.9)
    unary("atan", paddle.atan, -3, 3)
    unary("tan", paddle.tan, -1.2, 1.2)
    unary("sinh", paddle.sinh, -2, 2)
    unary("cosh", paddle.cosh, -2, 2)
    unary("asinh", paddle.asinh, -3, 3)
    unary("acosh", paddle.acosh, 1.1, 4)
    unary("atanh", paddle.atanh, -0.9, 0.9)
    unary("atanh_fp64", paddle.atanh, -0.9, 0.9, dtype="float64")

    halves = np.array([[-2.5, -1.5, -0.5, 0.5, 1.5], [2.5, 0.49999997, -0.49999997, 3.7, -3.7]])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 5], value=halves)
        p.case("round", [paddle.round(x)], notes="halves away from zero; Paddle's round_grad: zeros")
    unary("trunc", paddle.trunc, -3, 3, notes="Paddle's trunc_grad: zeros")
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3], dtype="int32", grad=False, value=np.array([[-3, 0, 7], [1, -1, 2]]))
        p.case("trunc_int32", [paddle.trunc(x)], grads=False)

    special = np.array([[np.nan, np.inf, -np.inf, 0.0], [-1.5, 3e38, -np.nan, 1e-40]])
    for dt in ("float32", "float64"):
        with oc.program(FAMILY) as p:
            x = p.input("x", [2, 4], dtype=dt, grad=False, value=special)
            p.case(f"isnan_isinf_isfinite_{dt}", [paddle.isnan(x), paddle.isinf(x), paddle.isfinite(x)],
                   grads=False)
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3], dtype="int64", grad=False, value=np.array([[-3, 0, 7], [1, -1, 2]]))
        p.case("isnan_isinf_isfinite_int64", [paddle.isnan(x), paddle.isinf(x), paddle.isfinite(x)], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
