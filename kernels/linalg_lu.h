// kernels/linalg_lu.h - ops on square matrices through an LU factorisation: inverse, determinant, slogdeterminant and matrix_power, with their gradients.
//
// Each takes a batch of square matrices [..., n, n], fp32 or fp64, and works
// in double: partial pivoting, one matrix at a time.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// paddle.linalg.inv: Output = Input^-1 per matrix. A matrix with a zero
/// pivot is an error, as in Paddle ("not invertible").
void inverse(const Tensor& input, Tensor& output);
/// Input@GRAD = -Output^T Output@GRAD Output^T per matrix.
void inverse_grad(const Tensor& output, const Tensor& output_grad, Tensor* input_grad);

/// paddle.linalg.det: Out [...] = det of each matrix (0-D for one matrix).
void determinant(const Tensor& input, Tensor& out);
/// Input@GRAD = Out@GRAD * det * Input^-T per matrix; all zeros when any
/// matrix of the batch is singular (Paddle 2.6.2's rule).
void determinant_grad(const Tensor& input, const Tensor& out, const Tensor& out_grad, Tensor* input_grad);

/// paddle.linalg.slogdet: Out [2, ...]: row 0 the sign of each determinant
/// (0 for a singular matrix), row 1 log |det| (-inf when singular).
void slogdeterminant(const Tensor& input, Tensor& out);
/// Input@GRAD = Out@GRAD[1] * Input^-T per matrix (the sign has no
/// gradient); all NaN when any matrix of the batch is singular (Paddle
/// 2.6.2's rule).
void slogdeterminant_grad(const Tensor& input, const Tensor& out, const Tensor& out_grad, Tensor* input_grad);

/// Attributes of `matrix_power` and its gradient.
struct MatrixPowerAttrs {
  int n = 0;  ///< the power: 0 gives identities, negative powers of the inverse
  template <class F>
  static void fields(F&& f) {
    f("n", &MatrixPowerAttrs::n, kRequiredAttr);
  }
};
/// paddle.linalg.matrix_power: Out = X^n per matrix.
void matrix_power(const Tensor& x, Tensor& out, const MatrixPowerAttrs& attrs);
/// X@GRAD = sum over k < n of (X^T)^k Out@GRAD (X^T)^(n-1-k); for n < 0 the
/// same through X^-1 and inverse's rule; zeros for n = 0.
void matrix_power_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                       const MatrixPowerAttrs& attrs);

}  // namespace fluidc::kernels
