// compiler/ir/program_info.h - what a program is: trainer or inference, feeds, fetches, state, loss.
#pragma once

#include <string>
#include <vector>

#include "compiler/diagnostics.h"
#include "compiler/ir/program.h"

namespace fluidc {

/// The roles of a program's variables, derived once from the ProgramDesc
/// and shared by codegen, `fluidc dump` and the build driver.
struct ProgramInfo {
  bool is_trainer = false;              ///< has an op with the kOptimizer trait
  std::vector<std::string> feeds;       ///< in feed-column order
  std::vector<std::string> fetches;     ///< in fetch-column order
  std::vector<std::string> persistables;  ///< tensors that live across runs, sorted by name
  std::vector<std::string> parameters;  ///< persistables an optimizer updates, sorted
  std::string loss;                     ///< trainer: the variable whose gradient seeds backward
};

/// Analyses block 0 of `main`. `loss_override` (from --loss) wins over the
/// loss found from Paddle's op_role marking. Problems (no feeds for a
/// trainer, a named loss that does not exist) go to `diags`.
ProgramInfo analyze_program(const Program& main, const std::string& loss_override, Diagnostics& diags);

/// The loss as Paddle's append_backward marks it: the output of the forward
/// op with op_role Forward|Loss; when that op has several outputs, the one
/// whose gradient the Backward|Loss seed writes. "" when nothing is marked.
std::string marked_loss(const pb::BlockDesc& block);

/// Paddle's op_role bits (OpRole in Paddle's op_proto_maker): Forward|Loss
/// (0x0100) marks the forward op that writes the loss, Backward|Loss
/// (0x0101) the op that writes d(loss)/d(loss) = 1.
inline constexpr int kOpRoleForward = 0x0000;
inline constexpr int kOpRoleBackward = 0x0001;
inline constexpr int kOpRoleOptimize = 0x0002;
inline constexpr int kOpRoleLoss = 0x0100;

/// Paddle's gradient-variable suffix: the gradient of `x` is `x@GRAD`, and an
/// op's gradient slots are named `<slot>@GRAD`. The one definition in the tree;
/// names are built with it, never parsed back to recover metadata.
inline const std::string kGradSuffix = "@GRAD";
/// The gradient variable (or gradient slot) of `name`.
inline std::string grad_var_name(const std::string& name) { return name + kGradSuffix; }

}  // namespace fluidc
