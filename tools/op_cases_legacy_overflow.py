#!/usr/bin/env python3
"""Per-op Paddle references for Fluid 1.x's isnan and isinf (fluid.layers.has_nan and has_inf; Paddle 2.6
keeps the ops but no Python API, so they are appended as Fluid wrote them; see tools/op_caselib.py;
its isfinite op is gone): each reduces the whole of X to one bool of shape [1] (any NaN, any
infinity). Inputs with and without a NaN and an infinity, fp32 and fp64.

  python3 tools/op_cases_legacy_overflow.py   # rewrites test/fixtures/op_cases/legacy_overflow/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "legacy_overflow"


def append(op_type, x):
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference("bool")
    helper.append_op(type=op_type, inputs={"X": x}, outputs={"Out": out})
    return out


def main():
    oc.start(__file__, FAMILY)
    rng = np.random.default_rng(31)
    plain = rng.uniform(-3, 3, size=[3, 5])
    with_nan = plain.copy()
    with_nan[1, 2] = np.nan
    with_inf = plain.copy()
    with_inf[2, 4] = -np.inf
    # Paddle registers no isfinite op any more: has_nan and has_inf only.
    for label, value in [("plain", plain), ("nan", with_nan), ("inf", with_inf)]:
        for dtype in ["float32", "float64"]:
            with oc.program(FAMILY) as p:
                x = p.input("x", [3, 5], dtype=dtype, grad=False, value=value)
                outs = [append(op, x) for op in ("isnan", "isinf")]
                p.case(f"{label}_{dtype}", outs, grads=False,
                       notes=f"isnan, isinf and isfinite of a {dtype} X {'with a ' + label if label != 'plain' else 'of finite values'}")
    oc.finish()


if __name__ == "__main__":
    main()
