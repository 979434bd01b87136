#!/usr/bin/env python3
"""Per-op Paddle references for the fake-quantization ops (PaddleSlim / paddle.quantization
programs), see tools/op_caselib.py: quantize_linear / dequantize_linear (per-tensor and
per-channel, both round types, int8 and fp64 inputs, only_observer, training statistics)
and the older fake_* ops (abs_max, channel-wise, moving average, range, dequantize max_abs),
with the straight-through X@GRAD of the three quantize-dequantize ops.

X values sit on exact rounding ties (k + 0.5 levels with scale 127 and 8 bits) and beyond
the clipping range, so both round types and both clamps are exercised. The ops are added
with LayerHelper: Paddle's Python API does not emit them outside its quantization passes.

  python3 tools/op_cases_quant.py   # rewrites test/fixtures/op_cases/quant/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "quant"


def raw(op, inputs, outputs, attrs, dtypes=None):
    """Appends `op`; `outputs` names its output slots, each a fresh variable
    (of X's dtype unless `dtypes` says otherwise). Returns them by slot."""
    helper = LayerHelper(op)
    x = inputs["X"]
    outs = {s: helper.create_variable_for_type_inference((dtypes or {}).get(s, x.dtype)) for s in outputs}
    helper.append_op(type=op, inputs=inputs, outputs=outs, attrs=dict(attrs))  # Paddle adds op_role etc. to it
    return outs


def ties(shape, scale=127.0, seed=0):
    """Values k + 0.5 (exact ties at scale 127, 8 bits), plus a few past the
    clipping range on both sides."""
    r = np.random.default_rng(seed)
    v = r.integers(-126, 126, size=shape).astype(np.float64) + 0.5
    flat = v.reshape(-1)
    flat[:6] = [0.5, -0.5, 1.5, -2.5, scale + 3, -scale - 1.4]
    return v * (scale / 127.0)


def scales(n, seed):
    return np.random.default_rng(seed).uniform(0.5, 2.0, size=[n])


def linear_cases():
    for name, rt in (("ql_tensor_ties_rt0", None), ("ql_tensor_ties_rt1", 1)):
        with oc.program(FAMILY) as p:
            x = p.input("x", [3, 8], value=ties([3, 8]), grad=False)
            s = p.input("scale", [1], value=[127.0], grad=False)
            z = p.input("zp", [1], value=[0.0], grad=False)
            attrs = {"quant_axis": -1, "bit_length": 8, "is_test": True}
            if rt is not None:
                attrs["round_type"] = rt
            y = raw("quantize_linear", {"X": x, "Scale": s, "ZeroPoint": z}, ["Y"], attrs)["Y"]
            p.case(name, [y], grads=False, notes=f"per-tensor, ties, round_type {rt or 'default (0)'}")
    for name, shape, axis, bits, rt in (("ql_channel_axis0", [4, 3, 2, 2], 0, 8, 0),
                                        ("ql_channel_axis1_4bit_rt1", [3, 4, 2], 1, 4, 1)):
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, low=-2.5, high=2.5, grad=False)
            s = p.input("scale", [shape[axis]], value=scales(shape[axis], axis), grad=False)
            z = p.input("zp", [shape[axis]], value=np.zeros(shape[axis]), grad=False)
            y = raw("quantize_linear", {"X": x, "Scale": s, "ZeroPoint": z}, ["Y"],
                    {"quant_axis": axis, "bit_length": bits, "round_type": rt, "is_test": True})["Y"]
            p.case(name, [y], grads=False, notes=f"per-channel axis {axis}, {bits} bits, round_type {rt}")
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 5], grad=False)
        s = p.input("scale", [1], value=[0.3], grad=False)
        z = p.input("zp", [1], value=[0.0], grad=False)
        y = raw("quantize_linear", {"X": x, "Scale": s, "ZeroPoint": z}, ["Y"],
                {"quant_axis": -1, "is_test": True, "only_observer": True})["Y"]
        p.case("ql_only_observer", [y], grads=False, notes="only_observer: Y = X")
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 6], low=-3, high=3, grad=False)
        s = p.input("scale", [1], value=[1.0], grad=False)
        z = p.input("zp", [1], value=[0.0], grad=False)
        acc = p.input("accum", [1], value=[2.0], grad=False)
        st = p.input("state", [1], value=[1.5], grad=False)
        o = raw("quantize_linear", {"X": x, "Scale": s, "ZeroPoint": z, "InAccum": acc, "InState": st},
                ["Y", "OutScale", "OutState", "OutAccum"], {"quant_axis": -1, "is_test": False})
        p.case("ql_train_tensor", [o["Y"], o["OutScale"], o["OutState"], o["OutAccum"]], grads=False,
               notes="training, per-tensor: moving-average scale")
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 3, 3], low=-3, high=3, grad=False)
        s = p.input("scale", [4], value=np.ones(4), grad=False)
        z = p.input("zp", [4], value=np.zeros(4), grad=False)
        o = raw("quantize_linear", {"X": x, "Scale": s, "ZeroPoint": z}, ["Y", "OutScale"],
                {"quant_axis": 0, "is_test": False})
        p.case("ql_train_channel", [o["Y"], o["OutScale"]], grads=False, notes="training, per-channel max|X|")

    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 7], value=ties([3, 7], seed=1), grad=False)
        s = p.input("scale", [1], value=[0.8], grad=False)
        z = p.input("zp", [1], value=[0.0], grad=False)
        y = raw("dequantize_linear", {"X": x, "Scale": s, "ZeroPoint": z}, ["Y"],
                {"quant_axis": -1, "bit_length": 8})["Y"]
        p.case("dql_tensor", [y], grads=False, notes="per-tensor fp32")
    with oc.program(FAMILY) as p:
        w = np.random.default_rng(5).integers(-127, 128, size=[4, 2, 3, 3])
        x = p.input("w", [4, 2, 3, 3], dtype="int8", value=w, grad=False)
        s = p.input("scale", [4], value=scales(4, 2), grad=False)
        z = p.input("zp", [4], value=np.zeros(4), grad=False)
        y = raw("dequantize_linear", {"X": x, "Scale": s, "ZeroPoint": z}, ["Y"], {"quant_axis": 0},
                dtypes={"Y": "float32"})["Y"]
        p.case("dql_int8_axis0", [y], grads=False, notes="int8 weight, per-channel axis 0 (QuantWeightPass output)")
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 4], dtype="float64", low=-7, high=7, grad=False)
        s = p.input("scale", [3], dtype="float64", value=scales(3, 3), grad=False)
        z = p.input("zp", [3], dtype="float64", value=np.zeros(3), grad=False)
        y = raw("dequantize_linear", {"X": x, "Scale": s, "ZeroPoint": z}, ["Y"],
                {"quant_axis": 1, "bit_length": 4})["Y"]
        p.case("dql_fp64_axis1_4bit", [y], grads=False, notes="fp64, per-channel axis 1, 4 bits")


