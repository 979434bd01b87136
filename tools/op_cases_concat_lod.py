#!/usr/bin/env python3
"""Per-op Paddle references for concat's LoD rule (see tools/op_caselib.py): along axis 0, when every input
is a LoD tensor, Out's LoD is theirs one after another (offsets renumbered; two levels too); along any
other axis Out takes X[0]'s LoD (none when X[0] is dense). Forward, output LoD and gradients.

  python3 tools/op_cases_concat_lod.py   # rewrites test/fixtures/op_cases/concat_lod/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "concat_lod"


def main():
    oc.start(__file__, FAMILY)

    with oc.program(FAMILY) as p:
        a = p.input("a", [6, 3], lod=[[1, 5, 0]])
        b = p.input("b", [4, 3], lod=[[2, 0, 2]])
        p.case("axis0", [paddle.concat([a, b], axis=0)])
    with oc.program(FAMILY) as p:
        a = p.input("a", [6, 2], lod=[[2, 1], [1, 3, 2]])
        b = p.input("b", [3, 2], lod=[[1], [3]])
        c = p.input("c", [2, 2], lod=[[1, 1], [0, 2]])
        p.case("axis0_two_levels", [paddle.concat([a, b, c], axis=0)])
    with oc.program(FAMILY) as p:
        a = p.input("a", [6, 3], lod=[[1, 5, 0]])
        b = p.input("b", [6, 2], lod=[[3, 3]])
        p.case("axis1", [paddle.concat([a, b], axis=1)])
    with oc.program(FAMILY) as p:
        a = p.input("a", [6, 3])
        b = p.input("b", [6, 2], lod=[[3, 3]])
        p.case("axis1_dense_first", [paddle.concat([a, b], axis=-1)])

    oc.finish()


if __name__ == "__main__":
    main()
