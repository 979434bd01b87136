#!/usr/bin/env python3
"""Per-op Paddle references for diag_embed (paddle.diag_embed; see tools/op_caselib.py): the default
last two dims, positive and negative offsets, dims in front and swapped, float64, int32 and int64.
Paddle gives diag_embed no gradient. (paddle.diag_embed refuses |dim| > Input's rank, so a 1-D
Input names its dims rather than taking the defaults -2 and -1.)

  python3 tools/op_cases_diag_embed.py   # rewrites test/fixtures/op_cases/diag_embed/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle.nn.functional as F

FAMILY = "diag_embed"


def main():
    oc.start(__file__, FAMILY)
    for name, shape, dtype, kw in [("default", [2, 3], "float32", {}),
                                   ("offset_pos", [4], "float32", dict(offset=2, dim1=0, dim2=1)),
                                   ("offset_neg_front", [2, 3], "float64", dict(offset=-1, dim1=0, dim2=1)),
                                   ("swapped", [3, 2], "float32", dict(offset=1, dim1=2, dim2=0)),
                                   ("int32", [2, 2, 3], "int32", dict(dim1=1, dim2=-1)),
                                   ("int64", [3], "int64", dict(offset=-2, dim1=1, dim2=0))]:
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, dtype=dtype, low=-9, high=9, grad=False)
            p.case(name, [F.diag_embed(x, **kw)], grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
