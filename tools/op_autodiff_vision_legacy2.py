#!/usr/bin/env python3
"""References for fluidc's OWN backward pass through the issue-16 Fluid 1.x
ops with gradients (tools/op_cases_vision_legacy2.py checks their kernels
against Paddle's own backward): one forward-only chain bicubic_interp (v1) ->
crop_tensor -> crop -> im2sequence -> row_conv (3-D form) -> linear_interp
(v1), whose gradient ops fluidc's autodiff writes from the op table's generic
rule (slots by name). Written like tools/op_autodiff_indexing.py
(test/fixtures/op_autodiff/<case>/).

  python3 tools/op_autodiff_vision_legacy2.py
"""

from paddle import reshape
from paddle.base.layer_helper import LayerHelper

from op_autodiff_indexing import case  # noqa: E402  (imports fixturelib first)


def op(t, ins, attrs, shape=None):
    h = LayerHelper(t)
    out = h.create_variable_for_type_inference("float32")
    h.append_op(type=t, inputs=ins, outputs={"Out": out}, attrs=attrs)
    if shape is not None:
        out.desc.set_shape(shape)  # Paddle's compile-time rule for im2sequence gives [N, C*kh*kw]
    return out


def vision_legacy2_chain(param, feed):
    y = op("bicubic_interp", {"X": param("x", [2, 2, 4, 3])},
           {"interp_method": "bicubic", "out_h": 6, "out_w": 5, "align_corners": False})
    y = op("crop_tensor", {"X": y}, {"shape": [2, 2, 5, -1], "offsets": [0, 0, 1, 1]})
    y = op("crop", {"X": y}, {"shape": [2, 2, 4, 4], "offsets": [0, 0, 1, 0]})
    y = op("im2sequence", {"X": y}, {"kernels": [2, 2], "strides": [2, 2]}, shape=[8, 8])
    y = op("row_conv", {"X": reshape(y, [2, 4, 8]), "Filter": param("filter", [2, 8])}, {})
    return op("linear_interp", {"X": y}, {"interp_method": "linear", "out_w": 11, "align_corners": True})


def main():
    case("vision_legacy2_chain", vision_legacy2_chain)


if __name__ == "__main__":
    main()
