// kernels/compare.h - comparisons and logical ops: bool results with Paddle's broadcasting.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of the comparison ops (`axis` aligns a lower-rank Y as in the
/// elementwise ops; `force_cpu` is a placement hint with no effect here).
struct CompareAttrs {
  int axis = -1;
  bool force_cpu = false;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axis", &CompareAttrs::axis);
    f("force_cpu", &CompareAttrs::force_cpu);
  }
};

/// Out = X op Y elementwise (bool), X and Y of one dtype, broadcast.
void less_than(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& attrs);
void less_equal(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& attrs);
void greater_than(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& attrs);
void greater_equal(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& attrs);
void equal(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& attrs);
void not_equal(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& attrs);

/// Out = X op Y elementwise over bool tensors (other dtypes: nonzero is true).
void logical_and(const Tensor& x, const Tensor& y, Tensor& out);
void logical_or(const Tensor& x, const Tensor& y, Tensor& out);
void logical_xor(const Tensor& x, const Tensor& y, Tensor& out);
void logical_not(const Tensor& x, Tensor& out);

}  // namespace fluidc::kernels
