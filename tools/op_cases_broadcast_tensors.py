#!/usr/bin/env python3
"""Per-op Paddle references for broadcast_tensors (paddle.broadcast_tensors), see tools/op_caselib.py: forward
and each X@GRAD (the loss reads every output), two and three inputs, missing leading dims, size-1 dims on
both sides, fp64, and int64 inputs (forward only; Paddle's API wants one dtype for all).

  python3 tools/op_cases_broadcast_tensors.py   # rewrites test/fixtures/op_cases/broadcast_tensors/
"""

import paddle

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)

FAMILY = "broadcast_tensors"


def case(name, shapes, dtypes=None, grads=True):
    dtypes = dtypes or ["float32"] * len(shapes)
    with oc.program(FAMILY) as p:
        xs = [p.input(f"x{k}", s, dtype=d, grad=grads and d != "int64", low=-5 if d == "int64" else -1,
                      high=5 if d == "int64" else 1) for k, (s, d) in enumerate(zip(shapes, dtypes))]
        p.case(name, paddle.broadcast_tensors(xs), grads=grads, notes=f"inputs {list(zip(shapes, dtypes))}")


def main():
    oc.start(__file__, FAMILY)
    case("two_rows_columns", [[3, 1], [1, 4]])
    case("three_missing_leading", [[2, 3, 4], [4], [3, 1]])
    case("fp64", [[2, 1, 3], [2, 4, 1]], ["float64", "float64"])
    case("int64", [[2, 3], [3]], ["int64", "int64"], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
