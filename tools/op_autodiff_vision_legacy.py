#!/usr/bin/env python3
"""References for fluidc's OWN backward pass through the Fluid 1.x vision ops
(tools/op_cases_vision_legacy.py checks their kernels against Paddle's own
backward): one forward-only chain affine_channel -> shuffle_channel -> lrn ->
norm -> temporal_shift -> index_sample, whose gradient ops fluidc's autodiff
writes from the op table's generic rule (slots by name). Written like
tools/op_autodiff_indexing.py (test/fixtures/op_autodiff/<case>/).

shuffle_channel uses C = group^2 (4 channels, group 2),
where Paddle 2.6.2's gradient (the forward permutation applied again)
equals the true one, the inverse (see tools/op_cases_vision_legacy.py).

  python3 tools/op_autodiff_vision_legacy.py
"""

import numpy as np

from paddle import reshape
from paddle.base.layer_helper import LayerHelper

from op_autodiff_indexing import case  # noqa: E402  (imports fixturelib first)


def op(t, ins, outs, attrs):
    h = LayerHelper(t)
    o = {s: h.create_variable_for_type_inference("float32") for s in outs}
    h.append_op(type=t, inputs=ins, outputs=o, attrs=attrs)
    return o


def vision_legacy_chain(param, feed):
    x = param("x", [4, 4, 2, 2])
    y = op("affine_channel", {"X": x, "Scale": param("scale", [4]), "Bias": param("bias", [4])}, ["Out"],
           {"data_layout": "NCHW"})["Out"]
    y = op("shuffle_channel", {"X": y}, ["Out"], {"group": 2})["Out"]
    y = op("lrn", {"X": y}, ["Out", "MidOut"], {"n": 3, "k": 1.0, "alpha": 0.5, "beta": 0.75})["Out"]
    y = op("norm", {"X": y}, ["Out", "Norm"], {"axis": 1, "epsilon": 1e-10})["Out"]
    y = op("temporal_shift", {"X": y}, ["Out"], {"seg_num": 2, "shift_ratio": 0.25})["Out"]
    idx = feed("idx", [4, 6], "int64", value=np.asarray([[0, 15, 15, 3, 8, 2], [1, 1, 4, 9, 14, 0],
                                                         [7, 6, 5, 4, 3, 2], [15, 12, 12, 12, 0, 10]]))
    return op("index_sample", {"X": reshape(y, [4, 16]), "Index": idx}, ["Out"], {})["Out"]


def main():
    case("vision_legacy_chain", vision_legacy_chain)


if __name__ == "__main__":
    main()
