#!/usr/bin/env python3
"""Per-op Paddle references for the Fluid 1.x LoD sequence ops (see tools/op_caselib.py):
sequence_pad / sequence_unpad, sequence_slice, sequence_reshape, lod_reset (target_lod, Y's LoD,
Y's values, append), sequence_erase, sequence_enumerate and sequence_scatter on ragged batches
(sequences of lengths 1, 5 and 0 where Paddle allows an empty one): forward, output LoD, gradient.

Paddle 2.6's Python API writes none of these ops, so each is appended with block.append_op (slot and
attribute names are the op's own, from its OpProto).

  python3 tools/op_cases_sequence_legacy.py   # rewrites test/fixtures/op_cases/sequence_legacy/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "sequence_legacy"
RAGGED = [[1, 5, 0]]  # 6 rows: one sequence of 1, one of 5, an empty one


def append(op_type, inputs, outputs, attrs=None):
    """Appends `op_type` with a fresh variable per output slot ({slot: dtype}); returns them by slot."""
    helper = LayerHelper(op_type)
    outs = {slot: helper.create_variable_for_type_inference(dtype) for slot, dtype in outputs.items()}
    helper.append_op(type=op_type, inputs=inputs, outputs=outs, attrs=attrs or {})
    return outs


def pad_cases():
    # padded_length -1 (the longest, 5) and 7 (two steps beyond it); PadValue one value or one step.
    for name, length, pv_shape, dtype, tol in [("pad_longest_scalar_pad", -1, [1], "float32", {}),
                                               ("pad_len7_step_pad", 7, [3], "float32", {}),
                                               ("pad_fp64", -1, [1], "float64", {"rtol": 1e-10, "atol": 1e-12})]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [6, 3], dtype=dtype, lod=RAGGED)
            pv = p.input("pv", pv_shape, dtype=dtype, grad=False)
            o = append("sequence_pad", {"X": x, "PadValue": pv}, {"Out": dtype, "Length": "int64"},
                       {"padded_length": length})
            p.case(name, [o["Out"], o["Length"]], **tol)
    with oc.program(FAMILY) as p:  # rank-3 steps, PadValue one [2, 2] step
        x = p.input("x", [6, 2, 2], lod=[[2, 0, 4]])
        pv = p.input("pv", [2, 2], grad=False)
        o = append("sequence_pad", {"X": x, "PadValue": pv}, {"Out": "float32", "Length": "int64"},
                   {"padded_length": -1})
        p.case("pad_rank3", [o["Out"], o["Length"]])
    with oc.program(FAMILY) as p:  # int64 values (forward only)
        x = p.input("x", [6, 2], dtype="int64", low=0, high=50, lod=RAGGED, grad=False)
        pv = p.input("pv", [1], dtype="int64", value=[-1], grad=False)
        o = append("sequence_pad", {"X": x, "PadValue": pv}, {"Out": "int64", "Length": "int64"},
                   {"padded_length": 6})
        p.case("pad_int64", [o["Out"], o["Length"]])

    for name, shape in [("unpad_rank3", [3, 4, 2]), ("unpad_2d", [3, 6])]:
        with oc.program(FAMILY) as p:
            x = p.input("x", shape)
            n = p.input("n", [3], dtype="int64", value=[1, 4, 0], grad=False)
            p.case(name, [append("sequence_unpad", {"X": x, "Length": n}, {"Out": "float32"})["Out"]])
    with oc.program(FAMILY) as p:  # pad then unpad: the round trip, and both gradients in one backward
        x = p.input("x", [6, 3], lod=RAGGED)
        pv = p.input("pv", [1], grad=False)
        o = append("sequence_pad", {"X": x, "PadValue": pv}, {"Out": "float32", "Length": "int64"},
                   {"padded_length": -1})
        p.case("pad_unpad_round_trip",
               [append("sequence_unpad", {"X": o["Out"], "Length": o["Length"]}, {"Out": "float32"})["Out"]])


def slice_reshape_cases():
    for name, offset, length in [("slice", [0, 2, 0], [1, 2, 0]), ("slice_whole_and_empty", [1, 0, 0], [0, 5, 0])]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [6, 3], lod=RAGGED)
            off = p.input("off", [3, 1], dtype="int64", value=[[v] for v in offset], grad=False)
            ln = p.input("len", [3, 1], dtype="int64", value=[[v] for v in length], grad=False)
            p.case(name, [append("sequence_slice", {"X": x, "Offset": off, "Length": ln}, {"Out": "float32"})["Out"]])
    with oc.program(FAMILY) as p:
        x = p.input("x", [6, 2], dtype="float64", lod=[[2, 4]])
        off = p.input("off", [2, 1], dtype="int64", value=[[1], [1]], grad=False)
        ln = p.input("len", [2, 1], dtype="int64", value=[[1], [3]], grad=False)
        p.case("slice_fp64", [append("sequence_slice", {"X": x, "Offset": off, "Length": ln},
                                     {"Out": "float64"})["Out"]], rtol=1e-10, atol=1e-12)

    # new_dim wider (rows merge), narrower (rows split) and equal; lengths scale by width / new_dim.
    for name, shape, lod, new_dim in [("reshape_wider", [6, 2], [[3, 3, 0]], 6), ("reshape_narrower", [6, 4], RAGGED, 2),
                                      ("reshape_to_1", [6, 2], [[3, 3, 0]], 1), ("reshape_same", [6, 3], RAGGED, 3)]:
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, lod=lod)
            p.case(name, [append("sequence_reshape", {"X": x}, {"Out": "float32"}, {"new_dim": new_dim})["Out"]])


def lod_reset_cases():
    # target_lod replacing X's LoD, or (append) a level below X's: [0,1,1,3,4,4,6] splits X's 6 rows into 6
    # sequences that X's own level groups.
    for name, xlod, attrs in [("lod_reset_target", RAGGED, {"target_lod": [0, 2, 2, 6], "append": False}),
                              ("lod_reset_target_dense_x", None, {"target_lod": [0, 4, 6], "append": False}),
                              ("lod_reset_append", RAGGED, {"target_lod": [0, 1, 1, 3, 4, 4, 6], "append": True}),
                              ("lod_reset_append_dense_x", None, {"target_lod": [0, 0, 6], "append": True})]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [6, 3], lod=xlod)
            p.case(name, [append("lod_reset", {"X": x}, {"Out": "float32"}, attrs)["Out"]])
    # Y with a LoD gives its whole LoD (two levels here; append then ignored, as in Paddle); Y without one
    # gives its int32 values as the offsets (appended below X's levels with append).
    for name, y_kw, append_flag in [("lod_reset_y_lod", dict(shape=[6, 1], lod=[[1, 2], [4, 0, 2]]), True),
                                    ("lod_reset_y_values", dict(shape=[4], dtype="int32", value=[0, 3, 3, 6]), False),
                                    ("lod_reset_y_values_append",
                                     dict(shape=[7], dtype="int32", value=[0, 1, 1, 3, 4, 4, 6]), True)]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [6, 3], lod=RAGGED)
            y = p.input("y", grad=False, **y_kw)
            p.case(name, [append("lod_reset", {"X": x, "Y": y}, {"Out": "float32"},
                                 {"target_lod": [0, 6], "append": append_flag})["Out"]])


def id_cases():
    ids = [[2], [1], [5], [2], [3], [4], [5]]
    for name, dtype, lod in [("erase_int64", "int64", [[1, 5, 1]]), ("erase_int32_two_levels", "int32", [[2, 1], [1, 5, 1]])]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [7, 1], dtype=dtype, value=ids, lod=lod, grad=False)
            p.case(name, [append("sequence_erase", {"X": x}, {"Out": dtype}, {"tokens": [2, 5]})["Out"]])
    for name, dtype, win, pad in [("enumerate_int64_win3", "int64", 3, -1), ("enumerate_int32_win2", "int32", 2, 0)]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [7, 1], dtype=dtype, value=[[v] for v in range(10, 17)], lod=[[1, 5, 0, 1]], grad=False)
            p.case(name, [append("sequence_enumerate", {"X": x}, {"Out": dtype},
                                 {"win_size": win, "pad_value": pad})["Out"]])


def scatter_cases():
    # Ids' sequence i scatters into X's row i; repeated ids add up; the empty third sequence touches nothing.
    seq_ids = [[0], [1], [1], [4], [2]]
    for name, dtype, x_shape, tol in [("scatter", "float32", [3, 5], {}),
                                      ("scatter_x3d_fp64", "float64", [3, 3, 2], {"rtol": 1e-10, "atol": 1e-12})]:
        with oc.program(FAMILY) as p:
            x = p.input("x", x_shape, dtype=dtype)
            i = p.input("ids", [5, 1], dtype="int64", value=seq_ids, lod=[[1, 4, 0]], grad=False)
            u = p.input("upd", [5, 1], dtype=dtype, lod=[[1, 4, 0]])
            p.case(name, [append("sequence_scatter", {"X": x, "Ids": i, "Updates": u}, {"Out": dtype})["Out"]], **tol)
    with oc.program(FAMILY) as p:  # int32 values (forward only)
        x = p.input("x", [3, 5], dtype="int32", low=0, high=9, grad=False)
        i = p.input("ids", [5, 1], dtype="int64", value=seq_ids, lod=[[1, 4, 0]], grad=False)
        u = p.input("upd", [5, 1], dtype="int32", low=0, high=9, lod=[[1, 4, 0]], grad=False)
        p.case("scatter_int32", [append("sequence_scatter", {"X": x, "Ids": i, "Updates": u}, {"Out": "int32"})["Out"]])


def main():
    oc.start(__file__, FAMILY)
    pad_cases()
    slice_reshape_cases()
    lod_reset_cases()
    id_cases()
    scatter_cases()
    oc.finish()


if __name__ == "__main__":
    main()
