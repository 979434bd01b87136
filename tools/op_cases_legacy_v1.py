#!/usr/bin/env python3
"""Per-op Paddle references for ops of Fluid 1.x programs (see tools/op_caselib.py): the 1.x spellings
of ops that have a v2 (reshape, transpose, flatten2, expand, top_k), which fluid.layers wrote before the
v2 ops existed, and the 1.x activations stanh and soft_relu. Paddle 2.6.2 still registers and runs them.
Each op is appended directly, with Paddle's backward through it.
  python3 tools/op_cases_legacy_v1.py   # rewrites test/fixtures/op_cases/legacy_v1/
"""
import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
from paddle.base.layer_helper import LayerHelper

FAMILY = "legacy_v1"
# Paddle 2.6.2's expand_grad checks Out@GRAD against the expand_times attribute even when the counts came
# from ExpandTimes / expand_times_tensor, so it fails there; fluidc's gradient (tile's sum) is checked by
# the attribute case here and by finite differences of tile_grad in test/unit/kernels.
EXPAND_GRAD_NOTE = "forward only: Paddle 2.6.2's expand_grad reads the attribute, not the tensor counts"


def raw(op_type, inputs, attrs, outputs=("Out",), dtypes=None):
    """Appends `op_type`; returns its outputs in `outputs` order (float32 unless `dtypes` says)."""
    helper = LayerHelper(op_type)
    dtypes = dtypes or ["float32"] * len(outputs)
    outs = [helper.create_variable_for_type_inference(d) for d in dtypes]
    helper.append_op(type=op_type, inputs=inputs, outputs={k: v for k, v in zip(outputs, outs)}, attrs=attrs)
    return outs[0] if len(outs) == 1 else outs


def run_time_shape(*outs):
    """Paddle's static shape follows the attribute when a tensor input wins at run time: mark every dim
    unknown, so the case probes the real shape for its loss weights."""
    for o in outs:
        o.desc.set_shape([-1] * len(o.shape))
    return list(outs) if len(outs) > 1 else outs[0]


def flatten2(x, axis):
    helper = LayerHelper("flatten2")
    out = helper.create_variable_for_type_inference(x.dtype)
    xshape = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="flatten2", inputs={"X": x}, outputs={"Out": out, "XShape": xshape}, attrs={"axis": axis})
    return out


def main():
    oc.start(__file__, FAMILY)
    with oc.program(FAMILY) as p:  # 0 copies a dim, -1 is inferred
        x = p.input("x", [2, 3, 4])
        p.case("reshape_attr", [raw("reshape", {"X": x}, {"shape": [0, -1, 2]})])
    with oc.program(FAMILY) as p:  # the shape as a tensor wins over the attribute
        x = p.input("x", [2, 6])
        shape = paddle.full([3], 3, "int32") * paddle.to_tensor([1, 2, 2], "int32") // paddle.to_tensor([3, 1, 3], "int32")
        out = raw("reshape", {"X": x, "Shape": shape}, {"shape": [12, 1, 1]})
        p.case("reshape_shape_tensor", [run_time_shape(out)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 4])
        p.case("transpose", [raw("transpose", {"X": x}, {"axis": [2, 0, 1], "data_format": "AnyLayout"})])
    with oc.program(FAMILY) as p:  # negative axes
        x = p.input("x", [3, 5])
        p.case("transpose_2d", [raw("transpose", {"X": x}, {"axis": [-1, 0]})])
    for axis in (0, 1, 2, 3):
        with oc.program(FAMILY) as p:
            x = p.input("x", [2, 3, 2, 2])
            p.case(f"flatten2_axis{axis}", [flatten2(x, axis)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3])
        p.case("expand_attr", [raw("expand", {"X": x}, {"expand_times": [2, 3]})])
    with oc.program(FAMILY) as p:  # repeats as one tensor (ExpandTimes)
        x = p.input("x", [3, 1, 2])
        times = paddle.to_tensor([1, 4, 2], "int32")
        p.case("expand_times_tensor",
               [run_time_shape(raw("expand", {"X": x, "ExpandTimes": times}, {"expand_times": [1, 1, 1]}))],
               grads=False, notes=EXPAND_GRAD_NOTE)
    with oc.program(FAMILY) as p:  # repeats as a list of 1-element tensors (expand_times_tensor)
        x = p.input("x", [2, 2])
        times = [paddle.full([1], 3, "int32"), paddle.full([1], 1, "int32")]
        p.case("expand_times_list",
               [run_time_shape(raw("expand", {"X": x, "expand_times_tensor": times}, {"expand_times": [1, 1]}))],
               grads=False, notes=EXPAND_GRAD_NOTE)
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 7])
        out, idx = raw("top_k", {"X": x}, {"k": 3}, outputs=("Out", "Indices"), dtypes=["float32", "int64"])
        p.case("top_k", [out, idx])
    with oc.program(FAMILY) as p:  # k = 1 along the last of three axes; ties go to the lower index
        x = p.input("x", [2, 3, 5], value=[[[1, 3, 3, 0, 2]] * 3] * 2)
        out, idx = raw("top_k", {"X": x}, {"k": 1}, outputs=("Out", "Indices"), dtypes=["float32", "int64"])
        p.case("top_k_ties", [out, idx])
    with oc.program(FAMILY) as p:  # K as a tensor wins over k
        x = p.input("x", [3, 6])
        k = paddle.full([1], 4, "int32")
        out, idx = raw("top_k", {"X": x, "K": k}, {"k": 1}, outputs=("Out", "Indices"), dtypes=["float32", "int64"])
        p.case("top_k_tensor", run_time_shape(out, idx))
    with oc.program(FAMILY) as p:  # Paddle's default scales, then others
        x = p.input("x", [4, 5], low=-3, high=3)
        p.case("stanh_default", [raw("stanh", {"X": x}, {})])
    with oc.program(FAMILY) as p:
        x = p.input("x", [4, 5], low=-3, high=3)
        p.case("stanh_scales", [raw("stanh", {"X": x}, {"scale_a": 1.5, "scale_b": 0.5})])
    with oc.program(FAMILY) as p:  # values on both sides of +-threshold: clipped there, zero gradient
        x = p.input("x", [3, 6], low=-4, high=4)
        p.case("soft_relu_threshold", [raw("soft_relu", {"X": x}, {"threshold": 2.0})])
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 6], low=-4, high=4)
        p.case("soft_relu_default", [raw("soft_relu", {"X": x}, {})])
    oc.finish()


if __name__ == "__main__":
    main()
