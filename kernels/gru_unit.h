// kernels/gru_unit.h - gru_unit, Fluid 1.x's one GRU step for a batch (the cell of its seq2seq and attention OCR decoders), and its gradient.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `gru_unit`. Activations are numbered as Paddle numbers
/// them: 0 identity, 1 sigmoid, 2 tanh, 3 relu.
struct GruUnitAttrs {
  int activation = 2;       ///< of the candidate (tanh)
  int gate_activation = 1;  ///< of the update and reset gates (sigmoid)
  /// false (Paddle's default): h = (1 - u) * h_prev + u * c; true: h = u * h_prev + (1 - u) * c.
  bool origin_mode = false;

  template <class F>
  static void fields(F&& f) {
    f("activation", &GruUnitAttrs::activation);
    f("gate_activation", &GruUnitAttrs::gate_activation);
    f("origin_mode", &GruUnitAttrs::origin_mode);
  }
};

/// One step for each of B rows. Input [B, 3D]: the rows' projected gates [update, reset, candidate];
/// HiddenPrev [B, D]; Weight [D, 3D] stored as `gru`'s (its first 2D*D values the [D, 2D] update+reset
/// weights, the last D*D the [D, D] candidate weights, applied to reset * h_prev); Bias [1, 3D].
/// Gate [B, 3D]: the activated u, r, c; ResetHiddenPrev [B, D]: r * h_prev; Hidden [B, D].
void gru_unit(const Tensor& input, const Tensor& hidden_prev, const Tensor& weight, const Tensor* bias, Tensor& gate,
              Tensor& reset_hidden_prev, Tensor& hidden, const GruUnitAttrs& attrs);

/// The gradients of gru_unit from Hidden@GRAD, through the Gate and ResetHiddenPrev the forward kept.
void gru_unit_grad(const Tensor& input, const Tensor& hidden_prev, const Tensor& weight, const Tensor* bias,
                   const Tensor& gate, const Tensor& reset_hidden_prev, const Tensor& hidden_grad, Tensor* input_grad,
                   Tensor* hidden_prev_grad, Tensor* weight_grad, Tensor* bias_grad, const GruUnitAttrs& attrs);

}  // namespace fluidc::kernels
