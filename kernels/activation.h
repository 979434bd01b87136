// kernels/activation.h - unary activations, scale and softmax, with their gradients.
//
// Outputs take X's shape and dtype. relu/sigmoid/tanh/softmax support fp32
// and fp64; square and scale also int32 and int64. Every kernel here may
// write its output over its input (out == x) safely.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `scale`.
struct ScaleAttrs {
  float scale = 1.0f;
  float bias = 0.0f;
  bool bias_after_scale = true;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("scale", &ScaleAttrs::scale);
    f("bias", &ScaleAttrs::bias);
    f("bias_after_scale", &ScaleAttrs::bias_after_scale);
  }
};

/// Attributes of `softmax` and `softmax_grad`.
struct SoftmaxAttrs {
  int axis = -1;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axis", &SoftmaxAttrs::axis);
  }
};

/// Out = sqrt(X).
void sqrt(const Tensor& x, Tensor& out);
/// X@GRAD = Out@GRAD * 0.5 / Out.
void sqrt_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

/// Out = max(X, 0).
void relu(const Tensor& x, Tensor& out);
/// X@GRAD = Out@GRAD * (Out > 0).
void relu_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

/// Out = 1 / (1 + exp(-X)).
void sigmoid(const Tensor& x, Tensor& out);
/// X@GRAD = Out@GRAD * Out * (1 - Out).
void sigmoid_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

/// Out = tanh(X).
void tanh(const Tensor& x, Tensor& out);
/// X@GRAD = Out@GRAD * (1 - Out^2).
void tanh_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

/// Out = X * X.
void square(const Tensor& x, Tensor& out);
/// X@GRAD = Out@GRAD * 2 * X.
void square_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

/// Out = X * scale + bias, or (X + bias) * scale when !bias_after_scale.
/// scale and bias are first converted to X's dtype (as Paddle does, so an
/// integer tensor scaled by 2.5 is scaled by 2).
/// A ScaleTensor (one element, any numeric dtype), when the program
/// computes the factor at run time, wins over the `scale` attribute.
void scale(const Tensor& x, const Tensor* scale_tensor, Tensor& out, const ScaleAttrs& attrs);
/// scale by the attribute.
inline void scale(const Tensor& x, Tensor& out, const ScaleAttrs& attrs) { scale(x, nullptr, out, attrs); }

/// Out = exp(X - max) / sum(exp(X - max)) along `axis` (negative counts from
/// the end). As in Paddle, X - max is clipped below at -64 before exp, so no
/// probability is exactly 0. A 0-D X gives 1.
void softmax(const Tensor& x, Tensor& out, const SoftmaxAttrs& attrs);
/// X@GRAD = (Out@GRAD - sum(Out@GRAD * Out, axis)) * Out.
void softmax_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SoftmaxAttrs& attrs);

}  // namespace fluidc::kernels

#include "kernels/activation_more.h"  // the other unary activations and log_softmax
#include "kernels/activation_unary.h"  // brelu, selu, celu, the shrinks, logsigmoid, softsign, thresholded_relu
#include "kernels/unary_math.h"  // log1p/log2/log10/expm1, inverse and hyperbolic trig, round/trunc, isnan/isinf/isfinite
