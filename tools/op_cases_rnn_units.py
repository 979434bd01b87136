#!/usr/bin/env python3
"""Per-op Paddle references for Fluid 1.x's one-step RNN cell (see tools/op_caselib.py), the cell of its seq2seq
and attention-OCR decoders: gru_unit (fluid.layers.gru_unit), forward and gradient w.r.t. Input, HiddenPrev, Weight
and Bias: Paddle's and origin_mode's update rules, every activation code (0 identity, 1 sigmoid, 2 tanh, 3 relu), no
bias, float64. Gate and ResetHiddenPrev are recorded forward only (Paddle's gradient takes Hidden@GRAD alone).
(lstm_unit, its sibling, is not registered in Paddle 2.6.2 any more: no reference can be made for it.)

Paddle 2.6's Python API no longer writes the op, so it is appended with block.append_op (slot and attribute
names from its OpProto).

  python3 tools/op_cases_rnn_units.py   # rewrites test/fixtures/op_cases/rnn_units/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from fixturelib import append_op as append  # noqa: E402

FAMILY = "rnn_units"


def gru_case(name, batch, d, activation=2, gate_activation=1, origin_mode=False, bias=True, dtype="float32", notes=""):
    with oc.program(FAMILY) as p:
        inputs = {"Input": p.input("input", [batch, 3 * d], dtype),
                  "HiddenPrev": p.input("hidden_prev", [batch, d], dtype),
                  "Weight": p.input("weight", [d, 3 * d], dtype, low=-0.7, high=0.7)}
        if bias:
            inputs["Bias"] = p.input("bias", [1, 3 * d], dtype, low=-0.3, high=0.3)
        o = append("gru_unit", inputs, {"Gate": dtype, "ResetHiddenPrev": dtype, "Hidden": dtype},
                   {"activation": activation, "gate_activation": gate_activation, "origin_mode": origin_mode})
        tol = {"rtol": 1e-10, "atol": 1e-12} if dtype == "float64" else {}
        p.case(name, [o["Hidden"]], extra=[o["Gate"], o["ResetHiddenPrev"]], notes=notes, **tol)


def main():
    oc.start(__file__, FAMILY)
    gru_case("gru_tanh_sigmoid", 3, 4, notes="Paddle's defaults: h = (1 - u) * h_prev + u * c")
    gru_case("gru_origin_mode", 3, 4, origin_mode=True, notes="h = u * h_prev + (1 - u) * c")
    gru_case("gru_relu_candidate_no_bias", 2, 5, activation=3, bias=False)
    gru_case("gru_identity_gates", 2, 3, activation=0, gate_activation=2, notes="identity candidate, tanh gates")
    gru_case("gru_relu_gates_float64", 4, 3, gate_activation=3, dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
