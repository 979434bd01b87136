#!/usr/bin/env python3
"""Per-op Paddle references for Fluid 1.x vision ops (see tools/op_caselib.py):
affine_channel (NCHW, NHWC and the attribute absent, which Paddle treats as
channel-last), shuffle_channel, lrn (both layouts, windows of 3 and 5),
norm (SSD's L2Norm; first and last axis), temporal_shift (both layouts) and
index_sample (int32 and int64 Index, repeated indices), forward and input
gradients. These ops have no Paddle 2.6 Python API: each case appends the op.

  python3 tools/op_cases_vision_legacy.py   # rewrites test/fixtures/op_cases/vision_legacy/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "vision_legacy"


def raw_op(op, inputs, outs, attrs, dtype="float32"):
    """One op; outs: output slots. Returns the output variables by slot."""
    helper = LayerHelper(op)
    created = {s: helper.create_variable_for_type_inference(dtype) for s in outs}
    helper.append_op(type=op, inputs=inputs, outputs=created, attrs=attrs)
    return created


def affine_channel(name, shape, c, attrs):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, low=-2, high=2)
        s = p.input("scale", [c], low=0.5, high=1.5)
        b = p.input("bias", [c])
        p.case(name, [raw_op("affine_channel", {"X": x, "Scale": s, "Bias": b}, ["Out"], attrs)["Out"]])


def single(name, op, shape, attrs, outs=("Out",), low=-2.0, high=2.0, dtype="float32", grads=True, notes=""):
    """An op of X alone; outputs after the first are recorded, not in the loss."""
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, low=low, high=high, dtype=dtype)
        o = raw_op(op, {"X": x}, list(outs), attrs, dtype)
        p.case(name, [o[outs[0]]], extra=[o[s] for s in outs[1:]], grads=grads, notes=notes)


def index_sample(name, shape, k, index_dtype, dtype="float32"):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-3, high=3)
        # 2k draws from fewer than 2k columns: some rows repeat an index, so
        # the gradient must add the repeats up.
        idx = p.input("index", [shape[0], k], dtype=index_dtype, low=0, high=shape[1], grad=False)
        p.case(name, [raw_op("index_sample", {"X": x, "Index": idx}, ["Out"], {}, dtype)["Out"]])


def main():
    oc.start(__file__, FAMILY)
    affine_channel("affine_channel_nchw", [2, 3, 3, 2], 3, {"data_layout": "NCHW"})
    affine_channel("affine_channel_nhwc", [2, 2, 3, 4], 4, {"data_layout": "NHWC"})
    affine_channel("affine_channel_default_layout", [2, 3, 2, 5], 5, {})
    # Paddle 2.6.2's shuffle_channel_grad applies the forward permutation to
    # Out@GRAD instead of its inverse: right only when C = group^2 (the
    # permutation is then its own inverse). fluidc's gradient is the inverse
    # (checked by finite differences in kernels.shuffle), so Paddle's
    # gradient is compared only where the two agree.
    single("shuffle_channel_g3_forward", "shuffle_channel", [2, 6, 2, 3], {"group": 3}, grads=False,
           notes="forward only: Paddle's gradient for C != group^2 is the forward permutation, not its inverse")
    single("shuffle_channel_g2_c4", "shuffle_channel", [2, 4, 2, 3], {"group": 2})
    single("lrn_defaults", "lrn", [2, 7, 3, 2], {}, outs=("Out", "MidOut"))
    single("lrn_n5_nchw", "lrn", [2, 6, 2, 3], {"n": 5, "k": 1.0, "alpha": 0.5, "beta": 0.75, "data_format": "NCHW"},
           outs=("Out", "MidOut"))
    single("lrn_n3_nhwc", "lrn", [2, 3, 2, 6], {"n": 3, "k": 1.5, "alpha": 0.3, "beta": 0.6, "data_format": "NHWC"},
           outs=("Out", "MidOut"))
    single("norm_axis1", "norm", [2, 4, 3, 2], {"axis": 1, "epsilon": 1e-10}, outs=("Out", "Norm"))
    single("norm_axis_last", "norm", [3, 5], {"axis": -1, "epsilon": 1e-6}, outs=("Out", "Norm"))
    single("temporal_shift_nchw", "temporal_shift", [6, 8, 2, 2], {"seg_num": 3, "shift_ratio": 0.25})
    single("temporal_shift_nhwc", "temporal_shift", [4, 2, 2, 10],
           {"seg_num": 2, "shift_ratio": 0.2, "data_format": "NHWC"})
    index_sample("index_sample_int64", [4, 6], 5, "int64")
    index_sample("index_sample_int32_fp64", [3, 4], 6, "int32", dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
