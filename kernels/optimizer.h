// kernels/optimizer.h - sgd, momentum and adam parameter updates with dense gradients.
//
// Each kernel reproduces Paddle 2.6's CPU update formula in the same
// arithmetic order (fp32 math for fp32 parameters), so compiled trainers
// track Paddle step for step. Outputs are normally the inputs themselves
// (ParamOut = Param, ...): every update reads element i of each input
// before writing element i of each output, so that is safe. fp32 and fp64.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// ParamOut = Param - LearningRate[0] * Grad.
void sgd(const Tensor& param, const Tensor& learning_rate, const Tensor& grad, Tensor& param_out);

/// Attributes of `momentum`.
struct MomentumAttrs {
  float mu = 0.0f;
  bool use_nesterov = false;
  std::string regularization_method;
  float regularization_coeff = 0.0f;
  float rescale_grad = 1.0f;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("mu", &MomentumAttrs::mu, kRequiredAttr);
    f("use_nesterov", &MomentumAttrs::use_nesterov);
    f("regularization_method", &MomentumAttrs::regularization_method);
    f("regularization_coeff", &MomentumAttrs::regularization_coeff);
    f("rescale_grad", &MomentumAttrs::rescale_grad);
  }
};

/// g = Grad (+ regularization_coeff * Param when regularization_method is
/// "l2_decay"); VelocityOut = Velocity * mu + g;
/// ParamOut = Param - (g + VelocityOut * mu) * lr   (use_nesterov)
///          = Param - lr * VelocityOut              (otherwise).
/// rescale_grad is accepted and ignored: Paddle's CPU kernel ignores it too
/// (only its GPU kernel multiplies the gradient by it).
void momentum(const Tensor& param, const Tensor& grad, const Tensor& velocity, const Tensor& learning_rate,
              Tensor& param_out, Tensor& velocity_out, const MomentumAttrs& attrs);

/// Attributes of `adam`.
struct AdamAttrs {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
  bool lazy_mode = false;
  bool use_global_beta_pow = false;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("beta1", &AdamAttrs::beta1);
    f("beta2", &AdamAttrs::beta2);
    f("epsilon", &AdamAttrs::epsilon);
    f("lazy_mode", &AdamAttrs::lazy_mode);
    f("use_global_beta_pow", &AdamAttrs::use_global_beta_pow);
  }
};

/// With b1p = Beta1Pow[0], b2p = Beta2Pow[0] (the powers *before* this step):
///   lr' = lr * (sqrt(1 - b2p) / (1 - b1p)),  eps' = epsilon * sqrt(1 - b2p)
///   Moment1Out = beta1 * m1 + (1 - beta1) * g
///   Moment2Out = beta2 * m2 + (1 - beta2) * g * g
///   ParamOut   = p + (-lr') * (Moment1Out / (sqrt(Moment2Out) + eps'))
///   Beta1PowOut = b1p * beta1, Beta2PowOut = b2p * beta2 — written only when
///   !use_global_beta_pow and the output is given.
/// lazy_mode only matters for sparse gradients; with dense ones it is a no-op.
/// Beta1Tensor, Beta2Tensor and EpsilonTensor, when given (Adam built with a
/// tensor hyper-parameter), replace the beta1, beta2 and epsilon attributes.
void adam(const Tensor& param, const Tensor& grad, const Tensor& learning_rate, const Tensor& moment1,
          const Tensor& moment2, const Tensor& beta1_pow, const Tensor& beta2_pow, const Tensor* beta1_tensor,
          const Tensor* beta2_tensor, const Tensor* epsilon_tensor, Tensor& param_out,
          Tensor& moment1_out, Tensor& moment2_out, Tensor* beta1_pow_out, Tensor* beta2_pow_out,
          const AdamAttrs& attrs);

}  // namespace fluidc::kernels
