// transpilers/dead_code.h - removes block-0 ops whose results nothing uses (inference builds).
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

/// Removes the ops of block 0 that contribute to no result. Live are: the
/// fetch ops and the variables in `keep` (--fetch), ops with the
/// kSideEffect, kOptimizer or kOwnsBlock traits (a sub-block's effects are
/// not looked into), ops that write a persistable variable (state that
/// outlives the run), ops of unknown type, and, transitively, every op
/// writing an input of a live op. Variables stay declared. A program with
/// no fetch op and an empty `keep` is left alone: nothing names its results.
/// Returns the number of ops removed.
int remove_dead_code(pb::ProgramDesc& prog, const std::vector<std::string>& keep);

}  // namespace fluidc
