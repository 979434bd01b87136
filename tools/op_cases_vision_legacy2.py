#!/usr/bin/env python3
"""Per-op Paddle references for the remaining Fluid 1.x OCR / detection /
speech ops (see tools/op_caselib.py): ctc_align (LoD and padded forms, merge
on and off, an all-blank input), im2sequence (strides, paddings, the Y /
out_stride form), crop (shape attribute, Y, Offsets tensor, -1 batch),
crop_tensor (attributes, Shape / Offsets tensors, ShapeTensor /
OffsetsTensor lists, -1 dims), density_prior_box (default and explicit
steps, flatten_to_2d, clip off), row_conv (LoD with a sequence shorter than the context, the
padded 3-D form), the v1 resize ops linear_interp / trilinear_interp / bicubic_interp (sizes
from attributes, a scale, OutSize, SizeTensor, the Scale tensor; both layouts) and unique (Fluid 1.x's unsorted form, sorted with every
output, along an axis), forward and input gradients where Paddle has them.
Most of these ops have no Paddle 2.6 Python API: each case appends the op.

  python3 tools/op_cases_vision_legacy2.py   # rewrites test/fixtures/op_cases/vision_legacy2/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "vision_legacy2"


def raw_op(op, inputs, outs, attrs, dtypes="float32"):
    """One op; outs: output slots, dtypes one for all or a dict by slot."""
    helper = LayerHelper(op)
    pick = (lambda s: dtypes[s]) if isinstance(dtypes, dict) else (lambda s: dtypes)
    created = {s: helper.create_variable_for_type_inference(pick(s)) for s in outs}
    helper.append_op(type=op, inputs=inputs, outputs=created, attrs=attrs)
    return created


def ctc_align_lod(name, tokens, lengths, attrs, dtype):
    with oc.program(FAMILY) as p:
        x = p.input("x", [len(tokens), 1], dtype=dtype, value=np.array(tokens).reshape(-1, 1), lod=[lengths])
        o = raw_op("ctc_align", {"Input": x}, ["Output"], attrs, dtype)
        p.case(name, [o["Output"]], grads=False)


def ctc_align_padded(name, rows, lengths, attrs, dtype):
    with oc.program(FAMILY) as p:
        x = p.input("x", list(np.shape(rows)), dtype=dtype, value=np.array(rows))
        n = p.input("len", [len(lengths), 1], dtype=dtype, value=np.array(lengths).reshape(-1, 1))
        o = raw_op("ctc_align", {"Input": x, "InputLength": n}, ["Output", "OutputLength"], attrs, dtype)
        p.case(name, [o["Output"], o["OutputLength"]], grads=False)


def im2sequence(name, shape, attrs, real=None):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape)
        ins = {"X": x}
        if real is not None:
            ins["Y"] = p.input("y", [shape[0], 2], value=np.array(real, dtype="float32"), grad=False)
        out = raw_op("im2sequence", ins, ["Out"], attrs)["Out"]
        # Paddle's compile-time rule gives Out [N, C*kh*kw]; its rows are
        # known when run: -1 makes op_caselib probe them for the weight.
        out.desc.set_shape([-1, shape[1] * attrs["kernels"][0] * attrs["kernels"][1]])
        p.case(name, [out], grads=real is None,
               notes="forward only: Paddle's gradient ignores Y" if real is not None else "")


def crop(name, shape, attrs, y_shape=None, offsets=None, dtype="float32"):
    with oc.program(FAMILY) as p:
        ins = {"X": p.input("x", shape, dtype=dtype, low=-3, high=3)}
        if y_shape is not None:
            ins["Y"] = p.input("y", y_shape, grad=False)
        if offsets is not None:
            ins["Offsets"] = p.input("offsets", [len(offsets)], dtype="int32", value=np.array(offsets), grad=False)
        p.case(name, [raw_op("crop", ins, ["Out"], attrs, dtype)["Out"]])


def crop_tensor(name, shape, attrs, shape_t=None, offsets_t=None, shape_list=None, offsets_list=None):
    with oc.program(FAMILY) as p:
        ins = {"X": p.input("x", shape)}
        if shape_t is not None:
            ins["Shape"] = p.input("shape", [len(shape_t)], dtype="int32", value=np.array(shape_t), grad=False)
        if offsets_t is not None:
            ins["Offsets"] = p.input("offsets", [len(offsets_t)], dtype="int64", value=np.array(offsets_t), grad=False)
        if shape_list is not None:
            ins["ShapeTensor"] = [p.input(f"s{i}", [1], dtype="int32", value=np.array([v]), grad=False)
                                  for i, v in enumerate(shape_list)]
        if offsets_list is not None:
            ins["OffsetsTensor"] = [p.input(f"o{i}", [1], dtype="int64", value=np.array([v]), grad=False)
                                    for i, v in enumerate(offsets_list)]
        p.case(name, [raw_op("crop_tensor", ins, ["Out"], attrs)["Out"]])


def density_prior_box(name, feat, image, attrs, dtype="float32"):
    with oc.program(FAMILY) as p:
        f = p.input("feat", feat, dtype=dtype, grad=False)
        img = p.input("image", image, dtype=dtype, grad=False)
        o = raw_op("density_prior_box", {"Input": f, "Image": img}, ["Boxes", "Variances"], attrs, dtype)
        p.case(name, [o["Boxes"], o["Variances"]], grads=False)


def row_conv(name, shape, context, lod=None):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, lod=lod)
        f = p.input("filter", [context, shape[-1]])
        p.case(name, [raw_op("row_conv", {"X": x, "Filter": f}, ["Out"], {})["Out"]])


def unique(name, values, attrs, outs, dtype):
    with oc.program(FAMILY) as p:
        x = p.input("x", list(np.shape(values)), dtype=dtype, value=np.array(values), grad=False)
        it = "int32" if attrs.get("dtype", 3) == 2 else "int64"
        o = raw_op("unique", {"X": x}, outs, attrs, {s: dtype if s == "Out" else it for s in outs})
        p.case(name, [o[s] for s in outs], grads=False)


def interp_v1(name, op, shape, attrs, out_size=None, size_list=None, scale=None):
    """A v1 resize op (no Paddle 2.6 Python API left): OutSize, SizeTensor and Scale as fed inputs."""
    with oc.program(FAMILY) as p:
        ins = {"X": p.input("x", shape)}
        if out_size is not None:
            ins["OutSize"] = p.input("out_size", [len(out_size)], dtype="int32", value=np.array(out_size), grad=False)
        if size_list is not None:
            ins["SizeTensor"] = [p.input(f"size{i}", [1], dtype="int32", value=np.array([v]), grad=False)
                                 for i, v in enumerate(size_list)]
        if scale is not None:
            ins["Scale"] = p.input("scale", [1], value=np.array([scale]), grad=False)
        out = raw_op(op, ins, ["Out"], attrs)["Out"]
        if out_size is not None or size_list is not None or scale is not None:
            out.desc.set_shape([-1] * len(shape))  # sizes known when run: op_caselib probes them
        p.case(name, [out])


def main():
    oc.start(__file__, FAMILY)
    # ctc_align: repeats on both sides of a blank, an empty sequence, a blank that is not 0.
    ctc_align_lod("ctc_align_lod_merge", [1, 1, 0, 1, 2, 2, 3, 0, 0, 3, 3, 1], [5, 0, 7], {"blank": 0}, "int32")
    ctc_align_lod("ctc_align_lod_no_merge_blank2", [2, 1, 1, 2, 0, 0, 2, 3], [3, 5],
                  {"blank": 2, "merge_repeated": False}, "int64")
    ctc_align_lod("ctc_align_lod_all_blank", [0, 0, 0], [2, 1], {}, "int64")
    ctc_align_padded("ctc_align_padded", [[1, 1, 0, 1, 2, 2, 5], [0, 0, 3, 3, 0, 4, 4], [7, 7, 7, 0, 7, 1, 1]],
                     [7, 4, 0], {"padding_value": -1}, "int32")
    ctc_align_padded("ctc_align_padded_no_merge", [[4, 4, 0, 4], [2, 0, 2, 2]], [4, 3],
                     {"merge_repeated": False, "blank": 0, "padding_value": 9}, "int64")
    im2sequence("im2sequence_basic", [2, 2, 5, 4], {"kernels": [2, 2]})
    im2sequence("im2sequence_stride_pad", [2, 3, 6, 5], {"kernels": [3, 2], "strides": [2, 1],
                                                          "paddings": [1, 0, 2, 1]})
    im2sequence("im2sequence_y_out_stride", [3, 2, 6, 6], {"kernels": [2, 2], "out_stride": [2, 2]},
                real=[[12, 12], [7, 9], [4, 11]])
    crop("crop_shape_attr", [4, 5, 6], {"shape": [2, 3, 4], "offsets": [1, 0, 2]})
    crop("crop_y", [4, 5], {"offsets": [2, 1]}, y_shape=[2, 3])
    crop("crop_offsets_tensor", [3, 4, 5], {"shape": [2, 2, 3]}, offsets=[1, 2, 0])
    crop("crop_batch_minus1_fp64", [3, 4, 4], {"shape": [-1, 2, 2], "offsets": [0, 1, 2]}, dtype="float64")
    crop_tensor("crop_tensor_attrs", [4, 5, 6], {"shape": [2, -1, 3], "offsets": [1, 1, 0]})
    crop_tensor("crop_tensor_tensors", [4, 5, 6], {}, shape_t=[3, 2, -1], offsets_t=[0, 3, 2])
    crop_tensor("crop_tensor_lists", [4, 5], {}, shape_list=[2, 4], offsets_list=[1, 1])
    density_prior_box("density_prior_box_basic", [1, 2, 3, 4], [1, 3, 24, 32],
                      {"variances": [0.1, 0.1, 0.2, 0.2], "fixed_sizes": [8.0, 16.0], "fixed_ratios": [1.0, 2.0],
                       "densities": [2, 1]})
    density_prior_box("density_prior_box_steps_flat_noclip", [2, 1, 2, 3], [2, 1, 20, 25],
                      {"variances": [0.1, 0.2, 0.3, 0.4], "fixed_sizes": [12.0], "fixed_ratios": [0.5, 1.0, 3.0],
                       "densities": [3], "step_w": 6.0, "step_h": 9.0, "offset": 0.3, "flatten_to_2d": True,
                       "clip": False})
    row_conv("row_conv_lod", [9, 3], 3, lod=[[3, 2, 4]])
    row_conv("row_conv_padded", [2, 4, 3], 2)
    unique("unique_fluid1_form", [3, 1, 3, 2, 1, 5, 3, 0, 5, 2], {"dtype": 2}, ["Out", "Index"], "int64")
    unique("unique_sorted_all", [2.5, -1.0, 2.5, 7.0, -1.0, 0.0, 7.0, 7.0, 3.0],
           {"is_sorted": True, "return_index": True, "return_inverse": True, "return_counts": True},
           ["Out", "Indices", "Index", "Counts"], "float32")
    unique("unique_axis0_int32", [[1, 2, 3], [0, 5, 1], [1, 2, 3], [0, 5, 0], [0, 5, 1]],
           {"is_sorted": True, "return_index": True, "return_inverse": True, "return_counts": True, "axis": [0]},
           ["Out", "Indices", "Index", "Counts"], "int32")
    unique("unique_axis1_fp64", [[1.0, 0.0, 1.0, 2.0], [3.0, 4.0, 3.0, 1.0]],
           {"is_sorted": True, "return_inverse": True, "axis": [-1], "dtype": 2}, ["Out", "Index"], "float64")
    # v1 resizing: the step is in / out even with a scale (v2 steps by 1/scale).
    interp_v1("linear_interp_v1_align_mode0", "linear_interp", [2, 3, 5],
              {"interp_method": "linear", "out_w": 8, "align_corners": False, "align_mode": 0})
    interp_v1("linear_interp_v1_scale_nhwc", "linear_interp", [2, 5, 3],
              {"interp_method": "linear", "scale": 1.5, "align_corners": False, "align_mode": 1,
               "data_layout": "NHWC"})
    interp_v1("trilinear_interp_v1_align_corners", "trilinear_interp", [1, 2, 3, 4, 2],
              {"interp_method": "trilinear", "out_d": 4, "out_h": 5, "out_w": 3, "align_corners": True})
    interp_v1("trilinear_interp_v1_scale_tensor", "trilinear_interp", [1, 2, 2, 3, 4],
              {"interp_method": "trilinear", "align_corners": False, "align_mode": 0}, scale=1.5)
    interp_v1("bicubic_interp_v1_out_size", "bicubic_interp", [2, 2, 4, 5],
              {"interp_method": "bicubic", "align_corners": False}, out_size=[6, 7])
    interp_v1("bicubic_interp_v1_size_list_nhwc", "bicubic_interp", [1, 4, 3, 2],
              {"interp_method": "bicubic", "align_corners": True, "data_layout": "NHWC", "out_h": 2, "out_w": 2},
              size_list=[5, 6])
    oc.finish()


if __name__ == "__main__":
    main()
