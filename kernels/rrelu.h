// kernels/rrelu.h - rrelu (paddle.nn.RReLU): leaky ReLU whose negative slope is random in training, the mean slope at test.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `rrelu`: slopes in [lower, upper], 0 <= lower <= upper <= 1.
/// is_test: every negative element takes the slope (lower + upper) / 2;
/// otherwise each takes its own draw, uniform in [lower, upper].
struct RreluAttrs {
  float lower = 1.0f / 8.0f;
  float upper = 1.0f / 3.0f;
  bool is_test = false;
  template <class F>
  static void fields(F&& f) {
    f("lower", &RreluAttrs::lower);
    f("upper", &RreluAttrs::upper);
    f("is_test", &RreluAttrs::is_test);
  }
};

/// Out = X >= 0 ? X : slope * X; Noise (may be null) records the factor
/// each element was multiplied by (1 where X >= 0, as in Paddle), which
/// rrelu_grad reads. fp32 or fp64; Out may be X. Training draws come from
/// the random ops' global stream (kernels/fill.h): Paddle's rrelu has no seed.
void rrelu(const Tensor& x, Tensor& out, Tensor* noise, const RreluAttrs& attrs);
/// X@GRAD = Out@GRAD where X > 0, Noise * Out@GRAD elsewhere (Noise is 1 at
/// X = 0, so both sides agree there). X@GRAD may be Out@GRAD.
void rrelu_grad(const Tensor& x, const Tensor& noise, const Tensor& out_grad, Tensor* x_grad);

}  // namespace fluidc::kernels
