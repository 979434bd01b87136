#!/usr/bin/env python3
"""Per-op Paddle references for the conv family (see tools/op_caselib.py):
forward output and the Input and Filter gradients of conv2d, depthwise_conv2d,
conv3d, conv2d_transpose, depthwise_conv2d_transpose and conv3d_transpose over their attribute
variants (padding, stride, dilation, groups, asymmetric paddings, SAME/VALID,
NHWC, output_padding/output_size), and unfold/fold (im2col and col2im as ops) with their
X gradients.

  python3 tools/op_cases_conv.py   # rewrites test/fixtures/op_cases/conv/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle.nn.functional as F

FAMILY = "conv"


def conv2d(name, x_shape, w_shape, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", x_shape)
        w = p.input("w", w_shape)
        p.case(name, [F.conv2d(x, w, **kw)])


def conv3d(name, x_shape, w_shape, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", x_shape)
        w = p.input("w", w_shape)
        p.case(name, [F.conv3d(x, w, **kw)])


def conv2d_transpose(name, x_shape, w_shape, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", x_shape)
        w = p.input("w", w_shape)
        p.case(name, [F.conv2d_transpose(x, w, **kw)])


def conv3d_transpose(name, x_shape, w_shape, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", x_shape)
        w = p.input("w", w_shape)
        p.case(name, [F.conv3d_transpose(x, w, **kw)])


def unfold(name, x_shape, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", x_shape)
        p.case(name, [F.unfold(x, **kw)])


def fold(name, x_shape, **kw):
    with oc.program(FAMILY) as p:
        x = p.input("x", x_shape)
        p.case(name, [F.fold(x, **kw)])


def main():
    oc.start(__file__, FAMILY)
    conv2d("conv2d_pad1", [2, 3, 7, 6], [4, 3, 3, 3], padding=1)
    conv2d("conv2d_stride2_dilation2", [2, 3, 9, 8], [4, 3, 3, 3], stride=2, padding=2, dilation=2)
    conv2d("conv2d_groups2", [2, 4, 6, 6], [6, 2, 3, 2], padding=[1, 0], groups=2)
    conv2d("conv2d_asymmetric_pads", [2, 3, 7, 7], [4, 3, 3, 3], stride=[2, 1], padding=[1, 2, 0, 1])
    conv2d("conv2d_same", [2, 3, 7, 8], [4, 3, 3, 3], stride=2, padding="SAME")
    # Paddle's SAME sets the dilations to 1.
    conv2d("conv2d_same_dilation2", [2, 3, 7, 6], [4, 3, 3, 3], padding="SAME", dilation=2)
    conv2d("conv2d_valid", [2, 3, 6, 7], [4, 3, 2, 3], padding="VALID")
    conv2d("conv2d_nhwc", [2, 6, 7, 3], [4, 3, 3, 3], stride=[1, 2], padding=1, data_format="NHWC")
    conv2d("conv2d_1x1", [2, 5, 6, 6], [4, 5, 1, 1])
    # Few output channels, many taps (a head's last conv; kernels/cpu/conv_small.cc, forward_rows_single):
    # one channel over rows that end inside the second and fifth column vectors, and two channels.
    conv2d("conv2d_one_out_channel", [1, 16, 5, 70], [1, 16, 3, 3], padding=1)
    conv2d("conv2d_two_out_channels", [2, 9, 4, 20], [2, 9, 3, 3], padding=[1, 0])
    # groups == in channels: Paddle emits depthwise_conv2d.
    conv2d("depthwise_conv2d", [2, 4, 7, 7], [4, 1, 3, 3], padding=1, groups=4)
    conv2d("depthwise_conv2d_multiplier2_stride2", [2, 3, 8, 9], [6, 1, 3, 3], stride=2, padding=1, groups=3)
    conv2d("depthwise_conv2d_nhwc", [2, 6, 6, 4], [4, 1, 3, 3], padding=[1, 1], groups=4, data_format="NHWC")
    conv3d("conv3d_pad1", [2, 3, 4, 5, 5], [4, 3, 3, 3, 3], padding=1)
    conv3d("conv3d_stride_groups", [2, 4, 5, 6, 5], [4, 2, 2, 3, 2], stride=[1, 2, 2], padding=[1, 0, 1], groups=2)
    conv3d("conv3d_ndhwc", [1, 4, 5, 5, 3], [2, 3, 3, 1, 1], padding=[1, 0, 0], data_format="NDHWC")
    conv2d_transpose("conv2d_transpose_stride2_output_padding", [2, 3, 4, 5], [3, 2, 3, 3], stride=2, padding=1,
                     output_padding=1)
    conv2d_transpose("conv2d_transpose_groups_dilation", [2, 4, 4, 4], [4, 1, 3, 2], stride=[1, 2], padding=[1, 0],
                     dilation=2, groups=2)
    conv2d_transpose("conv2d_transpose_output_size", [1, 2, 4, 4], [2, 3, 3, 3], stride=2, padding=1,
                     output_size=[8, 7])
    conv2d_transpose("conv2d_transpose_same_nhwc", [2, 4, 5, 3], [3, 2, 3, 3], stride=2, padding="SAME",
                     data_format="NHWC")
    conv2d_transpose("depthwise_conv2d_transpose", [2, 3, 4, 4], [3, 1, 3, 3], stride=2, groups=3)
    # Windows that tile the output (kernel == stride, no padding): written without zeroing or adding
    # (kernels/cpu/conv_lowering.h, col2im_tiles): the 2x2 form DB text detectors upsample with, a 3x1
    # one with groups, and a 3-D one.
    conv2d_transpose("conv2d_transpose_tiles_2x2", [2, 5, 3, 4], [5, 3, 2, 2], stride=2)
    conv2d_transpose("conv2d_transpose_tiles_3x1_groups", [1, 4, 3, 5], [4, 2, 3, 1], stride=[3, 1], groups=2)
    conv3d_transpose("conv3d_transpose_tiles_2x2x2", [1, 2, 2, 3, 2], [2, 3, 2, 2, 2], stride=2)
    conv3d_transpose("conv3d_transpose_stride2", [2, 3, 3, 4, 3], [3, 2, 2, 3, 2], stride=[2, 1, 2], padding=[1, 0, 1])
    conv3d_transpose("conv3d_transpose_groups_ndhwc", [1, 3, 4, 3, 4], [4, 1, 3, 2, 2], stride=2, padding=1,
                     output_padding=1, groups=2, data_format="NDHWC")
    unfold("unfold_3x3_pad1", [2, 3, 5, 6], kernel_sizes=3, paddings=1)
    # [top, left, bottom, right] paddings, strides and dilations that differ by axis.
    unfold("unfold_asymmetric", [1, 2, 7, 8], kernel_sizes=[2, 3], strides=[2, 1], paddings=[1, 0, 2, 1],
           dilations=[1, 2])
    # Overlapping windows (stride below the kernel) add up where they meet; gaps (stride above) stay 0.
    fold("fold_overlap", [2, 2 * 3 * 3, 4 * 5], output_sizes=[6, 7], kernel_sizes=3, paddings=[0, 0, 0, 0])
    fold("fold_strided_padded", [1, 3 * 2 * 2, 3 * 3], output_sizes=[7, 7], kernel_sizes=2, strides=3,
         paddings=[1, 1, 0, 0], dilations=1)
    oc.finish()


if __name__ == "__main__":
    main()
