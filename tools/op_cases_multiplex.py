#!/usr/bin/env python3
"""Per-op Paddle references for multiplex (paddle.multiplex), see tools/op_caselib.py: forward and each
X@GRAD, two and three inputs, an input no row picks (its gradient is all zeros), rows of rank 3, fp64.
Ids are int32: Paddle 2.6.2's kernel reads them as int32 whatever their dtype (int64 ids fail there;
fluidc takes both).

  python3 tools/op_cases_multiplex.py   # rewrites test/fixtures/op_cases/multiplex/
"""

import numpy as np
import paddle

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)

FAMILY = "multiplex"


def case(name, shape, picks, n, id_dtype="int32", dtype="float32"):
    with oc.program(FAMILY) as p:
        xs = [p.input(f"x{k}", shape, dtype=dtype) for k in range(n)]
        ids = p.input("ids", [shape[0], 1], dtype=id_dtype, grad=False,
                      value=np.asarray(picks).reshape(shape[0], 1))
        p.case(name, [paddle.multiplex(xs, ids)],
               notes=f"{n} inputs {shape} {dtype}, {id_dtype} ids {picks}")


def main():
    oc.start(__file__, FAMILY)
    case("two_inputs", [4, 3], [1, 0, 0, 1], 2)
    case("three_inputs_one_unpicked", [5, 2], [2, 0, 2, 2, 0], 3)
    case("rank3_rows", [3, 2, 4], [0, 1, 1], 2)
    case("fp64", [3, 4], [1, 1, 0], 2, dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
