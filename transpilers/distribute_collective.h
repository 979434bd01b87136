// transpilers/distribute_collective.h - collective mode: all-reduce of every gradient (Paddle's GradAllReduce).
#pragma once

#include "transpilers/distribute_plan.h"

namespace fluidc::dist {

/// Rewrites block 0 of `main` and `startup` in place (see distribute.h).
void rewrite_collective(pb::ProgramDesc& main, pb::ProgramDesc& startup, const DistributeOptions& o,
                        const std::string& origin, Diagnostics& diags);

}  // namespace fluidc::dist
