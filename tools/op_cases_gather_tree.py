#!/usr/bin/env python3
"""Per-op Paddle references for gather_tree (paddle.nn.functional.gather_tree, the last step of
PaddleNLP's beam-search decoders; see tools/op_caselib.py): int64 and int32, one step, one beam.

  python3 tools/op_cases_gather_tree.py   # rewrites test/fixtures/op_cases/gather_tree/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle.nn.functional as F

FAMILY = "gather_tree"


def main():
    oc.start(__file__, FAMILY)
    for name, (steps, batch, beam), dtype in [("int64", (5, 3, 4), "int64"), ("int32", (4, 2, 3), "int32"),
                                              ("one_step", (1, 2, 3), "int64"), ("one_beam", (6, 2, 1), "int64")]:
        with oc.program(FAMILY) as p:
            ids = p.input("ids", [steps, batch, beam], dtype=dtype, low=0, high=50, grad=False)
            parents = p.input("parents", [steps, batch, beam], dtype=dtype, low=0, high=beam, grad=False)
            p.case(name, [F.gather_tree(ids, parents)], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
