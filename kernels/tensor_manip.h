// kernels/tensor_manip.h - reshape2, slice and concat with their grads: moving data without arithmetic.
#pragma once

#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `reshape2`: the target shape; 0 copies the input's dim at
/// that position, one -1 is inferred from the element count.
struct Reshape2Attrs {
  std::vector<int> shape;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    // Not required: a program may give the shape as a Shape/ShapeTensor input only.
    f("shape", &Reshape2Attrs::shape);
  }
};
/// Out = X with a new shape; XShape (when given) records X's dims as
/// [0, X dims...] holding no data, as Paddle does, for reshape2_grad.
/// The shape a program computes at run time wins over the attribute:
/// ShapeTensor (one 1-element int32/int64 tensor per dim), else Shape (a 1-D
/// int tensor); their values follow the attribute's rules (0 copies, one -1).
void reshape2(const Tensor& x, const Tensor* shape, const Tensor* const* shape_tensor, int num_shape_tensor,
              Tensor& out, Tensor* x_shape, const Reshape2Attrs& attrs);
/// reshape2 with the attribute's shape.
inline void reshape2(const Tensor& x, Tensor& out, Tensor* x_shape, const Reshape2Attrs& attrs) {
  reshape2(x, nullptr, nullptr, 0, out, x_shape, attrs);
}
/// X@GRAD = Out@GRAD reshaped to the dims recorded in XShape.
void reshape2_grad(const Tensor& x_shape, const Tensor& out_grad, Tensor* x_grad);
/// reshape (Fluid 1.x): reshape2 without XShape.
void reshape(const Tensor& x, const Tensor* shape, const Tensor* const* shape_tensor, int num_shape_tensor, Tensor& out,
             const Reshape2Attrs& attrs);
/// X@GRAD = Out@GRAD in X's shape (the v1 gradient reads X, not XShape).
void reshape_grad(const Tensor& x, const Tensor* shape, const Tensor* const* shape_tensor, int num_shape_tensor,
                  const Tensor* out, const Tensor& out_grad, Tensor* x_grad);

/// Attributes of `slice` (Paddle's names): for each axis in `axes` keep
/// [starts[i], ends[i]) — negative values count from the end, values past
/// the end are clamped — then drop the size-1 axes listed in decrease_axis.
struct SliceAttrs {
  std::vector<int> axes;
  std::vector<int> starts;
  std::vector<int> ends;
  std::vector<int> infer_flags;
  std::vector<int> decrease_axis;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axes", &SliceAttrs::axes, kRequiredAttr);
    // Not required: Paddle leaves them empty when StartsTensor/EndsTensor give the bounds.
    f("starts", &SliceAttrs::starts);
    f("ends", &SliceAttrs::ends);
    f("infer_flags", &SliceAttrs::infer_flags);
    f("decrease_axis", &SliceAttrs::decrease_axis);
  }
};
/// Run-time bounds, when the program computes them, replace the attributes:
/// StartsTensor/EndsTensor (an int32/int64 tensor with one value per axis),
/// else StartsTensorList/EndsTensorList (one 1-element int tensor per axis).
void slice(const Tensor& input, const Tensor* starts_tensor, const Tensor* ends_tensor,
           const Tensor* const* starts_list, int num_starts, const Tensor* const* ends_list, int num_ends,
           Tensor& out, const SliceAttrs& attrs);
/// Input@GRAD = zeros like Input with Out@GRAD written into the sliced region.
void slice_grad(const Tensor& input, const Tensor* starts_tensor, const Tensor* ends_tensor,
                const Tensor* const* starts_list, int num_starts, const Tensor* const* ends_list, int num_ends,
                const Tensor& out_grad, Tensor* input_grad, const SliceAttrs& attrs);

/// Attributes of `concat`.
struct ConcatAttrs {
  int axis = 0;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("axis", &ConcatAttrs::axis);
  }
};
/// Out = the X tensors joined along `axis` (negative counts from the end);
/// AxisTensor (a 1-element int tensor, as split's gradient passes it) wins
/// over the attribute.
void concat(const Tensor* const* xs, int n, const Tensor* axis_tensor, Tensor& out, const ConcatAttrs& attrs);
inline void concat(const Tensor* const* xs, int n, Tensor& out, const ConcatAttrs& attrs) {
  concat(xs, n, nullptr, out, attrs);
}
/// X@GRAD[i] = the slice of Out@GRAD that X[i] contributed; nullptr entries
/// are gradients nobody needs.
void concat_grad(const Tensor* const* xs, int n, const Tensor& out_grad, Tensor* const* x_grads, int m,
                 const ConcatAttrs& attrs);

}  // namespace fluidc::kernels

#include "kernels/tensor_manip_more.h"  // split, stack, expand, tile, shape, size, ...
#include "kernels/tensor_manip_misc.h"  // roll, unbind, meshgrid
