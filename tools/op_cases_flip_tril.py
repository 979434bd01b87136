#!/usr/bin/env python3
"""Per-op Paddle references for flip and tril_triu (see tools/op_caselib.py):
forward and X@GRAD (flip's gradient is a flip op; tril_triu's is tril_triu_grad)
over single and several axes, negative axes, diagonals above and below the main
one, batched matrices and an integer input.

  python3 tools/op_cases_flip_tril.py   # rewrites test/fixtures/op_cases/flip_tril/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "flip_tril"


def one(name, shape, fn, dtype="float32"):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-5, high=5)
        p.case(name, [fn(x)], grads=dtype == "float32")


def main():
    oc.start(__file__, FAMILY)
    one("flip_axis0", [3, 4], lambda x: paddle.flip(x, [0]))
    one("flip_last", [2, 3, 5], lambda x: paddle.flip(x, [-1]))
    one("flip_two_axes", [2, 3, 4], lambda x: paddle.flip(x, [0, 2]))
    one("flip_int64", [3, 4], lambda x: paddle.flip(x, [1]), dtype="int64")
    one("tril", [4, 5], paddle.tril)
    one("tril_diag1", [4, 5], lambda x: paddle.tril(x, 1))
    one("triu_diag_neg1_batched", [2, 4, 3], lambda x: paddle.triu(x, -1))
    one("triu_diag2", [5, 4], lambda x: paddle.triu(x, 2))
    one("triu_int32", [3, 3], paddle.triu, dtype="int32")
    oc.finish()


if __name__ == "__main__":
    main()
