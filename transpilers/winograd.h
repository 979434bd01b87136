// transpilers/winograd.h - inference: 3x3 convolutions on constant filters become Winograd convolutions.
#pragma once

#include "compiler/ir/program.h"

namespace fluidc {

/// For each block-0 op the table says Winograd's algorithm computes
/// (OpDef::winograd: conv2d with a 3x3, stride-1, undilated, ungrouped NCHW
/// window) whose filter is a float32 constant (a persistable no op writes,
/// or the result of pure ops on such values alone, as fold-batch-norm's
/// folded weights are) and enough channels (winograd_pays): a
/// filter-transform op (winograd_filter) is inserted before it, which the
/// fold-constants plan runs once per parameter load,
/// and the op becomes conv2d_winograd on the transformed filter, with the
/// same bias, activation and output. The values are the convolution's up to
/// rounding (a few more additions per output; kernels/cpu/conv_winograd.cc).
/// The transformed filter takes 16/9 of the filter's bytes, kept for the
/// binary's life. Returns the number of convolutions rewritten.
int use_winograd(pb::ProgramDesc& prog);

/// Whether the transforms cost less than the multiplications they save,
/// for a convolution of `in` to `out` channels. bench/conv_rate at batch 1,
/// 1 thread (2026-11-28, conv2d_winograd against the implicit GEMM):
/// 64 -> 64 at 1.3-1.4x; 32 -> 32 at 1.07x (56x56) and 1.17x (24x160);
/// 32 -> 64 at 1.09-1.25x; 48 -> 48 at 1.09x; but 64 -> 32 at 0.94x,
/// 24 -> 24 at 0.88x, 16 -> 16 at 0.74x and 32 -> 16 at 0.75x. So: 64 and
/// more each way, or from 32 input channels on when the output has as many.
inline bool winograd_pays(int64_t in, int64_t out) { return (in >= 64 && out >= 64) || (in >= 32 && out >= in); }

}  // namespace fluidc
