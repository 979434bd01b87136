#!/usr/bin/env python3
"""Per-op Paddle references for the pool family (see tools/op_caselib.py):
pool2d / pool3d forward and X@GRAD over the attribute variants (max/avg,
explicit/asymmetric/SAME/VALID paddings, ceil_mode, non-exclusive average,
global and adaptive pooling with non-divisible sizes, channel-last layouts).
Adaptive max pooling has no case here: Paddle's own API builds it as
max_pool2d_with_index (tools/op_cases_pool_with_index.py), and a raw pool2d(adaptive, max) on Paddle 2.6.2's CPU
gives values of no adaptive bins (it matched plain 2x2 stride-1 windows);
kernels.pool checks that variant against hand-computed bins instead.

  python3 tools/op_cases_pool.py   # rewrites test/fixtures/op_cases/pool/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper

FAMILY = "pool"


def raw_pool(op, x, **attrs):
    """A pool2d/pool3d op with attributes the functional API never sets
    (global_pooling, adaptive max without indices)."""
    helper = LayerHelper(op)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type=op, inputs={"X": x}, outputs={"Out": out}, attrs=attrs)
    return out


def main():
    oc.start(__file__, FAMILY)
    cases = [
        ("max2d_k2s2", [2, 3, 6, 6], lambda x: F.max_pool2d(x, 2, 2)),
        ("max2d_k3s2p1_ceil", [1, 2, 7, 6], lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True)),
        ("avg2d_k3s2p1_exclusive", [1, 2, 7, 6], lambda x: F.avg_pool2d(x, 3, 2, 1)),
        ("avg2d_k3s2p1_ceil_inclusive", [1, 2, 7, 6],
         lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, exclusive=False)),
        ("avg2d_asym_pad_inclusive", [1, 2, 6, 7],
         lambda x: F.avg_pool2d(x, [3, 2], [2, 2], [0, 1, 1, 0], ceil_mode=True, exclusive=False)),
        ("avg2d_same", [1, 2, 7, 5], lambda x: F.avg_pool2d(x, 3, 2, "SAME")),
        ("max2d_valid", [1, 2, 7, 5], lambda x: F.max_pool2d(x, 3, 2, "VALID")),
        ("avg2d_global", [2, 3, 5, 4],
         lambda x: raw_pool("pool2d", x, pooling_type="avg", ksize=[1, 1], global_pooling=True, strides=[1, 1],
                            paddings=[0, 0])),
        ("max2d_global", [2, 3, 5, 4],
         lambda x: raw_pool("pool2d", x, pooling_type="max", ksize=[1, 1], global_pooling=True, strides=[1, 1],
                            paddings=[0, 0])),
        ("avg2d_adaptive_7x5_to_3x4", [2, 2, 7, 5], lambda x: F.adaptive_avg_pool2d(x, [3, 4])),
        ("avg2d_nhwc_inclusive", [2, 6, 5, 3],
         lambda x: F.avg_pool2d(x, 3, 2, 1, exclusive=False, data_format="NHWC")),
        ("max2d_nhwc", [2, 6, 5, 3], lambda x: F.max_pool2d(x, 2, [2, 1], data_format="NHWC")),
        ("max3d_k2s2", [1, 2, 4, 4, 5], lambda x: F.max_pool3d(x, 2, 2)),
        ("avg3d_k3s2p1_inclusive_ceil", [1, 2, 5, 4, 5],
         lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, exclusive=False)),
        ("avg3d_ndhwc", [1, 4, 4, 5, 3], lambda x: F.avg_pool3d(x, 2, 2, data_format="NDHWC")),
        ("avg3d_adaptive", [1, 2, 5, 4, 7], lambda x: F.adaptive_avg_pool3d(x, [2, 3, 3])),
    ]
    for name, shape, fn in cases:
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, low=-2, high=2)
            p.case(name, [fn(x)])
    oc.finish()


if __name__ == "__main__":
    main()
