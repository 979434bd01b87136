// kernels/tensor_manip_misc.h - roll, unbind and meshgrid, with gradients.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `roll` and `roll_grad`: shift k moves elements along
/// axis k (negative counts from the end) by shifts[k] places, wrapping
/// around; a repeated axis adds its shifts. Empty `axis`: X is rolled as one
/// flat sequence by shifts[0] (one shift only).
struct RollAttrs {
  std::vector<int64_t> shifts;
  std::vector<int64_t> axis;

  template <class F>
  static void fields(F&& f) {
    f("shifts", &RollAttrs::shifts);
    f("axis", &RollAttrs::axis);
  }
};
/// Out[i] = X[i - shift] along each rolled axis (indices modulo the dim).
/// ShiftsTensor (a 1-D int tensor) wins over `shifts`. Any dtype.
void roll(const Tensor& x, const Tensor* shifts_tensor, Tensor& out, const RollAttrs& attrs);
/// X@GRAD = Out@GRAD rolled back (every shift negated); X gives only the shape.
void roll_grad(const Tensor& x, const Tensor* shifts_tensor, const Tensor& out_grad, Tensor* x_grad,
               const RollAttrs& attrs);

}  // namespace fluidc::kernels
