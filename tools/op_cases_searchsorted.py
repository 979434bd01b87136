#!/usr/bin/env python3
"""Per-op Paddle references for searchsorted (paddle.searchsorted; see tools/op_caselib.py): a 1-D
sorted sequence with repeated entries, left and right, int32 output, a sorted row per leading index,
int64 and int32 operands, integer values in a float sequence, and values that hit the ends, lie
beyond them, or are infinite or NaN (Paddle sends those past the end whatever their sign).

  python3 tools/op_cases_searchsorted.py   # rewrites test/fixtures/op_cases/searchsorted/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "searchsorted"
SEQ = [-2.0, 0.5, 0.5, 0.5, 1.0, 3.0, 3.0, 7.5]
VALS = [[-3.0, -2.0, 0.5, 0.7], [3.0, 7.5, 9.0, 0.0], [float("inf"), float("-inf"), float("nan"), 1.0]]


def main():
    oc.start(__file__, FAMILY)
    for name, kw in [("left", {}), ("right", dict(right=True)), ("right_int32", dict(right=True, out_int32=True))]:
        with oc.program(FAMILY) as p:
            s = p.input("s", [8], value=SEQ, grad=False)
            v = p.input("v", [3, 4], value=VALS, grad=False)
            p.case(name, [paddle.searchsorted(s, v, **kw)], grads=False)
    with oc.program(FAMILY) as p:
        s = p.input("s", [2, 3, 5], dtype="float64", value=[[[0, 1, 2, 3, 4], [1, 1, 1, 1, 1], [-5, -3, 0, 3, 5]],
                                                            [[10, 20, 30, 40, 50], [0, 0, 1, 1, 2], [2, 4, 6, 8, 9]]],
                    grad=False)
        v = p.input("v", [2, 3, 4], dtype="float64", low=-6, high=12, grad=False)
        p.case("rows_fp64", [paddle.searchsorted(s, v)], grads=False)
    for dtype in ["int32", "int64"]:
        with oc.program(FAMILY) as p:
            s = p.input("s", [2, 6], dtype=dtype, value=[[1, 3, 3, 5, 8, 13], [-4, -4, 0, 2, 2, 9]], grad=False)
            v = p.input("v", [2, 5], dtype=dtype, value=[[0, 3, 4, 13, 20], [-4, 2, 1, 9, -9]], grad=False)
            p.case(f"rows_{dtype}", [paddle.searchsorted(s, v, right=dtype == "int32")], grads=False)
    with oc.program(FAMILY) as p:
        s = p.input("s", [8], value=SEQ, grad=False)
        v = p.input("v", [5], dtype="int64", value=[-3, 0, 1, 3, 8], grad=False)
        p.case("mixed_dtypes", [paddle.searchsorted(s, v)], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
