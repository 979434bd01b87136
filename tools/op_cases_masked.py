#!/usr/bin/env python3
"""Per-op Paddle references for the ops whose output length the data decides,
see tools/op_caselib.py: where_index (paddle.nonzero) and masked_select with
masked_select_grad: every Condition dtype, 0-D and empty selections, the
broadcasting forms Paddle 2.6.2 accepts (X or Mask repeated, either rank lower),
fp64 and ints; and chains where the run-time-sized output feeds later ops
(nonzero -> gather_nd, masked_select -> tanh -> scale) with gradients through them.

  python3 tools/op_cases_masked.py   # rewrites test/fixtures/op_cases/masked/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "masked"


def mask_value(name, shape, p_true=0.5):
    m = np.random.default_rng(len(name) * 7 + len(shape)).uniform(size=shape) < p_true
    if p_true > 0:
        m.flat[0], m.flat[-1] = True, False  # never all false or all true by chance
    return m


def nonzero_case(name, shape, dtype, zeros_every=3):
    rng = np.random.default_rng(len(name))
    if dtype == "bool":
        value = mask_value(name, shape)
    else:
        value = rng.integers(-3, 4, size=shape).astype(dtype)
        value.flat[::zeros_every] = 0
    with oc.program(FAMILY) as p:
        c = p.input("c", shape, dtype=dtype, value=value, grad=False)
        p.case(name, [paddle.nonzero(c)], notes=f"nonzero of {dtype} {shape}")


def select_case(name, xshape, mshape, dtype="float32", p_true=0.5, grads=True):
    with oc.program(FAMILY) as p:
        x = p.input("x", xshape, dtype=dtype, low=-5, high=5)
        m = p.input("m", mshape, dtype="bool", value=mask_value(name, mshape, p_true), grad=False)
        p.case(name, [paddle.masked_select(x, m)], notes=f"X {xshape} {dtype}, Mask {mshape}", grads=grads)


def main():
    oc.start(__file__, FAMILY)
    nonzero_case("nonzero_bool_3d", [2, 3, 4], "bool")
    nonzero_case("nonzero_fp32_2d", [4, 5], "float32")
    nonzero_case("nonzero_int64_1d", [9], "int64")
    nonzero_case("nonzero_int32_all_zero", [2, 3], "int32", zeros_every=1)
    select_case("select_same_shape", [3, 4, 5], [3, 4, 5])
    select_case("select_mask_broadcast", [3, 4], [4])
    select_case("select_x_broadcast", [3, 1], [3, 4])
    select_case("select_both_broadcast", [2, 1, 4], [3, 1], dtype="float64")
    # Paddle 2.6.2 cannot sum an empty Y for the loss: the forward only.
    select_case("select_none", [2, 3], [2, 3], p_true=0.0, grads=False)
    select_case("select_int64", [4, 3], [4, 3], dtype="int64")
    # A run-time-sized output feeding later ops, gradients through them.
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4, 2], low=-1, high=1)
        c = p.input("c", [3, 4], dtype="bool", value=mask_value("chain_nonzero_gather", [3, 4]), grad=False)
        picked = paddle.gather_nd(x, paddle.nonzero(c))
        p.case("chain_nonzero_gather", [paddle.tanh(picked)], notes="nonzero -> gather_nd -> tanh")
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 6], low=-1, high=1)
        y = paddle.masked_select(x, x > 0.1)
        p.case("chain_select_tanh", [paddle.scale(paddle.tanh(y), 3.0, 0.5)],
               notes="masked_select(x, x > 0.1) -> tanh -> scale")
    oc.finish()


if __name__ == "__main__":
    main()
