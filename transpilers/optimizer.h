// transpilers/optimizer.h - appends an optimizer op per parameter (and its declared state) to a program with gradients.
#pragma once

#include <map>
#include <string>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/program.h"
#include "transpilers/autodiff.h"

namespace fluidc {

struct OptimizerOptions {
  std::string type = "sgd";  ///< any op whose OpDef declares an OptimizerDef (sgd, momentum, adam)
  double learning_rate = 0.01;
  /// Values of the op's optimizer attributes by Paddle name ("mu",
  /// "use_nesterov", "beta1", ...); the OpDef's defaults fill the rest, and
  /// names the op does not declare are ignored.
  std::map<std::string, double> attrs;
  double weight_decay = 0;   ///< L2 coefficient (0: none)
  double clip_norm = 0;      ///< global-norm gradient clipping threshold (0: none)
};

/// Appends to block 0 of `main` one optimizer op per (parameter, gradient),
/// op_role Optimize. The op's OpDef::optimizer says everything type-specific:
/// its state slots (each a persistable `<param><suffix>` variable, shaped like
/// the parameter or [1], e.g. <param>_moment1_0, <param>_beta1_pow_acc_0),
/// their initial values, the attributes to set and how it takes L2 decay.
/// The learning rate (learning_rate_0, one per parameter dtype) and all state
/// take the parameter's dtype; `startup` gets a fill_constant per variable
/// whose str_value holds the exact initial value (its float `value` is only
/// the rounded copy Paddle also writes). L2 weight decay is the op's own
/// regularization attributes when it declares them, else a `scale` + `sum`
/// on the gradient, as Paddle's L2Decay writes them.
/// Global-norm clipping comes first (as in Paddle): every gradient is
/// scaled by clip_norm / max(global_norm, clip_norm) with the ops Paddle's
/// ClipGradByGlobalNorm writes (squared_l2_norm, sum, sqrt, elementwise_max,
/// elementwise_div, elementwise_mul).
void append_optimizer(pb::ProgramDesc& main, pb::ProgramDesc& startup, const ParamGrads& params,
                      const OptimizerOptions& options, Diagnostics& diags);

}  // namespace fluidc
