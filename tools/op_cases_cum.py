#!/usr/bin/env python3
"""Per-op Paddle references for cummax, cummin and logcumsumexp (paddle.cummax / cummin /
logcumsumexp; see tools/op_caselib.py). cummax/cummin: ties (Paddle moves the index to the later
position), a negative axis, int32 indices, float64, int32 and int64 values, with gradients for the
floats. logcumsumexp: each axis, exclusive, reverse, both, flatten, float64, large values.

  python3 tools/op_cases_cum.py   # rewrites test/fixtures/op_cases/cum/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
from paddle.base.layer_helper import LayerHelper

FAMILY = "cum"
TIES = [[1, 3, 3, 2, 3, 0, 3], [5, 5, 1, 5, 0, 7, 7], [-1, -1, -1, 2, 2, -3, 2]]


def logcumsumexp(x, axis=None, flatten=False, exclusive=False, reverse=False):
    """paddle.logcumsumexp does not expose exclusive or reverse (the op has them): write the op itself."""
    helper = LayerHelper("logcumsumexp")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="logcumsumexp", inputs={"X": x}, outputs={"Out": out},
                     attrs={"axis": -1 if axis is None else axis, "flatten": flatten, "exclusive": exclusive,
                            "reverse": reverse})
    return out


def main():
    oc.start(__file__, FAMILY)
    for fn in ["cummax", "cummin"]:
        op = getattr(paddle, fn)
        with oc.program(FAMILY) as p:
            x = p.input("x", [3, 7], value=TIES)
            out, idx = op(x, axis=-1)
            p.case(f"{fn}_ties", [out, idx])
        with oc.program(FAMILY) as p:
            x = p.input("x", [4, 3, 2], dtype="float64", low=-2, high=2)
            out, idx = op(x, axis=-3, dtype="int32")
            p.case(f"{fn}_axis0_fp64", [out, idx], rtol=1e-12, atol=1e-12)
        for dtype in ["int32", "int64"]:
            with oc.program(FAMILY) as p:
                x = p.input("x", [3, 7], dtype=dtype, value=TIES, grad=False)
                out, idx = op(x, axis=1)
                p.case(f"{fn}_{dtype}", [out, idx], grads=False)
    for name, shape, dtype, kw in [("axis1", [3, 5], "float32", dict(axis=1)),
                                   ("axis0", [4, 3], "float32", dict(axis=0)),
                                   ("neg_axis_fp64", [2, 3, 4], "float64", dict(axis=-2)),
                                   ("flatten", [2, 3, 2], "float32", dict(flatten=True)),
                                   ("exclusive", [3, 4], "float32", dict(axis=1, exclusive=True)),
                                   ("reverse", [3, 4], "float32", dict(axis=1, reverse=True)),
                                   ("exclusive_reverse", [4, 3], "float64", dict(axis=0, exclusive=True,
                                                                                  reverse=True))]:
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, dtype=dtype, low=-3, high=3)
            tol = dict(rtol=1e-10, atol=1e-12) if dtype == "float64" else {}
            p.case(f"logcumsumexp_{name}", [logcumsumexp(x, **kw)], **tol)
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 4], value=[[500, 600, 700, 650], [-800, -900, -700, -1000]])
        p.case("logcumsumexp_large", [logcumsumexp(x, axis=1)])
    oc.finish()


if __name__ == "__main__":
    main()
