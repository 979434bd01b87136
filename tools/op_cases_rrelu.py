#!/usr/bin/env python3
"""Per-op Paddle references for rrelu (paddle.nn.functional.rrelu) in test mode
(training=False: the slope (lower + upper) / 2 below zero), see tools/op_caselib.py:
forward and X@GRAD (rrelu_grad reads Noise), with exact zeros in X, default and
custom bounds, fp32 and fp64. Training mode draws Paddle's own random slopes,
which no reference can match: test/unit/kernels/rrelu_test.cc checks its properties.

  python3 tools/op_cases_rrelu.py   # rewrites test/fixtures/op_cases/rrelu/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle.nn.functional as F

FAMILY = "rrelu"


def case(name, shape, dtype="float32", **kw):
    rng = np.random.default_rng(len(name))
    value = rng.uniform(-2, 2, size=shape)
    value.flat[::7] = 0.0  # both sides of the kink, and the kink itself
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, value=value)
        p.case(name, [F.rrelu(x, training=False, **kw)], notes=f"test mode {kw or 'default bounds'}")


def main():
    oc.start(__file__, FAMILY)
    case("rrelu_test_default", [3, 4, 5])
    case("rrelu_test_bounds", [2, 6], lower=0.05, upper=0.9)
    case("rrelu_test_fp64", [4, 5], dtype="float64", lower=0.2, upper=0.4)
    oc.finish()


if __name__ == "__main__":
    main()
