#!/usr/bin/env python3
"""Per-op Paddle references for index_put (paddle.index_put), see
tools/op_caselib.py: forward, x@GRAD and value@GRAD, with int64 and int32
indices (negative ones, index shapes that broadcast), accumulate (repeated
places add up), a bool mask, and values broadcast over the indexed places and
the dims left unindexed.

  python3 tools/op_cases_index_put.py   # rewrites test/fixtures/op_cases/index_put/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "index_put"


def case(name, xshape, idx, vshape, accumulate=False, notes=""):
    with oc.program(FAMILY) as p:
        x = p.input("x", xshape)
        ind = [p.input(f"i{k}", list(np.shape(v)), dtype=np.asarray(v).dtype.name, grad=False, value=np.asarray(v))
               for k, v in enumerate(idx)]
        v = p.input("v", vshape)
        p.case(name, [paddle.index_put(x, tuple(ind), v, accumulate=accumulate)], notes=notes)


def main():
    oc.start(__file__, FAMILY)
    case("two_indices", [4, 5], [np.array([0, 3, 2]), np.array([1, 4, 0])], [3])
    case("accumulate_repeats", [4, 5], [np.array([1, 1, 2, 1]), np.array([2, 2, 0, 2])], [4], accumulate=True,
         notes="place (1, 2) three times")
    case("negative_broadcast_int32", [4, 5], [np.array([[-1], [0]], dtype=np.int32), np.array([1, -2, 3], dtype=np.int32)],
         [3], notes="indices [2, 1] and [3] broadcast to [2, 3]; value [3] to that")
    case("rows_value_broadcast", [4, 3, 2], [np.array([2, 0])], [1, 2], notes="places [2, 3, 2]")
    case("bool_mask", [3, 4], [np.array([[True, False, True, False], [False] * 4, [True, True, False, True]])],
         [1], notes="mask over both dims, scalar-like value")
    case("bool_mask_rows_accumulate", [3, 2, 2], [np.array([True, False, True])], [2, 2], accumulate=True)
    oc.finish()


if __name__ == "__main__":
    main()
