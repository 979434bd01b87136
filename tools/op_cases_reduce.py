#!/usr/bin/env python3
"""Per-op Paddle references for the reduce family (see tools/op_caselib.py):
reduce_max / reduce_min (including tied extrema, where Paddle gives every tied
element the full gradient), reduce_prod, reduce_any / reduce_all and p_norm
(p = 2, 3, 1.5, inf, -inf, 0; keepdim; asvector), forward and gradient.

  python3 tools/op_cases_reduce.py   # rewrites test/fixtures/op_cases/reduce/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "reduce"


def one(name, shape, fn, low=-1.0, high=1.0, value=None, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, low=low, high=high, value=value)
        out = fn(x)
        p.case(name, list(out) if isinstance(out, (list, tuple)) else [out], **kw)


def main():
    oc.start(__file__, FAMILY)
    one("max_axis1", [3, 4, 5], lambda x: paddle.max(x, axis=1))
    one("max_all_keepdim", [3, 4], lambda x: paddle.max(x, keepdim=True))
    one("min_axes", [3, 4, 5], lambda x: paddle.min(x, axis=[0, 2]))
    # Ties: small integers, so several elements share each row's extremum.
    ties = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [-1, 5, 0, 5]], dtype="float32")
    one("max_ties", [3, 4], lambda x: paddle.max(x, axis=1), value=ties)
    one("min_ties", [3, 4], lambda x: paddle.min(x, axis=0), value=ties)
    one("prod_axis0", [3, 4], lambda x: paddle.prod(x, axis=0), low=0.5, high=1.5)
    one("prod_keepdim_neg", [2, 3, 4], lambda x: paddle.prod(x, axis=-1, keepdim=True) * 1.0)
    one("any_all", [3, 4], lambda x: [paddle.any(x > 0, axis=1), paddle.all(x > -0.5, axis=0), paddle.all(x > -2)],
        grads=False)
    one("p_norm_2", [3, 4], lambda x: paddle.linalg.norm(x, p=2, axis=1))
    one("p_norm_3_keepdim", [3, 4, 2], lambda x: paddle.linalg.norm(x, p=3, axis=0, keepdim=True))
    one("p_norm_1.5", [3, 5], lambda x: paddle.linalg.norm(x, p=1.5, axis=-1))
    one("p_norm_inf", [4, 5], lambda x: paddle.linalg.norm(x, p=float("inf"), axis=1))
    one("p_norm_neg_inf", [4, 5], lambda x: paddle.linalg.norm(x, p=float("-inf"), axis=0))
    one("p_norm_0", [3, 4], lambda x: paddle.linalg.norm(x, p=0, axis=1), grads=False)
    one("p_norm_asvector", [3, 4], lambda x: paddle.linalg.norm(x, p=3, axis=None))
    oc.finish()


if __name__ == "__main__":
    main()