def fake_cases():
    for name, attrs in (("fqdq_abs_max", {}), ("fqdq_abs_max_rt0_5bit", {"round_type": 0, "bit_length": 5})):
        with oc.program(FAMILY) as p:
            x = p.input("x", [3, 8], value=ties([3, 8], seed=2))
            o = raw("fake_quantize_dequantize_abs_max", {"X": x}, ["Out", "OutScale"], attrs)
            p.case(name, [o["Out"], o["OutScale"]], notes=f"dynamic abs_max {attrs or 'defaults'}; X@GRAD straight through")
    for name, shape, axis in (("fcwqdq_axis0", [4, 3, 3], 0), ("fcwqdq_axis1", [2, 4, 3], 1)):
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, low=-2, high=2)
            o = raw("fake_channel_wise_quantize_dequantize_abs_max", {"X": x}, ["Out", "OutScale"],
                    {"quant_axis": axis})
            p.case(name, [o["Out"], o["OutScale"]], notes=f"per-channel abs_max, axis {axis}")
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 8], value=ties([3, 8], seed=3))
        s = p.input("scale", [1], value=[127.0], grad=False)
        o = raw("fake_quantize_dequantize_moving_average_abs_max", {"X": x, "InScale": s}, ["Out", "OutScale"],
                {"is_test": True})
        p.case("fqdq_moving_test", [o["Out"]], notes="is_test: InScale, ties (default round_type 1)")
    for op, short in (("fake_quantize_dequantize_moving_average_abs_max", "fqdq"),
                      ("fake_quantize_moving_average_abs_max", "fq")):
        with oc.program(FAMILY) as p:
            x = p.input("x", [4, 5], low=-3, high=3, grad=short == "fqdq")
            s = p.input("scale", [1], value=[1.0], grad=False)
            acc = p.input("accum", [1], value=[2.0], grad=False)
            st = p.input("state", [1], value=[1.5], grad=False)
            o = raw(op, {"X": x, "InScale": s, "InAccum": acc, "InState": st},
                    ["Out", "OutScale", "OutState", "OutAccum"], {"is_test": False, "moving_rate": 0.8})
            p.case(f"{short}_moving_train", [o["Out"], o["OutScale"], o["OutState"], o["OutAccum"]],
                   grads=short == "fqdq", notes="training: moving average of max|X| with rate 0.8")
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 8], value=ties([3, 8], seed=4), grad=False)
        s = p.input("scale", [1], value=[127.0], grad=False)
        o = raw("fake_quantize_moving_average_abs_max", {"X": x, "InScale": s}, ["Out", "OutScale"],
                {"is_test": True, "round_type": 0})
        p.case("fq_moving_test_rt0", [o["Out"]], grads=False, notes="is_test, round_type 0: clamps to -128")
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 8], value=ties([3, 8], seed=5), grad=False)
        o = raw("fake_quantize_abs_max", {"X": x}, ["Out", "OutScale"], {"bit_length": 8})
        p.case("fq_abs_max", [o["Out"], o["OutScale"]], grads=False, notes="levels of X with max|X|")
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 9], value=ties([2, 9], seed=6), grad=False)
        s = p.input("scale", [1], value=[100.0], grad=False)
        o = raw("fake_quantize_range_abs_max", {"X": x, "InScale": s}, ["Out", "OutScale"], {"is_test": True})
        p.case("fq_range_test", [o["Out"]], grads=False, notes="is_test: levels with InScale")
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4], low=-127, high=127, grad=False)
        s = p.input("scale", [1], value=[0.7], grad=False)
        o = raw("fake_dequantize_max_abs", {"X": x, "Scale": s}, ["Out"], {"max_range": 127.0})
        p.case("fdq_max_abs", [o["Out"]], grads=False)
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4], dtype="float64", low=-15, high=15, grad=False)
        s = p.input("scale", [1], dtype="float64", value=[1.3], grad=False)
        o = raw("fake_dequantize_max_abs", {"X": x, "Scale": s}, ["Out"], {"max_range": 15.0})
        p.case("fdq_max_abs_fp64", [o["Out"]], grads=False)
    for name, shape, axis in (("fcwdq_one_axis0", [4, 2, 3], 0), ("fcwdq_one_axis1", [2, 4, 3], 1)):
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, low=-127, high=127, grad=False)
            s = p.input("scale", [shape[axis]], value=scales(shape[axis], 7), grad=False)
            o = raw("fake_channel_wise_dequantize_max_abs", {"X": x, "Scales": [s]}, ["Out"],
                    {"quant_bits": [8], "quant_axis": axis})
            p.case(name, [o["Out"]], grads=False, notes=f"one scale per channel along axis {axis}")
    for name, shape, ncol in (("fcwdq_two_col1", [3, 4, 2], 1), ("fcwdq_two_col2", [2, 3, 4], 2)):
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, low=-5000, high=5000, grad=False)
            s = p.input("scale", [shape[ncol]], value=scales(shape[ncol], 8), grad=False)
            s2 = p.input("scale2", [1], value=[0.9], grad=False)
            o = raw("fake_channel_wise_dequantize_max_abs", {"X": x, "Scales": [s, s2]}, ["Out"],
                    {"quant_bits": [8, 7], "x_num_col_dims": ncol})
            p.case(name, [o["Out"]], grads=False, notes=f"two scales, channel along x_num_col_dims {ncol}")


def main():
    oc.start(__file__, FAMILY)
    linear_cases()
    fake_cases()
    oc.finish()


if __name__ == "__main__":
    main()
