// kernels/prelu.h - prelu (a learned slope for negative inputs: one, per channel or per element) and its gradient.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `prelu` and `prelu_grad` (Paddle's names). mode "all": one
/// slope (Alpha has 1 value); "channel": one per channel of X (the dim
/// data_format names: 1 for NCHW, the last for NHWC; Alpha has C values);
/// "element": one per element of an X item (Alpha has X's numel / N values,
/// whatever the layout).
struct PreluAttrs {
  std::string mode = "all";
  std::string data_format = "NCHW";

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("mode", &PreluAttrs::mode);
    f("data_format", &PreluAttrs::data_format);
  }
};

/// Out = X > 0 ? X : alpha * X. fp32 and fp64.
void prelu(const Tensor& x, const Tensor& alpha, Tensor& out, const PreluAttrs& attrs);
/// X@GRAD = X > 0 ? Out@GRAD : alpha * Out@GRAD; Alpha@GRAD = the sum of
/// X * Out@GRAD over the X <= 0 elements that share each slope.
void prelu_grad(const Tensor& x, const Tensor& alpha, const Tensor& out_grad, Tensor* x_grad, Tensor* alpha_grad,
                const PreluAttrs& attrs);

}  // namespace fluidc::kernels
