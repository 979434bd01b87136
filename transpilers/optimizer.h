// transpilers/optimizer.h - appends sgd, momentum or adam updates (and their state) to a program with gradients.
#pragma once

#include <string>

#include "compiler/diagnostics.h"
#include "compiler/ir/program.h"
#include "transpilers/autodiff.h"

namespace fluidc {

struct OptimizerOptions {
  std::string type = "sgd";  ///< sgd | momentum | adam
  double learning_rate = 0.01;
  double momentum = 0.9;     ///< momentum's mu
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double weight_decay = 0;   ///< L2 coefficient (0: none)
  double clip_norm = 0;      ///< global-norm gradient clipping threshold (0: none)
};

/// Appends to block 0 of `main` one optimizer op per (parameter, gradient),
/// op_role Optimize, with Paddle's state variables (learning_rate_0,
/// <param>_velocity_0, <param>_moment1_0/_moment2_0, <param>_beta1_pow_acc_0
/// /_beta2_pow_acc_0), and to `startup` the fill_constant ops that
/// initialise them (a startup program is required for state). L2 weight
/// decay is momentum's regularization attribute, or for sgd and adam a
/// `scale` + `sum` on the gradient, as Paddle's L2Decay writes them.
/// Global-norm clipping comes first (as in Paddle): every gradient is
/// scaled by clip_norm / max(global_norm, clip_norm) with the ops Paddle's
/// ClipGradByGlobalNorm writes (squared_l2_norm, sum, sqrt, elementwise_max,
/// elementwise_div, elementwise_mul).
void append_optimizer(pb::ProgramDesc& main, pb::ProgramDesc& startup, const ParamGrads& params,
                      const OptimizerOptions& options, Diagnostics& diags);

}  // namespace fluidc
