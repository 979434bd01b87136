// kernels/activation_more.h - parameterised and transcendental unary activations, clip, pow, log_softmax.
//
// Included by kernels/activation.h (the family's header). Every forward
// kernel here takes fp32 or fp64, gives Out X's shape and dtype and may
// write Out over X. Each gradient takes the forward's attribute struct and
// the slots Paddle 2.6 gives its grad op (X, Out or both, then Out@GRAD);
// X@GRAD may alias any input (each element is read before it is written).
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `relu6`: Out = min(max(X, 0), threshold).
struct Relu6Attrs {
  float threshold = 6.0f;
  template <class F>
  static void fields(F&& f) {
    f("threshold", &Relu6Attrs::threshold);
  }
};

/// Attributes of `leaky_relu`: Out = X > 0 ? X : alpha * X.
struct LeakyReluAttrs {
  float alpha = 0.02f;
  template <class F>
  static void fields(F&& f) {
    f("alpha", &LeakyReluAttrs::alpha);
  }
};

/// Attributes of `hard_swish`: Out = X * min(max(X + offset, 0), threshold) / scale.
struct HardSwishAttrs {
  float threshold = 6.0f;
  float scale = 6.0f;
  float offset = 3.0f;
  template <class F>
  static void fields(F&& f) {
    f("threshold", &HardSwishAttrs::threshold);
    f("scale", &HardSwishAttrs::scale);
    f("offset", &HardSwishAttrs::offset);
  }
};

/// Attributes of `hard_sigmoid`: Out = min(max(slope * X + offset, 0), 1).
struct HardSigmoidAttrs {
  float slope = 0.2f;
  float offset = 0.5f;
  template <class F>
  static void fields(F&& f) {
    f("slope", &HardSigmoidAttrs::slope);
    f("offset", &HardSigmoidAttrs::offset);
  }
};

/// Attributes of `swish`: Out = X * sigmoid(beta * X).
struct SwishAttrs {
  float beta = 1.0f;
  template <class F>
  static void fields(F&& f) {
    f("beta", &SwishAttrs::beta);
  }
};

/// Attributes of `elu`: Out = X > 0 ? X : alpha * (exp(X) - 1).
struct EluAttrs {
  float alpha = 1.0f;
  template <class F>
  static void fields(F&& f) {
    f("alpha", &EluAttrs::alpha);
  }
};

/// Attributes of `softplus`: Out = beta * X > threshold ? X : log(1 + exp(beta * X)) / beta.
struct SoftplusAttrs {
  float beta = 1.0f;
  float threshold = 20.0f;
  template <class F>
  static void fields(F&& f) {
    f("beta", &SoftplusAttrs::beta);
    f("threshold", &SoftplusAttrs::threshold);
  }
};

/// Attributes of `stanh`: Out = scale_b * tanh(scale_a * X) (Paddle's defaults).
struct StanhAttrs {
  float scale_a = 0.67f;
  float scale_b = 1.7159f;
  template <class F>
  static void fields(F&& f) {
    f("scale_a", &StanhAttrs::scale_a);
    f("scale_b", &StanhAttrs::scale_b);
  }
};

/// Attributes of `soft_relu`: Out = log(1 + exp(X clipped to [-threshold, threshold])).
struct SoftReluAttrs {
  float threshold = 40.0f;
  template <class F>
  static void fields(F&& f) {
    f("threshold", &SoftReluAttrs::threshold);
  }
};

/// Attributes of `mish`: Out = X * tanh(sp), sp = X > threshold ? X : log(1 + exp(X)).
struct MishAttrs {
  float threshold = 20.0f;
  template <class F>
  static void fields(F&& f) {
    f("threshold", &MishAttrs::threshold);
  }
};

/// Attributes of `pow`: Out = X ^ factor (a FactorTensor, when given, wins).
struct PowAttrs {
  float factor = 1.0f;
  template <class F>
  static void fields(F&& f) {
    f("factor", &PowAttrs::factor);
  }
};

/// Attributes of `clip`: Out = min(max(X, min), max) (Min/Max tensors, when
/// given, win). Paddle's clip has no defaults for them: required.
struct ClipAttrs {
  float min = 0.0f;
  float max = 0.0f;
  template <class F>
  static void fields(F&& f) {
    f("min", &ClipAttrs::min, kRequiredAttr);
    f("max", &ClipAttrs::max, kRequiredAttr);
  }
};

/// Attributes of `gelu`: exact 0.5 X (1 + erf(X / sqrt 2)), or with
/// `approximate` Paddle's tanh form 0.5 X (1 + tanh(sqrt(2/pi) (X + 0.044715 X^3))).
struct GeluAttrs {
  bool approximate = false;
  template <class F>
  static void fields(F&& f) {
    f("approximate", &GeluAttrs::approximate);
  }
};

