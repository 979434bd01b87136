#!/usr/bin/env python3
"""Per-op Paddle references for inverse (paddle.linalg.inv), determinant
(det), slogdeterminant (slogdet) and matrix_power with their gradients, see
tools/op_caselib.py: single matrices and batches, fp32 and fp64, positive,
zero and negative powers.

Inputs are random matrices plus a multiple of the identity, so each is well
away from singular and float32 results stay within the tolerance. Paddle
2.6.2's static infer-shape declares det's and slogdet's outputs with the
input's dims, which the loss's multiply cannot broadcast: their cases
declare the batch dim -1, weigh the output flattened to [-1] (so the case
library probes its real length) and record the output itself too.

  python3 tools/op_cases_linalg_lu.py   # rewrites test/fixtures/op_cases/linalg_lu/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "linalg_lu"


def regular(name, shape, shift):
    """Uniform [-1, 1) entries plus `shift` on the diagonal (sign alternating per matrix)."""
    r = np.random.default_rng(sum(map(ord, name)))
    a = r.uniform(-1, 1, size=shape)
    n = shape[-1]
    flat = a.reshape(-1, n, n)
    for m in range(flat.shape[0]):
        flat[m] += (shift if m % 2 == 0 else -shift) * np.eye(n)
    return flat.reshape(shape)


def unary_case(name, fn, shape, dtype="float32", shift=3.0, dynamic_batch=False, **kw):
    with oc.program(FAMILY) as p:
        declared = [-1] + list(shape[1:]) if dynamic_batch else None
        x = p.input("x", shape, dtype=dtype, value=regular(name, shape, shift), declared=declared)
        out = fn(x, **kw)
        if dynamic_batch:
            p.case(name, [paddle.reshape(out, [-1])], extra=[out], notes=f"{fn.__name__} of {dtype} {shape} {kw}")
        else:
            p.case(name, [out], notes=f"{fn.__name__} of {dtype} {shape} {kw}")


def main():
    oc.start(__file__, FAMILY)
    unary_case("inverse_matrix", paddle.linalg.inv, [4, 4])
    unary_case("inverse_batch_fp64", paddle.linalg.inv, [2, 3, 3, 3], dtype="float64")
    unary_case("det_matrix", paddle.linalg.det, [1, 3, 3], dynamic_batch=True)
    unary_case("det_batch_fp64", paddle.linalg.det, [3, 4, 4], dtype="float64", dynamic_batch=True)
    unary_case("slogdet_batch", paddle.linalg.slogdet, [3, 3, 3], dynamic_batch=True)
    unary_case("slogdet_batch_fp64", paddle.linalg.slogdet, [2, 5, 5], dtype="float64", shift=2.0,
               dynamic_batch=True)
    unary_case("matrix_power_3", paddle.linalg.matrix_power, [2, 3, 3], shift=1.0, n=3)
    unary_case("matrix_power_0", paddle.linalg.matrix_power, [3, 3], n=0)
    unary_case("matrix_power_1_fp64", paddle.linalg.matrix_power, [2, 4, 4], dtype="float64", n=1)
    unary_case("matrix_power_minus_2", paddle.linalg.matrix_power, [2, 3, 3], n=-2)
    unary_case("matrix_power_minus_1_fp64", paddle.linalg.matrix_power, [4, 4], dtype="float64", n=-1)
    oc.finish()


if __name__ == "__main__":
    main()
