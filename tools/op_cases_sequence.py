#!/usr/bin/env python3
"""Per-op Paddle references for the sequence family (see tools/op_caselib.py):
sequence_pool (every pooltype), sequence_softmax, sequence_reverse,
sequence_expand, sequence_expand_as, sequence_concat, sequence_conv, sequence_mask,
split_lod_tensor / merge_lod_tensor, the fused lstm and gru, and lookup_table (v1) on ragged LoD batches, sequences of lengths 1, 5 and 0
where Paddle allows an empty one; forward, output LoD and gradient.

  python3 tools/op_cases_sequence.py   # rewrites test/fixtures/op_cases/sequence/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.static.nn as snn
from paddle.base.layer_helper import LayerHelper

FAMILY = "sequence"
RAGGED = [[1, 5, 0]]  # 6 rows: one sequence of 1, one of 5, an empty one


def raw_op(op_type, inputs, attrs, dtype, out_slot="Out"):
    """Appends `op_type` directly: Fluid ops the 2.6 Python API no longer
    writes (lookup_table v1), or whose weights the case must feed rather
    than initialise (sequence_conv's Filter)."""
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(type=op_type, inputs=inputs, outputs={out_slot: out}, attrs=attrs)
    return out


def main():
    oc.start(__file__, FAMILY)

    for pool in ["SUM", "AVERAGE", "SQRT", "MAX", "LAST", "FIRST"]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [6, 3], lod=RAGGED)
            y = snn.sequence_pool(x, pool, pad_value=0.5)
            extra = []
            if pool == "MAX":
                op = [o for o in p.main.global_block().ops if o.type == "sequence_pool"][0]
                extra = [p.main.global_block().var(op.output("MaxIndex")[0])]
            p.case(f"pool_{pool.lower()}", [y], extra=extra)

    # Two LoD levels: Out keeps the outer one.
    with oc.program(FAMILY) as p:
        x = p.input("x", [6, 2], lod=[[2, 1], [1, 3, 2]])
        p.case("pool_sum_two_levels", [snn.sequence_pool(x, "SUM")])

    with oc.program(FAMILY) as p:
        x = p.input("x", [6, 3], dtype="float64", lod=[[2, 4]])
        p.case("pool_average_fp64", [snn.sequence_pool(x, "AVERAGE")], rtol=1e-10, atol=1e-12)

    with oc.program(FAMILY) as p:
        x = p.input("x", [6, 1], lod=RAGGED, low=-3, high=3)
        p.case("softmax", [snn.sequence_softmax(x)])

    with oc.program(FAMILY) as p:
        x = p.input("x", [6, 3], lod=RAGGED)
        p.case("reverse", [snn.sequence_reverse(x)])

    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 2])
        y = p.input("y", [6, 3], lod=RAGGED, grad=False)
        p.case("expand_as", [snn.sequence_expand_as(x, y)])

    # sequence_expand: a dense X's rows, or a LoD X's sequences, repeated by Y's lengths at ref_level.
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 2])
        y = p.input("y", [5, 1], lod=[[2, 0, 3]], grad=False)
        p.case("expand_dense_x", [snn.sequence_expand(x, y)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 2], lod=[[2, 1, 1]])
        y = p.input("y", [5, 1], lod=[[2, 0, 3]], grad=False)
        p.case("expand_lod_x", [snn.sequence_expand(x, y)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 2])
        y = p.input("y", [5, 1], lod=[[1, 2], [2, 0, 3]], grad=False)
        p.case("expand_ref_level0", [snn.sequence_expand(x, y, ref_level=0)])

    with oc.program(FAMILY) as p:
        a = p.input("a", [6, 3], lod=RAGGED)
        b = p.input("b", [4, 3], lod=[[2, 0, 2]])
        p.case("concat", [snn.sequence_concat([a, b])])

    for name, start, length in [("conv_ctx3", -1, 3), ("conv_ctx2_forward", 0, 2), ("conv_ctx4_back", -3, 4)]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [6, 3], lod=RAGGED)
            w = p.input("w", [length * 3, 4])
            y = raw_op("sequence_conv", {"X": x, "Filter": w},
                       {"contextLength": length, "contextStart": start, "contextStride": 1,
                        "paddingTrainable": False}, "float32")
            p.case(name, [y])

    with oc.program(FAMILY) as p:
        n = p.input("n", [4], dtype="int64", value=[1, 5, 0, 3], grad=False)
        p.case("mask_maxlen6", [paddle.static.nn.sequence_lod.sequence_mask(n, maxlen=6, dtype="float32")], grads=False)
    with oc.program(FAMILY) as p:
        n = p.input("n", [4], dtype="int64", value=[1, 5, 0, 3], grad=False)
        p.case("mask_auto_int64", [paddle.static.nn.sequence_lod.sequence_mask(n, dtype="int64")])

    # Fluid IfElse's batch split and merge by a row mask (Paddle differentiates each by the other).
    for name, mask in [("split_merge", [[1], [0], [0], [1], [0]]), ("split_merge_all_false", [[0]] * 5)]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [5, 3])
            m = p.input("m", [5, 1], dtype="bool", value=mask, grad=False)
            helper = LayerHelper("split_lod_tensor")
            t = helper.create_variable_for_type_inference("float32")
            f = helper.create_variable_for_type_inference("float32")
            helper.append_op(type="split_lod_tensor", inputs={"X": x, "Mask": m},
                             outputs={"OutTrue": t, "OutFalse": f}, attrs={"level": 0})
            merged = helper.create_variable_for_type_inference("float32")
            helper.append_op(type="merge_lod_tensor",
                             inputs={"X": x, "Mask": m, "InTrue": paddle.scale(t, 2.0), "InFalse": paddle.tanh(f)},
                             outputs={"Out": merged}, attrs={"level": 0})
            p.case(name, [merged])

    # lstm (Fluid's dynamic_lstm): D = 2, gates [candidate, i, f, o], peepholes in Bias [1, 7D].
    for name, lod, peep, rev, init in [("lstm_peepholes", [[2, 4, 1]], True, False, False),
                                       ("lstm_reverse_h0c0", [[3, 1, 3]], True, True, True),
                                       ("lstm_plain", [[1, 5, 1]], False, False, False),
                                       ("lstm_batch8", [[1, 6, 1, 5, 1, 3, 4, 5]], True, False, False)]:
        rows, d = sum(lod[0]), 2
        with oc.program(FAMILY) as p:
            x = p.input("x", [rows, 4 * d], lod=lod)
            w = p.input("w", [d, 4 * d])
            b = p.input("b", [1, (7 if peep else 4) * d])
            ins = {"Input": x, "Weight": w, "Bias": b}
            if init:
                ins["H0"] = p.input("h0", [3, 2])
                ins["C0"] = p.input("c0", [3, 2])
            helper = LayerHelper("lstm")
            outs = {k: helper.create_variable_for_type_inference("float32")
                    for k in ["Hidden", "Cell", "BatchGate", "BatchCellPreAct"]}
            helper.append_op(type="lstm", inputs=ins, outputs=outs,
                             attrs={"use_peepholes": peep, "is_reverse": rev, "gate_activation": "sigmoid",
                                    "cell_activation": "tanh", "candidate_activation": "tanh"})
            p.case(name, [outs["Hidden"], outs["Cell"]])

    # gru (Fluid's dynamic_gru): Input [rows, 3D] already projected, gates [update, reset, candidate];
    # Weight [D, 3D] stored as [D, 2D] (update, reset) then [D, D] (candidate). Paddle's static API
    # writes it only through paddle.fluid (gone in 2.6), so the op is appended by hand.
    for name, lod, rev, origin, init, act in [("gru_plain", [[1, 5, 3]], False, False, False, "tanh"),
                                              ("gru_empty_seq_no_bias", [[2, 0, 3]], True, False, True, "tanh"),
                                              ("gru_reverse", [[1, 5, 3]], True, False, False, "tanh"),
                                              ("gru_origin_h0", [[3, 1, 5]], False, True, True, "tanh"),
                                              ("gru_reverse_origin_h0", [[5, 1, 3]], True, True, True, "tanh"),
                                              ("gru_h0_relu", [[2, 4, 1]], False, False, True, "relu"),
                                              ("gru_batch8", [[1, 6, 1, 5, 1, 3, 4, 5]], False, False, False,
                                               "tanh")]:
        rows, d, n = sum(lod[0]), 3, len(lod[0])
        with oc.program(FAMILY) as p:
            x = p.input("x", [rows, 3 * d], lod=lod)
            w = p.input("w", [d, 3 * d])
            ins = {"Input": x, "Weight": w}
            if "no_bias" not in name:
                ins["Bias"] = p.input("b", [1, 3 * d])
            if init:
                ins["H0"] = p.input("h0", [n, d])
            helper = LayerHelper("gru")
            outs = {k: helper.create_variable_for_type_inference("float32")
                    for k in ["Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden"]}
            helper.append_op(type="gru", inputs=ins, outputs=outs,
                             attrs={"is_reverse": rev, "gate_activation": "sigmoid", "activation": act,
                                    "origin_mode": origin})
            p.case(name, [outs["Hidden"]])
    with oc.program(FAMILY) as p:  # float64, origin_mode, reverse, H0: Paddle's double kernel
        x = p.input("x", [6, 6], dtype="float64", lod=[[4, 2]])
        ins = {"Input": x, "Weight": p.input("w", [2, 6], dtype="float64"),
               "Bias": p.input("b", [1, 6], dtype="float64"), "H0": p.input("h0", [2, 2], dtype="float64")}
        helper = LayerHelper("gru")
        outs = {k: helper.create_variable_for_type_inference("float64")
                for k in ["Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden"]}
        helper.append_op(type="gru", inputs=ins, outputs=outs,
                         attrs={"is_reverse": True, "gate_activation": "sigmoid", "activation": "tanh",
                                "origin_mode": True})
        p.case("gru_fp64", [outs["Hidden"]], rtol=1e-10, atol=1e-12)

    for name, pad in [("lookup_table", -1), ("lookup_table_padding", 2)]:
        with oc.program(FAMILY) as p:
            ids = p.input("ids", [6, 1], dtype="int64", value=[[3], [2], [0], [4], [2], [3]], grad=False,
                          lod=RAGGED)
            w = p.input("w", [5, 4])
            p.case(name, [raw_op("lookup_table", {"Ids": ids, "W": w},
                                 {"padding_idx": pad, "is_sparse": False}, "float32")])

    oc.finish()


if __name__ == "__main__":
    main()
