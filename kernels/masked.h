// kernels/masked.h - ops whose output length depends on the data: where_index (paddle.nonzero) and masked_select with its gradient.
//
// Their outputs are sized by the kernel at run time (the compiler knows
// only their rank); a zero-length result is a valid [0, ...] tensor.
#pragma once

#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Out [K, rank] int64: the row-major coordinates of the K elements of
/// Condition (bool, int32, int64, fp32 or fp64) that are nonzero. A 0-D
/// Condition gives [K, 0].
void where_index(const Tensor& condition, Tensor& out);

/// Y [K]: the elements of X where Mask (bool) is true, in row-major order
/// of their common broadcast shape (numpy's rule: trailing dims line up,
/// size-1 dims repeat). X is fp32, fp64, int32 or int64.
void masked_select(const Tensor& x, const Tensor& mask, Tensor& y);
/// X@GRAD (X's shape): each Y@GRAD element added back where its Y element
/// came from; an X element repeated by broadcasting sums its picks; 0 where
/// the mask is false.
void masked_select_grad(const Tensor& x, const Tensor& mask, const Tensor& y_grad, Tensor* x_grad);

}  // namespace fluidc::kernels
