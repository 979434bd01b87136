// compiler/driver/train.h - `--train` and `fluidc opt`: running the transpilers from the command line.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/program.h"
#include "transpilers/optimizer.h"

namespace fluidc {

struct TrainOptions {
  std::string loss;         ///< the loss variable, or with `label` the model output the loss is built on
  std::string label;        ///< a new feed the loss compares the output with ("" = the program has its loss)
  std::string loss_fn = "mse";  ///< with `label`: mse | cross_entropy (output = probabilities) | softmax_cross_entropy (logits)
  std::vector<std::string> no_grad;  ///< variables that get no gradient (besides stop_gradient ones)
  OptimizerOptions optimizer;
  std::vector<std::string> passes = {"autodiff", "optimizer"};
  std::string print_after;  ///< pass name whose output is printed (text ProgramDesc) to stdout
};

/// Turns a forward or inference program into a training program in place:
/// drops feed/fetch ops and sets is_test attributes to false (an exported
/// inference program), builds the loss from `label` when given, then runs
/// the requested passes (autodiff, optimizer) over main and startup.
/// Throws UserError with located diagnostics on bad input.
void make_trainable(pb::ProgramDesc& main, pb::ProgramDesc& startup, const std::string& origin,
                    const TrainOptions& options);

}  // namespace fluidc
