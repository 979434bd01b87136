// kernels/fc.h - fc, the fused product + bias + relu that Paddle Inference's passes write into the programs they save.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `fc`.
struct FcAttrs {
  int in_num_col_dims = 1;      ///< Input's dims before this one are the rows of the product
  std::string activation_type;  ///< "" or "relu"
  bool padding_weights = false; ///< oneDNN's padded W layout: refused (never written by the CPU passes)

  template <class F>
  static void fields(F&& f) {
    f("in_num_col_dims", &FcAttrs::in_num_col_dims);
    f("activation_type", &FcAttrs::activation_type);
    f("padding_weights", &FcAttrs::padding_weights);
  }
};

/// Out = act(Input (flattened to [rows, K] at in_num_col_dims) @ W [K, N] + Bias [N]), Out's dims Input's
/// first in_num_col_dims then N.
void fc(const Tensor& input, const Tensor& w, const Tensor* bias, Tensor& out, const FcAttrs& attrs);

}  // namespace fluidc::kernels
