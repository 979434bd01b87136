#!/usr/bin/env python3
"""Per-op Paddle references for diag_v2 (paddle.diag), eye, trace, kron,
cross and mv with their gradients, see tools/op_caselib.py: diag of a vector (offsets
above and below, padding_value) and of a matrix (offsets, an empty diagonal),
eye square and not, trace on chosen and negative axes with offsets, kron of
unequal ranks, cross on a given and on the default (first size-3) axis, mv; fp32,
fp64 and ints.

paddle.diag marks its output stop_gradient in static programs, so no backward
reaches diag_v2_grad; the cases clear that flag to get Paddle's diag_v2_grad.

  python3 tools/op_cases_linalg_misc.py   # rewrites test/fixtures/op_cases/linalg_misc/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "linalg_misc"


def diag_case(name, shape, dtype="float32", **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-4, high=4)
        y = paddle.diag(x, **kw)
        y.stop_gradient = dtype not in ("float32", "float64")
        p.case(name, [y], notes=f"diag of {dtype} {shape}, {kw}")


def trace_case(name, shape, dtype="float32", **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-4, high=4)
        p.case(name, [paddle.trace(x, **kw)], notes=f"trace of {dtype} {shape}, {kw}")


def binary_case(name, fn, xshape, yshape, dtype="float32", **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", xshape, dtype=dtype, low=-4, high=4)
        y = p.input("y", yshape, dtype=dtype, low=-4, high=4)
        p.case(name, [fn(x, y, **kw)], notes=f"{fn.__name__} X {xshape} Y {yshape} {dtype} {kw}")


def eye_case(name, rows, cols, dtype):
    with oc.program(FAMILY) as p:
        x = p.input("x", [rows, cols if cols is not None else rows])
        # eye has no input: added to a fed X so the case has a gradient to check too.
        p.case(name, [paddle.add(x, paddle.cast(paddle.eye(rows, cols, dtype=dtype), "float32"))],
               notes=f"eye({rows}, {cols}, {dtype}) + x")


def main():
    oc.start(__file__, FAMILY)
    diag_case("diag_vector", [5])
    diag_case("diag_vector_above_padded", [4], offset=2, padding_value=-1.5)
    diag_case("diag_vector_below_fp64", [3], dtype="float64", offset=-1)
    diag_case("diag_matrix", [4, 5])
    diag_case("diag_matrix_above", [4, 5], offset=2)
    diag_case("diag_matrix_below_fp64", [5, 3], dtype="float64", offset=-2)
    diag_case("diag_matrix_int64", [3, 3], dtype="int64", offset=1)
    eye_case("eye_square", 4, None, "float32")
    eye_case("eye_wide_int32", 3, 5, "int32")
    eye_case("eye_tall_fp64", 5, 2, "float64")
    trace_case("trace_matrix", [4, 5])
    trace_case("trace_batched_offset", [2, 3, 4], offset=1, axis1=1, axis2=2)
    trace_case("trace_swapped_axes_below", [3, 2, 4], offset=-1, axis1=2, axis2=0)
    trace_case("trace_negative_axes_fp64", [2, 4, 3], dtype="float64", axis1=-1, axis2=-2)
    trace_case("trace_empty_diagonal", [3, 3], offset=3)
    trace_case("trace_int32", [3, 4], dtype="int32", offset=-1)
    binary_case("kron_matrices", paddle.kron, [2, 3], [3, 2])
    binary_case("kron_ranks_fp64", paddle.kron, [3], [2, 2, 2], dtype="float64")
    binary_case("kron_int64", paddle.kron, [2, 2], [2], dtype="int64")
    binary_case("cross_axis0", paddle.cross, [3, 4], [3, 4], axis=0)
    binary_case("cross_default_axis", paddle.cross, [2, 3, 3], [2, 3, 3])
    binary_case("cross_last_axis_fp64", paddle.cross, [4, 3], [4, 3], dtype="float64", axis=-1)
    binary_case("cross_int32", paddle.cross, [3, 2], [3, 2], dtype="int32", axis=0)
    binary_case("mv", paddle.mv, [4, 3], [3])
    binary_case("mv_fp64", paddle.mv, [2, 5], [5], dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
