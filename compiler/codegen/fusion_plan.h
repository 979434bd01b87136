// compiler/codegen/fusion_plan.h - the fuse pass: which elementwise chains codegen writes as one loop.
//
// The plan is a side table of the main program: it names ops by (block,
// index), so it stays valid only for the program it was made from. The
// pipeline makes it after every pass that rewrites ops; targets read it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/codegen/fusion.h"

namespace fluidc {

struct FusionPlan {
  /// Block index -> its chains in op order (blocks without chains absent).
  std::map<int, std::vector<FusedChain>> blocks;

  /// The chains of `block` (empty when it has none).
  const std::vector<FusedChain>& chains(int block) const;
  size_t num_chains() const;
};

/// The fuse pass: find_fused_chains over every block of `main`. `info`
/// must already list every fetched variable (those are never fused away).
FusionPlan plan_fusion(const Program& main, const ProgramInfo& info);

/// The side-table file `fluidc opt` writes beside its output (OUT.fusion):
/// a comment header, then one line per chain,
///   chain block=0 ops=3,4,5,6 dtype=FP32 rows=1,0,0,0  # elementwise_add -> relu -> ...
/// (`rows`: per op, how its second operand fits the value, OperandFit's
/// number: 0 same shape, 1 a row under Paddle's axis rule, 2 one element;
/// then `swap=0,1,..`, only when some op takes the value as Y). The op
/// types after `#` are for readers; read_fusion_plan checks them.
std::string fusion_plan_text(const FusionPlan& plan, const Program& main);

/// Parses fusion_plan_text's format and checks it against `main` (the ops
/// exist, are elementwise and have the recorded types). Throws UserError
/// naming `path` and the line.
FusionPlan read_fusion_plan(const std::string& text, const std::string& path, const Program& main);

/// One line per chain for listings: "block 0, ops 3-6: add -> relu (FP32)".
std::string describe_fusion_plan(const FusionPlan& plan, const Program& main);

}  // namespace fluidc
