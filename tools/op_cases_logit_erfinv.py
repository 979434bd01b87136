#!/usr/bin/env python3
"""Per-op Paddle references for logit (paddle.logit) and erfinv (paddle.erfinv); see
tools/op_caselib.py. logit: the default eps=0 (NaN outside [0, 1]), a clipping eps (values past
both bounds, where the gradient is zero), float64. erfinv: float32 and float64 inside (-1, 1) with
gradients, and the ends (+-1, beyond, 0) without.

  python3 tools/op_cases_logit_erfinv.py   # rewrites test/fixtures/op_cases/logit_erfinv/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "logit_erfinv"


def main():
    oc.start(__file__, FAMILY)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 6], low=0.02, high=0.98)
        p.case("logit_fp32", [paddle.logit(x)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 5], dtype="float64", low=0.01, high=0.99)
        p.case("logit_fp64", [paddle.logit(x)], rtol=1e-12, atol=1e-12)
    with oc.program(FAMILY) as p:
        # 0.05 and 0.95 clip to eps = 0.1 and 0.9 (gradient 0 there); -0.2 and 1.5 too.
        x = p.input("x", [8], value=[0.05, 0.2, 0.5, 0.7, 0.95, -0.2, 1.5, 0.3])
        p.case("logit_eps", [paddle.logit(x, eps=0.1)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [6], value=[-0.5, 0.0, 0.25, 1.0, 2.0, 0.75], grad=False)
        p.case("logit_outside", [paddle.logit(x)], grads=False)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 7], low=-0.97, high=0.97)
        p.case("erfinv_fp32", [paddle.erfinv(x)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 5], dtype="float64", low=-0.999, high=0.999)
        p.case("erfinv_fp64", [paddle.erfinv(x)], rtol=1e-10, atol=1e-12,
               notes="Paddle's float64 erfinv (Eigen's ndtri) and fluidc's (Newton on erf) round apart")
    with oc.program(FAMILY) as p:
        x = p.input("x", [7], value=[-1.0, 1.0, 0.0, 1.5, -2.0, 0.999999, -1e-7], grad=False)
        p.case("erfinv_ends", [paddle.erfinv(x)], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
