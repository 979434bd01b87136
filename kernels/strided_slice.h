// kernels/strided_slice.h - strided_slice (x[a:b:s] with any step, negative included) and its gradient.
#pragma once

#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `strided_slice` and `strided_slice_grad` (Paddle's names).
/// For each axis in `axes`: start, end (exclusive) and a non-zero stride.
/// Negative starts and ends count from the end (then clamp at 0), except an
/// end of -1 with a negative stride, which means "through index 0"; a
/// negative stride walks down from min(start, dim - 1). infer_flags -1 marks
/// bounds known only at run time; start -1, end 0 with flag -1 on a
/// decrease_axis takes the last element (Paddle's x[-1]). decrease_axis
/// dims (each of size 1) are dropped; dropping every dim leaves shape [1],
/// as Paddle's kernel does.
struct StridedSliceAttrs {
  std::vector<int> axes;
  std::vector<int> starts;
  std::vector<int> ends;
  std::vector<int> strides;
  std::vector<int> infer_flags;
  std::vector<int> decrease_axis;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axes", &StridedSliceAttrs::axes, kRequiredAttr);
    // Not required: tensors may give them instead.
    f("starts", &StridedSliceAttrs::starts);
    f("ends", &StridedSliceAttrs::ends);
    f("strides", &StridedSliceAttrs::strides);
    f("infer_flags", &StridedSliceAttrs::infer_flags);
    f("decrease_axis", &StridedSliceAttrs::decrease_axis);
  }
};

/// Run-time bounds, when the program computes them, replace the attributes:
/// StartsTensor/EndsTensor/StridesTensor (an int32/int64 tensor with one value
/// per axis), else the *TensorList form (one 1-element int tensor per axis).
/// Any dtype.
void strided_slice(const Tensor& input, const Tensor* starts_tensor, const Tensor* ends_tensor,
                   const Tensor* strides_tensor, const Tensor* const* starts_list, int num_starts,
                   const Tensor* const* ends_list, int num_ends, const Tensor* const* strides_list, int num_strides,
                   Tensor& out, const StridedSliceAttrs& attrs);
/// Input@GRAD = zeros like Input with Out@GRAD written at the elements the slice took.
void strided_slice_grad(const Tensor& input, const Tensor* starts_tensor, const Tensor* ends_tensor,
                        const Tensor* strides_tensor, const Tensor* const* starts_list, int num_starts,
                        const Tensor* const* ends_list, int num_ends, const Tensor* const* strides_list,
                        int num_strides, const Tensor& out_grad, Tensor* input_grad, const StridedSliceAttrs& attrs);

}  // namespace fluidc::kernels
