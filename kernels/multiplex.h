// kernels/multiplex.h - multiplex (paddle.multiplex): row i of Out is row i of the input Ids[i] names.
#pragma once

#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Out[i] = X[Ids[i]][i] for the n inputs X (same shape [M, ...], same
/// dtype, n >= 1) and Ids [M, 1] (int32 or int64, each in [0, n)).
void multiplex(const Tensor& ids, const Tensor* const* xs, int n, Tensor& out);
/// X@GRAD[k] (Out@GRAD's shape): row i is Out@GRAD's row i where Ids[i] is
/// k, zero elsewhere; nullptr entries are skipped. X (Paddle passes it) is
/// not read.
void multiplex_grad(const Tensor& ids, const Tensor* const* xs, int n, const Tensor& out_grad, Tensor* const* x_grads,
                    int m);

}  // namespace fluidc::kernels
