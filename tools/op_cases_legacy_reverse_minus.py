#!/usr/bin/env python3
"""Per-op Paddle references for Fluid 1.x's reverse and minus (fluid.layers.reverse and the minus op
of Fluid programs; Paddle 2.6 keeps both ops but no Python API, so the ops are appended as Fluid
wrote them; see tools/op_caselib.py). reverse: one axis, two with a negative one, float64, int64,
with its gradient (a reverse of Out@GRAD). minus: float32 (the only dtype Paddle registers it
for), whose gradients Paddle writes as scale ops.

  python3 tools/op_cases_legacy_reverse_minus.py   # rewrites test/fixtures/op_cases/legacy_reverse_minus/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "legacy_reverse_minus"


def append(op_type, inputs, attrs, dtype):
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(type=op_type, inputs=inputs, outputs={"Out": out}, attrs=attrs)
    return out


def main():
    oc.start(__file__, FAMILY)
    for name, shape, dtype, axis in [("reverse_axis1", [3, 4], "float32", [1]),
                                     ("reverse_two_axes", [2, 3, 4], "float32", [0, -1]),
                                     ("reverse_fp64", [4, 2], "float64", [-2])]:
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, dtype=dtype)
            tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else {}
            p.case(name, [append("reverse", {"X": x}, {"axis": axis}, x.dtype)], **tol)
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 5], dtype="int64", low=-50, high=50, grad=False)
        p.case("reverse_int64", [append("reverse", {"X": x}, {"axis": [0, 1]}, x.dtype)], grads=False)
    # Paddle 2.6.2 registers minus's CPU kernel for float32 only.
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4])
        y = p.input("y", [3, 4])
        p.case("minus_fp32", [append("minus", {"X": x, "Y": y}, {}, x.dtype)])
    oc.finish()


if __name__ == "__main__":
    main()
