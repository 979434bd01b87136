#!/usr/bin/env python3
"""Per-op Paddle references for the tensor_manip family (see tools/op_caselib.py):
split (num, sections with -1, run-time axis), stack, unstack, expand_v2 (attribute
and run-time shapes), expand_as_v2, tile (attribute and tensor repeats), shape, size
and fill_constant_batch_size_like, forward and gradient.

  python3 tools/op_cases_tensor_manip.py   # rewrites test/fixtures/op_cases/tensor_manip/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
from paddle.base.layer_helper import LayerHelper

FAMILY = "tensor_manip"


def one(name, shape, fn, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape)
        out = fn(x)
        p.case(name, list(out) if isinstance(out, (list, tuple)) else [out], **kw)


def fill_batch_size_like(x, shape, value, dtype, input_dim_idx=0, output_dim_idx=0):
    helper = LayerHelper("fill_constant_batch_size_like")
    out = helper.create_variable_for_type_inference(dtype=dtype)
    helper.append_op(type="fill_constant_batch_size_like", inputs={"Input": x}, outputs={"Out": out},
                     attrs={"shape": shape, "dtype": out.dtype, "value": float(value), "str_value": str(value),
                            "input_dim_idx": input_dim_idx, "output_dim_idx": output_dim_idx})
    return out


def known(shape, fn):
    """fn's output reshaped to its (run-time) shape, so the case's loss weights have a static shape."""
    return lambda x: paddle.reshape(fn(x), shape)


def main():
    oc.start(__file__, FAMILY)
    one("split_num", [2, 6, 3], lambda x: paddle.split(x, 3, axis=1))
    one("split_sections", [4, 5], lambda x: paddle.split(x, [2, -1, 1], axis=-1))
    # Only two of three parts used: Paddle's backward fills the third's gradient with zeros.
    one("split_partial_use", [3, 4], lambda x: paddle.split(x, [1, 1, 1], axis=0)[:2])
    one("split_axis_tensor", [2, 6], lambda x: [paddle.reshape(o, [2, n]) for o, n in zip(paddle.split(x, [4, 2], axis=paddle.full([1], 1, "int32")), [4, 2])])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3])
        y = p.input("y", [2, 3])
        p.case("stack_axis1", [paddle.stack([x, y, x * 2.0], axis=1)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3])
        y = p.input("y", [2, 3])
        p.case("stack_last", [paddle.stack([x, y], axis=-1)])
    one("unstack_axis0", [3, 2, 4], lambda x: paddle.unstack(x, axis=0))
    one("unstack_last", [2, 3, 4], lambda x: paddle.unstack(x, axis=-1))
    one("expand_v2_attr", [3, 1, 2], lambda x: paddle.expand(x, [2, 3, 4, 2]))
    one("expand_v2_keep", [1, 4], lambda x: paddle.expand(x, [3, -1]))
    one("expand_v2_tensor_list", [2, 1], known([2, 5], lambda x: paddle.expand(x, [2, paddle.full([1], 5, "int32")])))
    one("expand_v2_shape_tensor", [2, 1], known([3, 2, 4], lambda x: paddle.expand(x, paddle.to_tensor([3, 2, 4], "int32"))))
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 3])
        y = p.input("y", [4, 3], grad=False)
        p.case("expand_as_v2", [paddle.expand_as(x, y)])
    one("tile_attr", [2, 3], lambda x: paddle.tile(x, [2, 1, 3]))
    one("tile_short_repeats", [2, 1, 3], lambda x: paddle.tile(x, [4, 2]))
    one("tile_tensor", [2, 3], known([6, 6], lambda x: paddle.tile(x, paddle.to_tensor([3, 2], "int32"))))
    one("tile_tensor_list", [2, 3], known([4, 3], lambda x: paddle.tile(x, [paddle.full([1], 2, "int32"), 1])))
    one("shape_size", [2, 3, 4], lambda x: [paddle.shape(x), paddle.numel(x)], grads=False)
    one("fill_batch_size_like", [3, 2], lambda x: fill_batch_size_like(x, [-1, 4], 1.5, "float32"),
        grads=False)
    one("fill_batch_size_like_int", [3, 5], lambda x: fill_batch_size_like(x, [2, -1], 7, "int64", 1, 1),
        grads=False)
    oc.finish()


if __name__ == "__main__":
    main()
