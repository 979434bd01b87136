#!/usr/bin/env python3
"""Per-op Paddle references for the reshape and transpose families (see tools/op_caselib.py):
flatten_contiguous_range, squeeze2, unsqueeze2, transpose2, forward and gradient.

  python3 tools/op_cases_reshape.py   # rewrites test/fixtures/op_cases/reshape/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "reshape"


def one(name, shape, fn, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape)
        p.case(name, [fn(x)], **kw)


def main():
    oc.start(__file__, FAMILY)
    one("flatten_1_to_end", [2, 3, 4, 5], lambda x: paddle.flatten(x, 1, -1))
    one("flatten_middle", [2, 3, 4, 5], lambda x: paddle.flatten(x, 1, 2))
    one("flatten_all", [2, 3, 4], lambda x: paddle.flatten(x))
    one("squeeze_listed", [3, 1, 4, 1], lambda x: paddle.squeeze(x, axis=[1, -1]))
    one("squeeze_all", [1, 3, 1, 4], lambda x: paddle.squeeze(x))
    one("squeeze_not_one_kept", [3, 1, 4], lambda x: paddle.squeeze(x, axis=[0, 1]))
    one("unsqueeze_front_back", [3, 4], lambda x: paddle.unsqueeze(x, axis=[0, -1]))
    one("unsqueeze_order", [3, 4], lambda x: paddle.unsqueeze(x, axis=[2, 0, 1]))
    one("transpose_2d", [3, 5], lambda x: paddle.transpose(x, [1, 0]))
    one("transpose_nchw_nhwc", [2, 3, 4, 5], lambda x: paddle.transpose(x, [0, 2, 3, 1]))
    one("transpose_5d", [2, 3, 2, 4, 3], lambda x: paddle.transpose(x, [4, 2, 0, 3, 1]))
    with oc.program(FAMILY) as p:  # integer data moves the same way (no gradient)
        x = p.input("x", [2, 3, 4], dtype="int64", low=-100, high=100)
        p.case("transpose_int64", [paddle.transpose(paddle.flatten(paddle.unsqueeze(x, [1]), 2, 3), [2, 0, 1])])
    oc.finish()


if __name__ == "__main__":
    main()
