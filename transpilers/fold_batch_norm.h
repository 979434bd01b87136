// transpilers/fold_batch_norm.h - inference batch_norm folded into the convolution before it.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

/// For each block-0 op the table marks as a per-channel affine map at
/// inference (OpDef::inference_affine: batch_norm with running statistics)
/// whose X is written only by an op that is linear per output channel in a
/// weight (OpDef::channel_linear: conv2d, depthwise_conv2d, conv3d) and read
/// by nothing else: with f = Scale / sqrt(Variance + epsilon), the weight
/// becomes W * f (per output channel) and the op's bias Bias - Mean * f; the
/// batch_norm goes. The folded weight and bias are computed by ops inserted
/// before the convolution that read only persistable variables, which the
/// fold-constants plan runs once per parameter load, not per run. Weights,
/// statistics and the other variables stay untouched (a binary still loads
/// the user's parameter file). Skips anything fetched, in `keep`, read
/// elsewhere or not persistable. Returns the number of batch_norms folded.
int fold_batch_norm(pb::ProgramDesc& prog, const std::vector<std::string>& keep);

}  // namespace fluidc
