// kernels/index_misc.h - linspace, cumprod, kthvalue and scatter_nd_add, with gradients where Paddle has them.
#pragma once

#include <cstdint>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `linspace`: Out's dtype (Paddle's code; fp32 by default).
struct LinspaceAttrs {
  int dtype = 5;

  template <class F>
  static void fields(F&& f) {
    f("dtype", &LinspaceAttrs::dtype);
  }
};
/// Out = Num evenly spaced values from Start to Stop, both included (Start,
/// Stop, Num: one-element tensors; Num >= 1). As Paddle 2.6, the first half
/// counts up from Start and the second down from Stop by the step
/// (Stop - Start) / (Num - 1), computed in double, so both ends are exact;
/// integer dtypes truncate. Out: fp32, fp64, int32, int64.
void linspace(const Tensor& start, const Tensor& stop, const Tensor& num, Tensor& out, const LinspaceAttrs& attrs);

/// Attributes of `cumprod` and `cumprod_grad`.
struct CumprodAttrs {
  int dim = -1;

  template <class F>
  static void fields(F&& f) {
    f("dim", &CumprodAttrs::dim, kRequiredAttr);
  }
};
/// Out[.., i, ..] = X[.., 0, ..] * ... * X[.., i, ..] along `dim`. fp32, fp64, int32, int64.
void cumprod(const Tensor& x, Tensor& out, const CumprodAttrs& attrs);
/// X@GRAD[j] = sum over i >= j of Out@GRAD[i] * (the product of X[0..i]
/// without X[j]), computed without dividing by X, so zeros in X are exact.
/// Out is accepted (Paddle passes it) but not read. fp32, fp64.
void cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                  const CumprodAttrs& attrs);

}  // namespace fluidc::kernels
