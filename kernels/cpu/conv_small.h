// kernels/cpu/conv_small.h - private: direct fp32 convolution at stride 1 for few input taps (LeNet's first layer) or few output channels (a head's last conv), forward and Filter@GRAD.
//
// With C*KH*KW of a few dozen (1 input channel, 5x5), im2col + GEMM runs a product of K = 25 per
// register tile: packing and stores cost more than the multiplications (20-35 GFLOP/s). Here each
// output row is computed in vectors of 16 columns from a zero-padded copy of the image, all taps
// summed in registers before one store.
#pragma once

#include <cstdint>

#include "kernels/cpu/conv_epilogue.h"
#include "kernels/shapes/conv.h"

namespace fluidc::kernels::detail {

/// Whether small_conv_forward takes this convolution: what small_conv_fits
/// accepts, or, as a second form, more than 64 taps into at most 4 output
/// channels (a head's last conv) with output rows of 16 or more.
bool small_conv_forward_fits(const shapes::ConvGeometry& g);

/// Whether the direct kernels take this convolution: 2-D, one group,
/// stride 1, no dilation, C*KH*KW <= 64 and not a 1x1 window over 8 or more
/// channels (the GEMM's), output rows of 8 or more.
bool small_conv_fits(const shapes::ConvGeometry& g);

/// y[N, M, OH, OW] from x[N, C, H, W] and w[M, C, KH, KW], channels first,
/// for what small_conv_forward_fits accepts. Each output sums its taps in
/// the filter's order (c, kh, kw). The epilogue (bias, activation) runs on
/// each task's band of output rows as soon as it is done.
void small_conv_forward(const shapes::ConvGeometry& g, const float* x, const float* w, float* y,
                        const ConvEpilogue<float>& ep);

/// dw[M, C, KH, KW] (overwritten) = the sum over images and output
/// positions of dy * the input under the tap.
void small_conv_filter_grad(const shapes::ConvGeometry& g, const float* x, const float* dy, float* dw);

}  // namespace fluidc::kernels::detail
