#!/usr/bin/env python3
"""References for fluidc's OWN backward pass through bilinear_tensor_product,
roi_align and grid_sampler on a 5-D volume: their gradient ops come from the op
table's generic rule (slots by name), which these check from forward-only
programs, as tools/op_autodiff_indexing.py does (its case() writes
test/fixtures/op_autodiff/<case>/).

No rrelu case: fluidc's autodiff first sets every is_test to false
(transpilers/strip_inference.h), so rrelu trains with random slopes there,
which no Paddle reference can match (test/unit/kernels/rrelu_test.cc checks
the training properties).

  python3 tools/op_autodiff_vision.py
"""

import numpy as np

import paddle.nn.functional as F
from paddle.vision.ops import roi_align

from op_autodiff_indexing import case  # noqa: E402  (imports fixturelib first)


def bilinear_bias(param, feed):
    return F.bilinear(param("x", [3, 4]), param("y", [3, 2]), param("w", [5, 4, 2]), param("b", [1, 5]))


def roi_align_two_images(param, feed):
    rois = feed("rois", [3, 4], value=[[0.6, 1.1, 4.2, 3.9], [-1.3, 0.4, 2.8, 5.6], [2.5, 2.5, 6.4, 4.7]])
    num = feed("rois_num", [2], "int32", value=np.asarray([1, 2]))
    return roi_align(param("img", [2, 2, 5, 6]), rois, num, 2, sampling_ratio=-1, aligned=True)


def grid_sampler_volume(param, feed):
    return F.grid_sample(param("vol", [1, 2, 3, 4, 3]), param("grid", [1, 2, 2, 3, 3]) * 1.2,
                         padding_mode="border", align_corners=False)


def main():
    case("bilinear_bias", bilinear_bias)
    case("roi_align_two_images", roi_align_two_images)
    case("grid_sampler_volume", grid_sampler_volume)


if __name__ == "__main__":
    main()
