// kernels/transpose.h - transpose2 and its gradient: permuting a tensor's dims.
#pragma once

#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `transpose2` and `transpose2_grad`: Out's dim k is X's dim
/// axis[k] (a permutation of 0..rank-1).
struct TransposeAttrs {
  std::vector<int> axis;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axis", &TransposeAttrs::axis, kRequiredAttr);
  }
};

/// Out = X with its dims permuted (any dtype); XShape records X's dims as
/// [0, X dims...] like reshape2's.
void transpose2(const Tensor& x, Tensor& out, Tensor* x_shape, const TransposeAttrs& attrs);
/// X@GRAD = Out@GRAD permuted back by the inverse of `axis`.
void transpose2_grad(const Tensor& x_shape, const Tensor& out_grad, Tensor* x_grad, const TransposeAttrs& attrs);
/// transpose (Fluid 1.x): transpose2 without XShape; its gradient reads X.
void transpose(const Tensor& x, Tensor& out, const TransposeAttrs& attrs);
void transpose_grad(const Tensor& x, const Tensor* out, const Tensor& out_grad, Tensor* x_grad,
                    const TransposeAttrs& attrs);

}  // namespace fluidc::kernels
