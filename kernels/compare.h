// kernels/compare.h - comparisons and logical ops: bool results with Paddle's broadcasting; isclose and allclose.
#pragma once

#include <string>

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

/// Attributes of `isclose` and `allclose`. Paddle writes the tolerances as
/// strings (Python's str() of the numbers); they must parse as finite
/// numbers, whole, or the op is refused.
struct IscloseAttrs {
  std::string rtol = "1e-05";
  std::string atol = "1e-08";
  bool equal_nan = false;

  template <class F>
  static void fields(F&& f) {
    f("rtol", &IscloseAttrs::rtol);
    f("atol", &IscloseAttrs::atol);
    f("equal_nan", &IscloseAttrs::equal_nan);
  }
};
/// paddle.isclose: Out (bool, Input's shape) is true where Input == Other, or
/// |Input - Other| <= atol + rtol |Other| (or within 1e-15 of it, as Paddle),
/// or both are NaN and equal_nan. Input and Other: one shape (no
/// broadcasting) and one dtype, fp32 or fp64. Rtol / Atol, when given, are
/// one-element fp32/fp64 tensors that replace the attributes.
void isclose(const Tensor& input, const Tensor& other, const Tensor* rtol, const Tensor* atol, Tensor& out,
             const IscloseAttrs& attrs);
/// paddle.allclose: Out (a 0-D bool) is whether isclose holds everywhere.
void allclose(const Tensor& input, const Tensor& other, const Tensor* rtol, const Tensor* atol, Tensor& out,
              const IscloseAttrs& attrs);

}  // namespace fluidc::kernels
