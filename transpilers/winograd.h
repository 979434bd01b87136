// transpilers/winograd.h - inference: 3x3 convolutions on constant filters become Winograd convolutions.
#pragma once

#include "compiler/ir/program.h"

namespace fluidc {

/// For each block-0 op the table says Winograd's algorithm computes
/// (OpDef::winograd: conv2d with a 3x3, stride-1, undilated, ungrouped NCHW
/// window) whose filter is a float32 constant (a persistable no op writes,
/// or the result of pure ops on such values alone, as fold-batch-norm's
/// folded weights are) and has at least kWinogradMinChannels input and
/// output channels: a filter-transform op (winograd_filter) is inserted
/// before it, which the fold-constants plan runs once per parameter load,
/// and the op becomes conv2d_winograd on the transformed filter, with the
/// same bias, activation and output. The values are the convolution's up to
/// rounding (a few more additions per output; kernels/cpu/conv_winograd.cc).
/// The transformed filter takes 16/9 of the filter's bytes, kept for the
/// binary's life. Returns the number of convolutions rewritten.
int use_winograd(pb::ProgramDesc& prog);

/// Fewer channels than this, in or out, and the transforms cost more than
/// the multiplications they save (bench/conv_rate: 16 channels at 56x56 ran
/// at 0.6x the direct convolution, 32 at 112x112 at 1.0x, 64 at 1.2-1.4x).
inline constexpr int64_t kWinogradMinChannels = 64;

}  // namespace fluidc
