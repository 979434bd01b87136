// kernels/cuda/optimizer.cc - sgd, momentum and adam: shapes checked on the host, scalars read on the device.
#include <string>

#include "kernels/cuda/kernel_util.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

void like_param(const char* op, const DTensor& param, const char* role, const DTensor& t) {
  require_f32(op, role, t);
  if (t.dshape() != param.dshape())
    rt::fail(std::string(op) + ": " + role + " has shape " + t.dshape().str() + " but Param has " +
             param.dshape().str());
}

// A one-element device tensor (learning rate, beta power): read by the kernel.
const float* scalar(const char* op, const char* role, const DTensor& t) {
  require_f32(op, role, t);
  if (t.dnumel() != 1)
    rt::fail(std::string(op) + ": " + role + " must have exactly one element, has shape " + t.dshape().str());
  return f(t);
}

}  // namespace

void sgd(const DTensor& param, const DTensor& learning_rate, const DTensor& grad, DTensor& param_out) {
  const char* op = "sgd";
  require_f32(op, "Param", param);
  like_param(op, param, "Grad", grad);
  const float* lr = scalar(op, "LearningRate", learning_rate);
  param_out.dresize(param.dshape(), rt::DType::kFP32);
  dev::sgd(f(param), lr, f(grad), f(param_out), param.dnumel(), stream());
  cu::launched(op);
}

void momentum(const DTensor& param, const DTensor& grad, const DTensor& velocity, const DTensor& learning_rate,
              DTensor& param_out, DTensor& velocity_out, const MomentumAttrs& attrs) {
  const char* op = "momentum";
  require_f32(op, "Param", param);
  like_param(op, param, "Grad", grad);
  like_param(op, param, "Velocity", velocity);
  const float* lr = scalar(op, "LearningRate", learning_rate);
  if (&param_out == &velocity_out) rt::fail("momentum: ParamOut and VelocityOut are the same tensor");
  param_out.dresize(param.dshape(), rt::DType::kFP32);
  velocity_out.dresize(param.dshape(), rt::DType::kFP32);
  dev::momentum(f(param), f(grad), f(velocity), lr, f(param_out), f(velocity_out), param.dnumel(), attrs.mu,
                attrs.use_nesterov, attrs.regularization_method == "l2_decay", attrs.regularization_coeff, stream());
  cu::launched(op);
}

void adam(const DTensor& param, const DTensor& grad, const DTensor& learning_rate, const DTensor& moment1,
          const DTensor& moment2, const DTensor& beta1_pow, const DTensor& beta2_pow, const DTensor* beta1_tensor,
          const DTensor* beta2_tensor, const DTensor* epsilon_tensor, DTensor& param_out, DTensor& moment1_out,
          DTensor& moment2_out, DTensor* beta1_pow_out, DTensor* beta2_pow_out, const AdamAttrs& attrs) {
  const char* op = "adam";
  require_f32(op, "Param", param);
  like_param(op, param, "Grad", grad);
  like_param(op, param, "Moment1", moment1);
  like_param(op, param, "Moment2", moment2);
  if (&param_out == &moment1_out || &param_out == &moment2_out || &moment1_out == &moment2_out)
    rt::fail("adam: ParamOut, Moment1Out and Moment2Out must be distinct tensors");
  const float* lr = scalar(op, "LearningRate", learning_rate);
  const float* b1p = scalar(op, "Beta1Pow", beta1_pow);
  const float* b2p = scalar(op, "Beta2Pow", beta2_pow);
  const float* b1 = beta1_tensor ? scalar(op, "Beta1Tensor", *beta1_tensor) : nullptr;
  const float* b2 = beta2_tensor ? scalar(op, "Beta2Tensor", *beta2_tensor) : nullptr;
  const float* eps = epsilon_tensor ? scalar(op, "EpsilonTensor", *epsilon_tensor) : nullptr;
  param_out.dresize(param.dshape(), rt::DType::kFP32);
  moment1_out.dresize(param.dshape(), rt::DType::kFP32);
  moment2_out.dresize(param.dshape(), rt::DType::kFP32);
  dev::adam(f(param), f(grad), lr, f(moment1), f(moment2), b1p, b2p, b1, b2, eps, f(param_out), f(moment1_out),
            f(moment2_out), param.dnumel(), attrs.beta1, attrs.beta2, attrs.epsilon, stream());
  cu::launched(op);
  if (attrs.use_global_beta_pow || (!beta1_pow_out && !beta2_pow_out)) return;
  // After the update, which read the old powers (same stream: ordered).
  if (beta1_pow_out) beta1_pow_out->dresize(beta1_pow.dshape(), rt::DType::kFP32);
  if (beta2_pow_out) beta2_pow_out->dresize(beta2_pow.dshape(), rt::DType::kFP32);
  dev::adam_pows(b1p, b2p, beta1_pow_out ? f(*beta1_pow_out) : nullptr, beta2_pow_out ? f(*beta2_pow_out) : nullptr,
                 b1, b2, attrs.beta1, attrs.beta2, stream());
  cu::launched(op);
}

}  // namespace fluidc::kernels::cuda
