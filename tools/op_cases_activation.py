#!/usr/bin/env python3
"""Per-op Paddle references for the activation family (see tools/op_caselib.py):
forward output and input gradient of each activation on random inputs.

Input ranges straddle every kink or threshold of the op (relu6's 0 and 6,
hard_swish's -3 and 3, softplus's switch to the identity, clip's bounds), so
both sides of each are compared; log/sqrt/rsqrt/reciprocal get positive inputs.

  python3 tools/op_cases_activation.py   # rewrites test/fixtures/op_cases/activation/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F

FAMILY = "activation"


def unary(name, fn, low=-1.0, high=1.0, shape=(3, 5), grads=True, notes=""):
    """One case: fn applied to one random input in [low, high)."""
    with oc.program(FAMILY) as p:
        x = p.input("x", list(shape), low=low, high=high)
        p.case(name, [fn(x)], grads=grads, notes=notes)


def main():
    oc.start(__file__, FAMILY)
    unary("tanh", paddle.tanh)
    unary("softmax_axis1", lambda x: F.softmax(x, axis=1), -3, 3, (2, 3, 4))
    unary("softmax_axis0", lambda x: F.softmax(x, axis=0), -3, 3, (2, 3, 4))
    unary("softmax_last", lambda x: F.softmax(x, axis=-1), -3, 3, (2, 3, 4))
    for axis in (-1, 0, 1):
        unary(f"log_softmax_axis{axis}", lambda x, a=axis: F.log_softmax(x, axis=a), -3, 3, (2, 3, 4))

    unary("relu6", F.relu6, -2, 8)
    unary("leaky_relu", F.leaky_relu, -2, 2)  # Paddle's API default slope 0.01
    unary("leaky_relu_alpha0.3", lambda x: F.leaky_relu(x, 0.3), -2, 2)
    unary("hard_swish", F.hardswish, -5, 5)
    unary("hard_sigmoid", F.hardsigmoid, -5, 5)  # slope 1/6, offset 0.5
    unary("hard_sigmoid_slope0.2", lambda x: F.hardsigmoid(x, slope=0.2, offset=0.4), -5, 5)
    unary("swish", F.swish, -4, 4)
    unary("silu", F.silu, -4, 4)
    unary("elu", F.elu, -3, 3)
    unary("elu_alpha0.5", lambda x: F.elu(x, alpha=0.5), -3, 3)
    unary("softplus", F.softplus, -5, 5)
    unary("softplus_beta2_threshold3", lambda x: F.softplus(x, beta=2, threshold=3), -3, 3)
    unary("mish", F.mish, -5, 5)
    unary("exp", paddle.exp, -3, 3)
    unary("log", paddle.log, 0.1, 5)
    unary("sqrt", paddle.sqrt, 0.1, 5)
    unary("rsqrt", paddle.rsqrt, 0.1, 5)
    unary("reciprocal", paddle.reciprocal, 0.2, 3)
    unary("pow3", lambda x: paddle.pow(x, 3.0), -2, 2)
    unary("pow2.5", lambda x: paddle.pow(x, 2.5), 0.1, 3)
    unary("abs", paddle.abs, -1, 1)
    unary("clip", lambda x: paddle.clip(x, -0.5, 0.5), -1, 1)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 5])
        mn = p.input("min", [1], grad=False, value=np.array([-0.3]))
        mx = p.input("max", [1], grad=False, value=np.array([0.6]))
        p.case("clip_tensors", [paddle.clip(x, mn, mx)])
    unary("erf", paddle.erf, -3, 3)
    unary("sin", paddle.sin, -4, 4)
    unary("cos", paddle.cos, -4, 4)
    unary("gelu", F.gelu, -4, 4)
    unary("gelu_approximate", lambda x: F.gelu(x, approximate=True), -4, 4)
    unary("floor", paddle.floor, -3, 3, notes="Paddle's floor_grad: zeros")
    unary("ceil", paddle.ceil, -3, 3, notes="Paddle's ceil_grad: zeros")
    unary("sign", paddle.sign, -1, 1, grads=False, notes="forward only: Paddle's gradient of sign is zero")
    oc.finish()


if __name__ == "__main__":
    main()
