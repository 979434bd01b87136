// compiler/codegen/liveness.h - where each block-0 variable of a program is first and last touched, all blocks included.
//
// The memory plan needs, per variable, the span of the step during which
// its bytes must be kept. Positions are block-0 op indices: an op that runs
// a sub-block (a `while`, a conditional block, their gradients) touches,
// at its own position, every block-0 variable any op of that sub-block (or
// of the blocks nested in it) names. A loop body therefore keeps what it
// reads alive for the whole loop, across iterations, and a gradient block
// keeps alive what its forward block touched (while_grad replays the
// forward loop's records and restores its loop variables).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

struct VarLiveness {
  int first = -1;  ///< the first block-0 op that touches the variable
  int last = -1;   ///< the last one
  /// The first touch is a plain write: an output of a block-0 op that does
  /// not also read it and does not reach it through a sub-block (which may
  /// read it first, or write it only on some runs). Only such a variable
  /// holds nothing worth keeping between steps.
  bool defined_first = false;
};

/// Liveness of every variable declared in block 0 of `main` that some op
/// touches, by name. Variables of sub-blocks are not listed.
std::map<std::string, VarLiveness> block0_liveness(const Program& main);

/// The sub-blocks an op runs (its BLOCK and BLOCKS attributes, in range).
std::vector<int> op_sub_blocks(const pb::OpDesc& op, int num_blocks);

/// Liveness of the variables declared in sub-block `block` of `main`, in
/// that block's op positions, a block nested in it touching at the
/// position of the op that runs it (as block0_liveness does for block 0).
/// One iteration of a loop body is one pass over these positions.
std::map<std::string, VarLiveness> block_liveness(const Program& main, int block);

/// Every variable name the ops of `prog` (all blocks) name, plus its
/// declared variables: what a startup program shares with main's block 0.
std::set<std::string> names_touched(const Program& prog);

}  // namespace fluidc
