#!/usr/bin/env python3
"""Per-op Paddle references for gru_unit (see tools/op_caselib.py): Fluid 1.x's one GRU step per batch row, the cell
of its seq2seq and attention-OCR decoders (fluid.layers.gru_unit), forward and gradient w.r.t. Input, HiddenPrev,
Weight and Bias: Paddle's and origin_mode's update rules, every activation code (0 identity, 1 sigmoid, 2 tanh,
3 relu), no bias, float64. Gate and ResetHiddenPrev are recorded forward only (Paddle's gradient takes
Hidden@GRAD alone).

Paddle 2.6's Python API no longer writes the op, so it is appended with block.append_op (slot and attribute
names from its OpProto).

  python3 tools/op_cases_gru_unit.py   # rewrites test/fixtures/op_cases/gru_unit/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from fixturelib import append_op as append  # noqa: E402

FAMILY = "gru_unit"


def case(name, batch, d, activation=2, gate_activation=1, origin_mode=False, bias=True, dtype="float32", notes=""):
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
    case("tanh_sigmoid", 3, 4, notes="Paddle's defaults: h = (1 - u) * h_prev + u * c")
    case("origin_mode", 3, 4, origin_mode=True, notes="h = u * h_prev + (1 - u) * c")
    case("relu_candidate_no_bias", 2, 5, activation=3, bias=False)
    case("identity_gates", 2, 3, activation=0, gate_activation=2, notes="identity candidate, tanh gates")
    case("relu_gates_float64", 4, 3, gate_activation=3, dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
