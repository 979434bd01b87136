#!/usr/bin/env python3
"""Per-op Paddle references for mode (paddle.mode: the most frequent value
along an axis and its position) and its gradient, see tools/op_caselib.py:
small integer values so counts tie (the smallest value wins, at its last
position), the default last axis, axis 0 and 1 with keepdim, fp64 and int64.

  python3 tools/op_cases_mode.py   # rewrites test/fixtures/op_cases/mode/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "mode"


def mode_case(name, shape, dtype="float32", **kw):
    r = np.random.default_rng(sum(map(ord, name)))
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, value=r.integers(0, 4, size=shape))
        out, idx = paddle.mode(x, **kw)
        if dtype in ("float32", "float64"):
            p.case(name, [out], extra=[idx], notes=f"mode of {dtype} {shape} {kw}")
        else:
            p.case(name, [out, idx], notes=f"mode of {dtype} {shape} {kw}")


def main():
    oc.start(__file__, FAMILY)
    mode_case("last_axis", [4, 7])
    mode_case("axis0_keepdim", [6, 3, 2], axis=0, keepdim=True)
    mode_case("axis1_fp64", [2, 9, 3], dtype="float64", axis=1)
    mode_case("int64_negative_axis", [3, 5], dtype="int64", axis=-2)
    mode_case("one_element_lines", [3, 1], axis=1)
    oc.finish()


if __name__ == "__main__":
    main()
