#!/usr/bin/env python3
"""Per-op Paddle references for the index family (see tools/op_caselib.py):
lookup_table_v2, gather, gather_nd, scatter, index_select, one_hot_v2,
arg_max/arg_min, top_k_v2, accuracy, where, range, cumsum; forward and,
where Paddle has one, gradient w.r.t. the float inputs.

  python3 tools/op_cases_index.py   # rewrites test/fixtures/op_cases/index/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
from paddle.base.layer_helper import LayerHelper

FAMILY = "index"


def raw_op(op_type, inputs, attrs, dtype):
    """Appends `op_type` with the given attributes (for attributes the Python API does not expose)."""
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(type=op_type, inputs=inputs, outputs={"Out": out}, attrs=attrs)
    return out


def as_1d(t):
    """A 0-D result as shape [1]: the fixtures store 0-D arrays as [1] (np.ascontiguousarray)."""
    return paddle.reshape(t, [1])


def ids(p, name, shape, high, value=None):
    return p.input(name, shape, dtype="int64", low=0, high=high, grad=False, value=value)


def main():
    oc.start(__file__, FAMILY)
    F = paddle.nn.functional

    with oc.program(FAMILY) as p:
        i = ids(p, "ids", [3, 4], 10)
        w = p.input("w", [10, 6])
        p.case("embedding", [F.embedding(i, w)])
    with oc.program(FAMILY) as p:  # padding id present, repeated ids (summed gradient rows)
        i = ids(p, "ids", [2, 5], 8, value=[[2, 0, 7, 2, 3], [3, 3, 1, 2, 0]])
        w = p.input("w", [8, 4])
        p.case("embedding_padding", [F.embedding(i, w, padding_idx=2)])
    with oc.program(FAMILY) as p:  # a negative padding_idx counts from the end
        i = ids(p, "ids", [6], 5, value=[4, 0, 4, 1, 2, 3])
        w = p.input("w", [5, 3])
        p.case("embedding_padding_negative", [F.embedding(i, w, padding_idx=-1)])

    with oc.program(FAMILY) as p:
        x = p.input("x", [5, 3])
        p.case("gather_axis0", [paddle.gather(x, ids(p, "idx", [4], 5), axis=0)])
    # Paddle 2.6.2's CPU gather_grad along an axis other than 0 writes the
    # first outer slice's gradient into every outer slice (wrong; fluidc's is
    # checked by finite differences in test/unit/kernels/index_test.cc), so
    # its gradient is compared only with one outer slice.
    with oc.program(FAMILY) as p:
        x = p.input("x", [1, 6, 3])
        p.case("gather_axis1_repeats", [paddle.gather(x, ids(p, "idx", [7], 6), axis=1)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 6, 3])
        p.case("gather_axis1_outer2", [paddle.gather(x, ids(p, "idx", [7], 6), axis=1)], grads=False,
               notes="forward only: Paddle 2.6.2's gather_grad is wrong for an outer dim > 1 (see the script)")
    with oc.program(FAMILY) as p:  # the axis given as a tensor (gather's Axis input)
        x = p.input("x", [4, 4])
        axis = paddle.full([1], 1, "int64")
        # Paddle's static shape assumes axis 0 ([5, 4]); the reshape states the real one, [4, 5].
        out = paddle.reshape(paddle.gather(x, ids(p, "idx", [5], 4), axis=axis), [4, 5])
        p.case("gather_axis_tensor", [out], grads=False,
               notes="forward only: Paddle 2.6.2's gather_grad is wrong for an outer dim > 1 (see the script)")

    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4, 5])
        p.case("gather_nd_2", [paddle.gather_nd(x, ids(p, "idx", [2, 3, 2], 3))])
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 3])
        p.case("gather_nd_full", [paddle.gather_nd(x, ids(p, "idx", [5, 2], 3))])

    with oc.program(FAMILY) as p:  # unique ids: overwrite has one value per row
        x = p.input("x", [6, 4])
        u = p.input("upd", [3, 4])
        p.case("scatter_overwrite", [paddle.scatter(x, ids(p, "idx", [3], 6, value=[4, 0, 2]), u)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [5, 3])
        u = p.input("upd", [4, 3])
        i = ids(p, "idx", [4], 5, value=[1, 3, 1, 4])
        p.case("scatter_add_repeats", [paddle.scatter(x, i, u, overwrite=False)])

    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 5])
        p.case("index_select_dim1", [paddle.index_select(x, ids(p, "idx", [6], 5), axis=1)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 2, 3])
        p.case("index_select_dim0", [paddle.index_select(x, ids(p, "idx", [3], 4), axis=0)])

    with oc.program(FAMILY) as p:
        p.case("one_hot", [F.one_hot(ids(p, "idx", [2, 3], 5), 5)], grads=False)

    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4, 5], grad=False)
        p.case("arg_max_min", [paddle.argmax(x, axis=1), paddle.argmin(x, axis=-1, keepdim=True),
                               as_1d(paddle.argmax(x)), paddle.argmin(x, axis=0, dtype="int32")])

    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 7])
        v, i = paddle.topk(x, 3)
        p.case("top_k_last_axis", [v, i])
    with oc.program(FAMILY) as p:
        x = p.input("x", [5, 3, 2])
        v, i = paddle.topk(x, 2, axis=0, largest=False)
        p.case("top_k_smallest_axis0", [v, i])

    with oc.program(FAMILY) as p:
        x = p.input("x", [6, 5], grad=False)
        label = ids(p, "label", [6, 1], 5)
        p.case("accuracy_top2", [as_1d(paddle.static.accuracy(x, label, k=2))], grads=False)

    with oc.program(FAMILY) as p:
        c = p.input("cond", [3, 4], dtype="bool", low=0, high=2, grad=False)
        x = p.input("x", [3, 4])
        y = p.input("y", [3, 4])
        p.case("where", [paddle.where(c, x, y)])

    with oc.program(FAMILY) as p:  # bounds from tensors: the length is known only at run time
        f = lambda name, v: p.input(name, [1], value=[v], grad=False)  # noqa: E731
        out = paddle.arange(f("start", 0.5), f("end", 3.75), f("step", 0.25))
        i = paddle.arange(ids(p, "istart", [1], 1, value=[7]), ids(p, "iend", [1], 1, value=[-5]),
                          ids(p, "istep", [1], 1, value=[-3]))
        p.case("range", [out, i], grads=False)

    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 5])
        p.case("cumsum_axis1", [paddle.cumsum(x, axis=1)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 4])
        p.case("cumsum_flatten", [paddle.cumsum(x)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 3])
        out = raw_op("cumsum", {"X": x}, {"axis": 0, "exclusive": True, "reverse": True}, x.dtype)
        p.case("cumsum_exclusive_reverse", [out])
    oc.finish()


if __name__ == "__main__":
    main()
