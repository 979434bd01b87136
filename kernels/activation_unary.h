// kernels/activation_unary.h - the clamping, shrinking and sigmoid-like activations (brelu ... thresholded_relu).
//
// Included by kernels/activation.h (the family's header). Like those of
// kernels/activation_more.h, each forward kernel takes fp32 or fp64, gives
// Out X's shape and dtype and may write Out over X; each gradient takes the
// forward's attribute struct and the slots Paddle 2.6 gives its grad op
// (X or Out, then Out@GRAD); X@GRAD may alias any input. The attribute
// defaults are those Paddle 2.6 fills into an op that omits them (which
// differ from some Python defaults: F.hardtanh writes -1 and 1).
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `brelu` (F.hardtanh): Out = min(max(X, t_min), t_max).
struct BreluAttrs {
  float t_min = 0.0f;
  float t_max = 24.0f;
  template <class F>
  static void fields(F&& f) {
    f("t_min", &BreluAttrs::t_min);
    f("t_max", &BreluAttrs::t_max);
  }
};

/// Attributes of `selu`: Out = scale * (X > 0 ? X : alpha * e^X - alpha).
struct SeluAttrs {
  float scale = 1.0507010221481323f;
  float alpha = 1.6732631921768188f;
  template <class F>
  static void fields(F&& f) {
    f("scale", &SeluAttrs::scale);
    f("alpha", &SeluAttrs::alpha);
  }
};

/// Attributes of `celu`: Out = max(X, 0) + min(alpha * (e^(X / alpha) - 1), 0).
struct CeluAttrs {
  float alpha = 1.0f;
  template <class F>
  static void fields(F&& f) {
    f("alpha", &CeluAttrs::alpha);
  }
};

/// Attributes of `softshrink`: Out = X - lambda above lambda, X + lambda
/// below -lambda, 0 between.
struct SoftshrinkAttrs {
  float lambda = 0.5f;
  template <class F>
  static void fields(F&& f) {
    f("lambda", &SoftshrinkAttrs::lambda);
  }
};

/// Attributes of `hard_shrink`: Out = X where |X| > threshold, else 0.
struct HardShrinkAttrs {
  float threshold = 0.5f;
  template <class F>
  static void fields(F&& f) {
    f("threshold", &HardShrinkAttrs::threshold);
  }
};

/// Attributes of `thresholded_relu`: Out = X > threshold ? X : 0.
struct ThresholdedReluAttrs {
  float threshold = 1.0f;
  template <class F>
  static void fields(F&& f) {
    f("threshold", &ThresholdedReluAttrs::threshold);
  }
};

void brelu(const Tensor& x, Tensor& out, const BreluAttrs& a);
/// X@GRAD = Out@GRAD where t_min < X < t_max, else 0.
void brelu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const BreluAttrs& a);

/// Out = log(sigmoid(X)) = -softplus(-X).
void logsigmoid(const Tensor& x, Tensor& out);
/// X@GRAD = Out@GRAD * sigmoid(-X).
void logsigmoid_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

void selu(const Tensor& x, Tensor& out, const SeluAttrs& a);
/// From Out, as Paddle: X@GRAD = Out@GRAD * (Out > 0 ? scale : Out + scale * alpha).
void selu_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SeluAttrs& a);

void celu(const Tensor& x, Tensor& out, const CeluAttrs& a);
/// X@GRAD = Out@GRAD * (X > 0 ? 1 : e^(X / alpha)).
void celu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const CeluAttrs& a);

/// Out = X / (1 + |X|); X@GRAD = Out@GRAD / (1 + |X|)^2.
void softsign(const Tensor& x, Tensor& out);
void softsign_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

void softshrink(const Tensor& x, Tensor& out, const SoftshrinkAttrs& a);
/// X@GRAD = Out@GRAD where |X| > lambda, else 0.
void softshrink_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SoftshrinkAttrs& a);

void hard_shrink(const Tensor& x, Tensor& out, const HardShrinkAttrs& a);
/// X@GRAD = Out@GRAD where |X| > threshold, else 0.
void hard_shrink_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const HardShrinkAttrs& a);

/// Out = X - tanh(X); X@GRAD = Out@GRAD * tanh(X)^2.
void tanh_shrink(const Tensor& x, Tensor& out);
void tanh_shrink_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

void thresholded_relu(const Tensor& x, Tensor& out, const ThresholdedReluAttrs& a);
/// X@GRAD = Out@GRAD where X > threshold, else 0.
void thresholded_relu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const ThresholdedReluAttrs& a);

}  // namespace fluidc::kernels
