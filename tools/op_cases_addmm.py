#!/usr/bin/env python3
"""Per-op Paddle references for addmm (paddle.addmm; see tools/op_caselib.py): Input of Out's shape,
a row [1, N], a column [M, 1], 1-D [N], one value [1], default and non-default Alpha/Beta, float64;
gradients for Input (summed over its broadcast dims), X and Y.

  python3 tools/op_cases_addmm.py   # rewrites test/fixtures/op_cases/addmm/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "addmm"


def main():
    oc.start(__file__, FAMILY)
    m, k, n = 3, 5, 4
    for name, ishape, dtype, kw in [("full", [m, n], "float32", {}),
                                    ("row", [1, n], "float32", dict(alpha=2.0, beta=0.5)),
                                    ("column", [m, 1], "float32", dict(alpha=-1.0, beta=3.0)),
                                    ("vector", [n], "float32", dict(beta=0.0)),
                                    ("one", [1], "float32", dict(alpha=0.25, beta=-2.0)),
                                    ("fp64", [1, 1], "float64", dict(alpha=1.5, beta=0.75))]:
        with oc.program(FAMILY) as p:
            inp = p.input("input", ishape, dtype=dtype)
            x = p.input("x", [m, k], dtype=dtype)
            y = p.input("y", [k, n], dtype=dtype)
            tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else {}
            p.case(name, [paddle.addmm(inp, x, y, **kw)], **tol)
    oc.finish()


if __name__ == "__main__":
    main()
