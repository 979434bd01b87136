// kernels/set_value.h - set_value (`x[1:3, ::2] = v` in a static program) and its gradient.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `set_value` (Paddle's names). For each axis in `axes` the
/// assigned region runs from starts[i] towards ends[i] (exclusive) by
/// steps[i] (negative steps walk backwards; negative bounds count from the
/// end and out-of-range bounds are clamped, Paddle's rule). The value is
/// broadcast to the region's dims with `decrease_axes` (size-1 dims an
/// integer index removed) left out and a 1 inserted at each of `none_axes`.
/// The constant value (when no ValueTensor is given) comes from Paddle's
/// `values`/`fp32_values`/... attributes of shape `shape`: the compiler
/// reads them and passes them to the kernel as numbers (see set_value()).
struct SetValueAttrs {
  std::vector<int64_t> axes;
  std::vector<int64_t> starts;
  std::vector<int64_t> ends;
  std::vector<int64_t> steps;
  std::vector<int64_t> decrease_axes;
  std::vector<int64_t> none_axes;
  std::vector<int64_t> shape;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axes", &SetValueAttrs::axes, kRequiredAttr);
    // Not required: Paddle leaves them empty when the *TensorList inputs give them.
    f("starts", &SetValueAttrs::starts);
    f("ends", &SetValueAttrs::ends);
    f("steps", &SetValueAttrs::steps);
    f("decrease_axes", &SetValueAttrs::decrease_axes);
    f("none_axes", &SetValueAttrs::none_axes);
    f("shape", &SetValueAttrs::shape);
  }
};

/// Out = Input with the region replaced by the value broadcast to it: the
/// ValueTensor when given (same dtype as Input), else the `num_values`
/// constants `values` shaped as attrs.shape. Run-time bounds, when given,
/// replace the attributes: StartsTensorList/EndsTensorList/StepsTensorList
/// (one 1-element int tensor per axis). Out may be Input itself.
void set_value(const Tensor& input, const Tensor* value_tensor, const Tensor* const* starts_list, int num_starts,
               const Tensor* const* ends_list, int num_ends, const Tensor* const* steps_list, int num_steps,
               Tensor& out, const SetValueAttrs& attrs, const double* values = nullptr, int64_t num_values = 0);
/// Input@GRAD = Out@GRAD with the region zeroed; ValueTensor@GRAD = the
/// region of Out@GRAD summed onto ValueTensor's dims (undoing the broadcast).
void set_value_grad(const Tensor& out_grad, const Tensor* value_tensor, const Tensor* const* starts_list,
                    int num_starts, const Tensor* const* ends_list, int num_ends, const Tensor* const* steps_list,
                    int num_steps, Tensor* input_grad, Tensor* value_grad, const SetValueAttrs& attrs);

}  // namespace fluidc::kernels