void relu6(const Tensor& x, Tensor& out, const Relu6Attrs& a);
/// X@GRAD = Out@GRAD where 0 < Out < threshold, else 0.
void relu6_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const Relu6Attrs& a);

void leaky_relu(const Tensor& x, Tensor& out, const LeakyReluAttrs& a);
void leaky_relu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const LeakyReluAttrs& a);

void hard_swish(const Tensor& x, Tensor& out, const HardSwishAttrs& a);
void hard_swish_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const HardSwishAttrs& a);

void hard_sigmoid(const Tensor& x, Tensor& out, const HardSigmoidAttrs& a);
/// X@GRAD = Out@GRAD * slope where 0 < Out < 1, else 0.
void hard_sigmoid_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const HardSigmoidAttrs& a);

void swish(const Tensor& x, Tensor& out, const SwishAttrs& a);
void swish_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SwishAttrs& a);

/// Out = X * sigmoid(X).
void silu(const Tensor& x, Tensor& out);
void silu_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

void elu(const Tensor& x, Tensor& out, const EluAttrs& a);
/// X@GRAD = Out@GRAD where X > 0, else Out@GRAD * (Out + alpha).
void elu_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const EluAttrs& a);

void softplus(const Tensor& x, Tensor& out, const SoftplusAttrs& a);
void softplus_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SoftplusAttrs& a);
void stanh(const Tensor& x, Tensor& out, const StanhAttrs& a);
void stanh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const StanhAttrs& a);
void soft_relu(const Tensor& x, Tensor& out, const SoftReluAttrs& a);
/// Paddle's rule, from Out: X@GRAD = Out@GRAD * (1 - exp(-Out)) where -threshold < Out < threshold, else 0.
void soft_relu_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SoftReluAttrs& a);

void mish(const Tensor& x, Tensor& out, const MishAttrs& a);
void mish_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const MishAttrs& a);

/// Out = e^X; X@GRAD = Out@GRAD * Out.
void exp(const Tensor& x, Tensor& out);
void exp_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

/// Out = ln X; X@GRAD = Out@GRAD / X.
void log(const Tensor& x, Tensor& out);
void log_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

/// Out = 1 / sqrt(X); X@GRAD = -0.5 * Out@GRAD * Out^3.
void rsqrt(const Tensor& x, Tensor& out);
void rsqrt_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

/// Out = 1 / X; X@GRAD = -Out@GRAD * Out^2.
void reciprocal(const Tensor& x, Tensor& out);
void reciprocal_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad);

/// Out = |X|; X@GRAD = Out@GRAD * sign(X) (0 at X = 0).
void abs(const Tensor& x, Tensor& out);
void abs_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

/// Out = erf(X); X@GRAD = Out@GRAD * 2 / sqrt(pi) * exp(-X^2).
void erf(const Tensor& x, Tensor& out);
void erf_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

void sin(const Tensor& x, Tensor& out);
void sin_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
void cos(const Tensor& x, Tensor& out);
void cos_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

/// Out = -1, 0 or 1 by the sign of X (no gradient rule: Paddle
/// differentiates it by a scale by 0).
void sign(const Tensor& x, Tensor& out);

/// Out = floor(X) / ceil(X). Their Paddle gradients are zero everywhere; the
/// grad kernels (from Out@GRAD alone) write zeros of its shape.
void floor(const Tensor& x, Tensor& out);
void floor_grad(const Tensor& out_grad, Tensor* x_grad);
void ceil(const Tensor& x, Tensor& out);
void ceil_grad(const Tensor& out_grad, Tensor* x_grad);

void gelu(const Tensor& x, Tensor& out, const GeluAttrs& a);
void gelu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const GeluAttrs& a);

/// FactorTensor: one element of any numeric dtype.
void pow(const Tensor& x, const Tensor* factor_tensor, Tensor& out, const PowAttrs& a);
/// X@GRAD = Out@GRAD * factor * X^(factor - 1).
void pow_grad(const Tensor& x, const Tensor* factor_tensor, const Tensor& out_grad, Tensor* x_grad,
              const PowAttrs& a);

/// Min and Max: one element each, of any numeric dtype; min > max is an error.
void clip(const Tensor& x, const Tensor* min, const Tensor* max, Tensor& out, const ClipAttrs& a);
/// X@GRAD = Out@GRAD where min < X < max, else 0.
void clip_grad(const Tensor& x, const Tensor* min, const Tensor* max, const Tensor& out_grad, Tensor* x_grad,
               const ClipAttrs& a);

struct SoftmaxAttrs;
/// Out = X - max - log(sum(exp(X - max))) along `axis` (SoftmaxAttrs: the
/// same single attribute, same default -1).
void log_softmax(const Tensor& x, Tensor& out, const SoftmaxAttrs& attrs);
/// X@GRAD = Out@GRAD - exp(Out) * sum(Out@GRAD, axis).
void log_softmax_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SoftmaxAttrs& attrs);

}  // namespace fluidc::kernels
