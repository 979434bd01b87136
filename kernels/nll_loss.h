// kernels/nll_loss.h - nll_loss (paddle.nn.functional.nll_loss: the negative log-likelihood of class labels) and its gradient.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `nll_loss` and `nll_loss_grad`.
struct NllLossAttrs {
  int64_t ignore_index = -100;     ///< a label that adds nothing (and no weight)
  std::string reduction = "mean";  ///< none, sum, or mean (divided by the weights' sum)
  template <class F>
  static void fields(F&& f) {
    f("ignore_index", &NllLossAttrs::ignore_index);
    f("reduction", &NllLossAttrs::reduction);
  }
};

/// X [N, C] or [N, C, d...] (log-probabilities, fp32/fp64), Label [N] or
/// [N, d...] (int64, each in [0, C) or ignore_index), Weight [C] or none
/// (ones). Each position's loss is -Weight[l] * X[n, l, ...]; Out is them
/// all ([N, d...]) for reduction none, else 0-D: their sum, or the sum over
/// Total_weight, the 0-D sum of the weights of the labels not ignored
/// (left 0 for none, as Paddle 2.6.2 leaves it).
void nll_loss(const Tensor& x, const Tensor& label, const Tensor* weight, Tensor& out, Tensor& total_weight,
              const NllLossAttrs& attrs);
/// X@GRAD: -Weight[l] * Out@GRAD (divided by Total_weight for mean) at each
/// position's label, zeros elsewhere.
void nll_loss_grad(const Tensor& x, const Tensor& label, const Tensor* weight, const Tensor& total_weight,
                   const Tensor& out_grad, Tensor* x_grad, const NllLossAttrs& attrs);

}  // namespace fluidc::kernels
