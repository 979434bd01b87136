#!/usr/bin/env python3
"""References for fluidc's OWN backward pass through the unary ops of
kernels/activation_unary.h and kernels/unary_math.h: test/fixtures/op_autodiff/unary_*/
(the recipe of tools/op_autodiff_indexing.py: a forward-only program on
parameters, Paddle's gradients of sum(out * wt)).

The op cases (tools/op_cases_unary.py) run Paddle's own grad ops; these check
the grad ops fluidc's autodiff writes from the op table's rules (which slots
each grad op reads: X, or Out for selu and expm1), and that round and trunc,
which have no rule, contribute zero as Paddle's round_grad/trunc_grad do.
Parameters are uniform in [-1, 1), scaled into each function's domain.

  python3 tools/op_autodiff_unary.py   # rewrites test/fixtures/op_autodiff/unary_*/
"""

import paddle
import paddle.nn.functional as F

from op_autodiff_indexing import case  # noqa: E402  (imports fixturelib first: threads/env before paddle)


def activations(param, feed):
    p = param("p", [3, 5])
    return (F.selu(F.hardtanh(p * 2.0, -1.0, 1.5)) + F.celu(p, 0.7) + F.softshrink(p, 0.2) + F.hardshrink(p, 0.3)
            + F.tanhshrink(p) + F.thresholded_relu(p, 0.1) + F.log_sigmoid(p) + F.softsign(p))


def math(param, feed):
    p = param("p", [3, 5])
    inside = p * 0.8  # (-0.8, 0.8): asin, acos, atanh
    positive = p * 0.4 + 1.0  # (0.6, 1.4): the logarithms
    return (paddle.expm1(p) + paddle.log1p(p * 0.4) + paddle.log2(positive) + paddle.log10(positive)
            + paddle.asin(inside) + paddle.acos(inside) + paddle.atan(p) + paddle.tan(p) + paddle.sinh(p)
            + paddle.cosh(p) + paddle.asinh(p) + paddle.acosh(positive + 1.0) + paddle.atanh(inside)
            + paddle.round(p * 3.0) + paddle.trunc(p * 3.0))


def main():
    case("unary_activations", activations)
    case("unary_math", math)


if __name__ == "__main__":
    main()
