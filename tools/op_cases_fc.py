#!/usr/bin/env python3
"""Per-op Paddle references for fc (see tools/op_caselib.py), the fused product + bias (+ relu) that Paddle
Inference's fc_fuse_pass writes into the programs it saves optimised: 2-D and 3-D inputs (in_num_col_dims 1 and 2),
with and without Bias, activation_type '' and 'relu', float64. Forward only: Paddle has no gradient for it.

Paddle 2.6's Python API does not write the op, so it is appended with block.append_op (slot and attribute names
from its OpProto).

  python3 tools/op_cases_fc.py   # rewrites test/fixtures/op_cases/fc/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from fixturelib import append_op as append  # noqa: E402

FAMILY = "fc"


def case(name, in_shape, n, in_num_col_dims=1, act="", bias=True, dtype="float32"):
    k = 1
    for d in in_shape[in_num_col_dims:]:
        k *= d
    with oc.program(FAMILY) as p:
        inputs = {"Input": p.input("input", in_shape, dtype, grad=False),
                  "W": p.input("w", [k, n], dtype, grad=False)}
        if bias:
            inputs["Bias"] = p.input("bias", [n], dtype, grad=False)
        o = append("fc", inputs, {"Out": dtype}, {"in_num_col_dims": in_num_col_dims, "activation_type": act})
        tol = {"rtol": 1e-10, "atol": 1e-12} if dtype == "float64" else {}
        p.case(name, [o["Out"]], grads=False, **tol)


def main():
    oc.start(__file__, FAMILY)
    case("bias", [4, 6], 5)
    case("rank3_relu", [2, 3, 8], 7, in_num_col_dims=2, act="relu")
    case("flatten_no_bias", [3, 2, 4], 6)
    case("relu_float64", [5, 4], 3, act="relu", dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
