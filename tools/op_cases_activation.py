#!/usr/bin/env python3
"""Per-op Paddle references for the activation family (see tools/op_caselib.py):
forward output and input gradient of each activation on random inputs.

  python3 tools/op_cases_activation.py   # rewrites test/fixtures/op_cases/activation/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F

FAMILY = "activation"


def main():
    oc.start(__file__, FAMILY)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 5])
        p.case("tanh", [paddle.tanh(x)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 4], low=-3, high=3)
        p.case("softmax_axis1", [F.softmax(x, axis=1)])
    oc.finish()


if __name__ == "__main__":
    main()
