// kernels/reshape.h - flatten_contiguous_range, squeeze2 and unsqueeze2: reshapes named by axes, with grads.
//
// Each copies X's bytes unchanged under a new shape (any dtype; out == x is
// safe) and, like reshape2, records X's dims in XShape for the gradient,
// which is Out@GRAD reshaped back (kernels/tensor_manip.h reshape2_grad).
#pragma once

#include <vector>

#include "kernels/attr_fields.h"
#include "kernels/tensor_manip.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `flatten_contiguous_range`: dims start_axis..stop_axis
/// (inclusive; negative counts from the end) become one.
struct FlattenAttrs {
  int start_axis = 1;
  int stop_axis = 1;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("start_axis", &FlattenAttrs::start_axis);
    f("stop_axis", &FlattenAttrs::stop_axis);
  }
};

/// Attributes of `squeeze2`: the size-1 dims to drop (a listed dim whose
/// size is not 1 stays, as in Paddle 2.x); empty drops every size-1 dim.
struct Squeeze2Attrs {
  std::vector<int> axes;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axes", &Squeeze2Attrs::axes);
  }
};

/// Attributes of `unsqueeze2`: where to insert size-1 dims, applied in
/// order (a negative axis counts from the end of the shape so far, + 1).
struct Unsqueeze2Attrs {
  std::vector<int> axes;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axes", &Unsqueeze2Attrs::axes);
  }
};

void flatten_contiguous_range(const Tensor& x, Tensor& out, Tensor* x_shape, const FlattenAttrs& attrs);
void squeeze2(const Tensor& x, Tensor& out, Tensor* x_shape, const Squeeze2Attrs& attrs);
/// Attributes of `flatten2` (Fluid 1.x's fluid.layers.flatten).
struct Flatten2Attrs {
  int axis = 1;

  template <class F>
  static void fields(F&& f) {
    f("axis", &Flatten2Attrs::axis);
  }
};
/// Out = X as 2-D [prod(dims before axis), prod(dims from axis)], 0 <= axis <= rank.
void flatten2(const Tensor& x, Tensor& out, Tensor* x_shape, const Flatten2Attrs& attrs);
/// X@GRAD = Out@GRAD in the shape XShape recorded (reshape2_grad).
void flatten2_grad(const Tensor& x_shape, const Tensor& out_grad, Tensor* x_grad);
/// The axes a program computes at run time win over the attribute:
/// AxesTensor (a 1-D int tensor), else AxesTensorList (one 1-element int
/// tensor per axis).
void unsqueeze2(const Tensor& x, const Tensor* axes_tensor, const Tensor* const* axes_list, int num_axes_list,
                Tensor& out, Tensor* x_shape, const Unsqueeze2Attrs& attrs);

/// X@GRAD = Out@GRAD reshaped to the dims XShape recorded.
inline void flatten_contiguous_range_grad(const Tensor& x_shape, const Tensor& out_grad, Tensor* x_grad) {
  reshape2_grad(x_shape, out_grad, x_grad);
}
inline void squeeze2_grad(const Tensor& x_shape, const Tensor& out_grad, Tensor* x_grad) {
  reshape2_grad(x_shape, out_grad, x_grad);
}
inline void unsqueeze2_grad(const Tensor& x_shape, const Tensor& out_grad, Tensor* x_grad) {
  reshape2_grad(x_shape, out_grad, x_grad);
}

}  // namespace fluidc::kernels
