#!/usr/bin/env python3
"""Per-op Paddle references for argsort and take_along_axis (see
tools/op_caselib.py): forward values and indices and the float input's
gradient; argsort ascending/descending along the last and inner axes,
integer input, and rows with many ties longer than 16 elements, where
Paddle's std::sort does not keep ties in index order; take_along_axis along
each axis with the API's broadcasting of Index (an expand_v2 in the program)
and repeated indices (their gradients add up).

  python3 tools/op_cases_index_sort.py   # rewrites test/fixtures/op_cases/index_sort/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "index_sort"


def main():
    oc.start(__file__, FAMILY)
    for name, shape, axis, desc in [("argsort_last", [3, 7], -1, False), ("argsort_axis0_desc", [5, 4], 0, True),
                                    ("argsort_mid_desc", [2, 6, 3], 1, True)]:
        with oc.program(FAMILY) as p:
            x = p.input("x", shape)
            out = paddle.sort(x, axis=axis, descending=desc)
            ind = paddle.argsort(x, axis=axis, descending=desc)
            p.case(name, [out], extra=[ind])
    with oc.program(FAMILY) as p:
        # Values from {0, .., 4}: rows of 40 with many ties; Paddle's tie order is std::sort's.
        v = np.random.default_rng(16).integers(0, 5, size=(3, 40))
        x = p.input("x", [3, 40], grad=False, value=v)
        xi = p.input("xi", [40, 3], dtype="int64", grad=False, value=v.T)
        p.case("argsort_ties_long_rows", [paddle.argsort(x, axis=1), paddle.argsort(x, axis=1, descending=True),
                                          paddle.argsort(xi, axis=0, descending=True)], grads=False)

    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 5])
        i = p.input("i", [3, 4], dtype="int64", grad=False, value=np.array([[4, 0, 0, 2], [1, 1, 1, 3],
                                                                            [0, 4, 2, 2]]))
        p.case("take_along_axis1", [paddle.take_along_axis(x, i, 1)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 3, 2])
        i = p.input("i", [2, 1, 2], dtype="int32", grad=False, value=np.array([[[3, 0]], [[3, 3]]]))
        p.case("take_along_axis0_broadcast", [paddle.take_along_axis(x, i, 0)],
               notes="Index [2,1,2] is broadcast to [2,3,2] by the API (expand_v2)")
    oc.finish()


if __name__ == "__main__":
    main()
