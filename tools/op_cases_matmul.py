#!/usr/bin/env python3
"""Per-op Paddle references for the matmul family (see tools/op_caselib.py):
bmm, and matmul_v2 with batch dims that broadcast ([B,1,M,K] x [K,N],
[B,M,K] x [1,K,N], [2,1,M,K] x [3,K,N], 1-D operands, transposes), forward and gradient.

  python3 tools/op_cases_matmul.py   # rewrites test/fixtures/op_cases/matmul/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "matmul"


def two(name, xs, ys, fn, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", xs)
        y = p.input("y", ys)
        p.case(name, [fn(x, y)], **kw)


def main():
    oc.start(__file__, FAMILY)
    two("bmm", [3, 2, 4], [3, 4, 5], paddle.bmm)
    two("matmul_v2_b1mk_kn", [2, 1, 3, 4], [4, 5], paddle.matmul)
    two("matmul_v2_bmk_1kn", [3, 2, 4], [1, 4, 5], paddle.matmul)
    # Paddle 2.6's CPU matmul_v2_grad fails on this broadcast (an Eigen rank
    # check), so only the forward is compared; fluidc's gradient for it is
    # checked by finite differences in test/unit/kernels/matmul_test.cc.
    two("matmul_v2_21mk_3kn", [2, 1, 3, 4], [3, 4, 2], paddle.matmul, grads=False,
        notes="forward only: Paddle 2.6's matmul_v2_grad fails on this broadcast")
    two("matmul_v2_mk_bkn", [3, 4], [2, 4, 5], paddle.matmul)
    two("matmul_v2_vec_batch", [4], [2, 4, 3], paddle.matmul)
    two("matmul_v2_batch_vec", [2, 3, 4], [4], paddle.matmul)
    two("matmul_v2_trans_bcast", [3, 4, 3], [1, 5, 4],
        lambda x, y: paddle.matmul(x, y, transpose_x=True, transpose_y=True))
    oc.finish()


if __name__ == "__main__":
    main()
