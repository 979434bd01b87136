// kernels/bilinear.h - bilinear_tensor_product (paddle.nn.Bilinear): Out[b, k] = X[b] . Weight[k] . Y[b] + Bias[k].
#pragma once

#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Out [B, K] from X [B, M], Y [B, N], Weight [K, M, N] and Bias [1, K]
/// (may be null): Out[b, k] = sum_{m, n} X[b, m] Weight[k, m, n] Y[b, n] +
/// Bias[0, k]. fp32 or fp64, all of one dtype.
void bilinear_tensor_product(const Tensor& x, const Tensor& y, const Tensor& weight, const Tensor* bias, Tensor& out);
/// The gradients (each may be null). Bias@GRAD [1, K] is the column sums of
/// Out@GRAD; Paddle's grad op has no Bias input, and needs none.
void bilinear_tensor_product_grad(const Tensor& x, const Tensor& y, const Tensor& weight, const Tensor& out_grad,
                                  Tensor* x_grad, Tensor* y_grad, Tensor* weight_grad, Tensor* bias_grad);

}  // namespace fluidc::kernels
