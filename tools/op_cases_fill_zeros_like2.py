#!/usr/bin/env python3
"""Per-op Paddle references for fill_zeros_like2 (the op Paddle's backward writes for the gradients a control
flow block does not produce; no Python API, so it is appended as the backward writes it; see
tools/op_caselib.py): zeros of X's dims in the `dtype` attribute's type (float32, float64, int64), from
X of another dtype.

  python3 tools/op_cases_fill_zeros_like2.py   # rewrites test/fixtures/op_cases/fill_zeros_like2/
"""

from paddle.base.layer_helper import LayerHelper

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)

FAMILY = "fill_zeros_like2"
CODES = {"float32": 5, "float64": 6, "int64": 3}  # Paddle's VarType codes


def main():
    oc.start(__file__, FAMILY)
    for x_dtype, dtype in [("float64", "float32"), ("float32", "float64"), ("float32", "int64")]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [3, 2, 4], dtype=x_dtype, grad=False)
            helper = LayerHelper("fill_zeros_like2")
            out = helper.create_variable_for_type_inference(dtype)
            helper.append_op(type="fill_zeros_like2", inputs={"X": x}, outputs={"Out": out},
                             attrs={"dtype": CODES[dtype]})
            p.case(f"{dtype}_from_{x_dtype}", [out], grads=False, notes=f"X {x_dtype} [3, 2, 4], dtype {dtype}")
    oc.finish()


if __name__ == "__main__":
    main()
