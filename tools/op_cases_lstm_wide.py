#!/usr/bin/env python3
"""Per-op Paddle references for the fused lstm (Fluid's dynamic_lstm) at hidden sizes the sequence family's
cases (2 units) do not reach (see tools/op_caselib.py): 8 units in float64 and 12 in float32, forward and
gradients on a ragged batch with an empty sequence. Not 8 or 16 units in float32: there Paddle 2.6.2's own
lstm_grad is wrong (tools/check_paddle_lstm_grad.py), so it is no reference; float64 at 8 units goes
through Paddle's correct path and pins fluidc's gradient at that width.

  python3 tools/op_cases_lstm_wide.py   # rewrites test/fixtures/op_cases/lstm_wide/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "lstm_wide"


def main():
    oc.start(__file__, FAMILY)
    for name, d, dtype, lod in [("lstm_d8_fp64", 8, "float64", [[3, 0, 5, 1]]),
                                ("lstm_d12_fp32", 12, "float32", [[3, 0, 5, 1]])]:
        rows = sum(lod[0])
        with oc.program(FAMILY) as p:
            x = p.input("x", [rows, 4 * d], dtype=dtype, lod=lod)
            w = p.input("w", [d, 4 * d], dtype=dtype)
            b = p.input("b", [1, 7 * d], dtype=dtype)
            helper = LayerHelper("lstm")
            outs = {k: helper.create_variable_for_type_inference(dtype)
                    for k in ["Hidden", "Cell", "BatchGate", "BatchCellPreAct"]}
            helper.append_op(type="lstm", inputs={"Input": x, "Weight": w, "Bias": b}, outputs=outs,
                             attrs={"use_peepholes": True, "is_reverse": False, "gate_activation": "sigmoid",
                                    "cell_activation": "tanh", "candidate_activation": "tanh"})
            tol = dict(rtol=1e-10, atol=1e-12) if dtype == "float64" else {}
            p.case(name, [outs["Hidden"]], **tol)
    oc.finish()


if __name__ == "__main__":
    main()
