#!/usr/bin/env python3
"""Per-op Paddle references for set_value (see tools/op_caselib.py): the op
paddle.static.setitem writes for `x[index] = value`, forward and the gradients
set_value_grad gives Input and ValueTensor. Covers steps, negative bounds and
negative steps, a value broadcast to the region, constant values (the `values`
attribute with `shape`), integer indices (decrease_axes), None (none_axes),
Ellipsis, run-time bounds (StartsTensorList / EndsTensorList / StepsTensorList
from fed tensors) and an integer tensor.

  python3 tools/op_cases_set_value.py   # rewrites test/fixtures/op_cases/set_value/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "set_value"
S = paddle.static.setitem


def case(name, xshape, index, vshape=None, const=None, dtype="float32", notes=""):
    """x[index] = v (a fed tensor of vshape) or = const. `index` is a function
    of the program (so it can make run-time bound inputs)."""
    with oc.program(FAMILY) as p:
        x = p.input("x", xshape, dtype=dtype, low=-5, high=5)
        value = const if vshape is None else p.input("v", vshape, dtype=dtype, low=-5, high=5)
        # x * 1 first: setitem on a fed variable would write its result over the feed.
        src = paddle.scale(x, 1.0) if dtype.startswith("float") else x
        y = S(src, index(p), value)
        p.case(name, [y], grads=dtype.startswith("float"), notes=notes)


def feed_int(p, name, v, dtype="int64"):
    return p.input(name, [1], dtype=dtype, grad=False, value=np.array([v]))


def main():
    oc.start(__file__, FAMILY)
    case("rows_step2", [4, 6], lambda p: (slice(1, 3), slice(None, None, 2)), vshape=[2, 3])
    case("broadcast_row", [4, 6], lambda p: (slice(None), slice(1, 4)), vshape=[3])
    case("broadcast_col", [4, 6], lambda p: (slice(0, 3), slice(2, 6)), vshape=[3, 1])
    case("int_index_const", [4, 6], lambda p: 0, const=3.0, notes="decrease_axes, constant value")
    case("negative_bounds_step", [5, 6], lambda p: (slice(-1, 0, -2), slice(-3, None)), vshape=[2, 3],
         notes="a negative step and negative bounds")
    case("reverse_all", [5, 3], lambda p: slice(None, None, -1), vshape=[5, 3])
    case("reverse_step3", [7, 2], lambda p: slice(None, None, -3), const=-1.5)
    case("clamped_bounds", [4, 5], lambda p: (slice(-10, 10), slice(1, 100)), vshape=[1, 4])
    case("none_axis", [4, 6], lambda p: (None, slice(1, 3)), vshape=[1, 2, 6], notes="none_axes")
    case("ellipsis_last", [2, 3, 4], lambda p: (Ellipsis, 1), vshape=[3], notes="decrease on the last axis")
    case("mid_int_index", [2, 3, 4], lambda p: (slice(None), 2, slice(0, 4, 3)), vshape=[2, 2])
    case("starts_tensor", [4, 6], lambda p: (slice(feed_int(p, "i", 1), None), -1), const=2.5,
         notes="StartsTensorList from a fed tensor")
    case("bounds_steps_tensors", [6, 5],
         lambda p: (slice(feed_int(p, "s", 5), feed_int(p, "e", 0, "int32"), feed_int(p, "t", -2)),),
         vshape=[5], notes="StartsTensorList, EndsTensorList, StepsTensorList; a negative run-time step")
    case("int64_tensor", [3, 4], lambda p: (slice(1, None), slice(None, 2)), const=7, dtype="int64")
    case("int32_value_tensor", [3, 4], lambda p: (slice(None), 1), vshape=[3], dtype="int32")
    case("fp64", [3, 4], lambda p: (slice(0, 2), slice(None, None, 3)), vshape=[2, 2], dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
