// transpilers/loss.h - builds a loss on a model output and a new label feed, as Paddle's loss layers write it.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc {

struct LossOptions {
  std::string output;          ///< the model output the loss compares with the label
  std::string label;           ///< the new label feed (must not exist yet)
  std::string loss_fn = "mse"; ///< one of loss_functions()
};

/// The loss functions build_loss knows: mse, cross_entropy (the output is
/// probabilities), softmax_cross_entropy (the output is logits).
std::vector<std::string> loss_functions();

/// Appends to block 0 `loss = mean(loss_fn(output, label))` with the ops
/// Paddle's losses write, declares the label (need_check_feed, so it is a
/// feed) and the temporaries, and marks the reduce_mean op_role
/// Forward|Loss, Paddle's mark of the op that writes the loss. Returns the
/// loss variable (`<output>@loss`). Throws UserError on bad input.
std::string build_loss(pb::ProgramDesc& prog, const std::string& origin, const LossOptions& options);

}  // namespace fluidc
