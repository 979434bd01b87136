#!/usr/bin/env python3
"""Per-op Paddle references for the loss family (see tools/op_caselib.py):
label_smooth with the uniform prior and with a PriorDist.

Paddle 2.6's static backward emits no label_smooth_grad (paddle.static.gradients
returns nothing for X), so these cases compare the forward only; the gradient
kernel is checked by finite differences in test/unit/kernels/loss_test.cc.

  python3 tools/op_cases_loss.py   # rewrites test/fixtures/op_cases/loss/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F

FAMILY = "loss"


def main():
    oc.start(__file__, FAMILY)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 5], low=0, high=1)
        p.case("label_smooth_uniform", [F.label_smooth(x, epsilon=0.1)], grads=False)
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 4], low=0, high=1)
        prior = p.input("prior", [1, 4], low=0, high=0.5, grad=False)
        p.case("label_smooth_prior", [F.label_smooth(x, prior_dist=prior, epsilon=0.25)], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
