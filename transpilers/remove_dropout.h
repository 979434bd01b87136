// transpilers/remove_dropout.h - test-mode dropout (and any op that is a plain scaling at inference) removed.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

/// Rewrites the block-0 ops whose OpDef says they are Out = X * factor at
/// inference (OpDef::inference_scale; dropout with is_test): with factor 1
/// the op goes and later readers of Out read X; otherwise, or when Out must
/// keep its own name (fetched, in `keep`, persistable, read by a sub-block,
/// or X is written again later), the op becomes `scale` by the factor, which
/// the fuse pass folds into its neighbours. An op whose other outputs (the
/// dropout Mask) are read stays. Returns the number of ops rewritten.
int remove_dropout(pb::ProgramDesc& prog, const std::vector<std::string>& keep);

}  // namespace fluidc
