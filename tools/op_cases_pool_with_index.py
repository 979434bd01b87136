#!/usr/bin/env python3
"""Per-op Paddle references for max_pool2d_with_index / max_pool3d_with_index
(see tools/op_caselib.py): Out, Mask (the flat index of each window's max)
and X@GRAD, as F.max_pool2d/3d(return_mask=True) and F.adaptive_max_pool2d/3d
write them: strided, overlapping and padded windows, adaptive bins with
non-divisible sizes, global pooling.

  python3 tools/op_cases_pool_with_index.py   # rewrites test/fixtures/op_cases/pool_with_index/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper

FAMILY = "pool_with_index"


def raw(op, x, **attrs):
    """A *_with_index op with attributes the functional API never sets (global_pooling)."""
    helper = LayerHelper(op)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference("int32")
    helper.append_op(type=op, inputs={"X": x}, outputs={"Out": out, "Mask": mask}, attrs=attrs)
    return out, mask


def main():
    oc.start(__file__, FAMILY)
    cases = [
        ("max2d_k2s2", [2, 3, 6, 6], lambda x: F.max_pool2d(x, 2, 2, return_mask=True)),
        ("max2d_k3s2p1", [1, 2, 7, 6], lambda x: F.max_pool2d(x, 3, 2, 1, return_mask=True)),
        ("max2d_k3s1p1_rect", [1, 2, 5, 4], lambda x: F.max_pool2d(x, [3, 2], [1, 2], [1, 0], return_mask=True)),
        ("adaptive2d_7x5_to_3x4", [2, 2, 7, 5], lambda x: F.adaptive_max_pool2d(x, [3, 4], return_mask=True)),
        ("adaptive2d_no_mask", [1, 3, 6, 5], lambda x: [F.adaptive_max_pool2d(x, 2)]),
        ("adaptive2d_to_1", [2, 3, 4, 5], lambda x: F.adaptive_max_pool2d(x, 1, return_mask=True)),
        ("global2d", [2, 2, 3, 4],
         lambda x: raw("max_pool2d_with_index", x, ksize=[1, 1], strides=[1, 1], paddings=[0, 0],
                       global_pooling=True, adaptive=False)),
        ("max3d_k2s2", [1, 2, 4, 4, 5], lambda x: F.max_pool3d(x, 2, 2, return_mask=True)),
        ("max3d_k3s2p1", [1, 2, 5, 4, 5], lambda x: F.max_pool3d(x, 3, 2, 1, return_mask=True)),
        ("adaptive3d", [1, 2, 5, 4, 7], lambda x: F.adaptive_max_pool3d(x, [2, 3, 3], return_mask=True)),
    ]
    for name, shape, fn in cases:
        with oc.program(FAMILY) as p:
            x = p.input("x", shape)
            p.case(name, list(fn(x)))
    oc.finish()


if __name__ == "__main__":
    main()
