// compiler/analysis/load_time.h - which ops of an inference program compute values from parameters alone.
#pragma once

#include <string>
#include <vector>

#include "compiler/analysis/program_info.h"
#include "compiler/ir/program.h"

namespace fluidc {

/// Per op of block 0 of `main`: true for an op whose result depends only on
/// parameters, so a binary computes it once per parameter load rather than
/// on every run (the fold-constants plan; fold-batch-norm's folded weights
/// are such ops). An op qualifies when the program is not a trainer, the op
/// is deterministic and pure (none of the traits feed, fetch, random, side
/// effect, owns-block, optimizer), every input is a persistable tensor that
/// no op writes or the output of an earlier such op, and every output is
/// written by it alone, read by no other block's writer, and is not
/// persistable, fed or fetched.
std::vector<bool> load_time_ops(const Program& main, const ProgramInfo& info);

/// "block 0, load-time ops: 3, 4, 7" (or "no load-time ops"), for listings.
std::string describe_load_time(const std::vector<bool>& load_time);

}  // namespace fluidc
