// kernels/cpu/reshape.cc - flatten_contiguous_range, flatten2, squeeze2, unsqueeze2: a byte copy under the rule's shape.
#include "kernels/reshape.h"

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/reshape.h"

namespace fluidc::kernels {

using namespace detail;

void flatten_contiguous_range(const Tensor& x, Tensor& out, Tensor* x_shape, const FlattenAttrs& a) {
  require_init("flatten_contiguous_range", "X", x);
  Shape s;
  require_rule("flatten_contiguous_range", shapes::flatten_shape(x.shape(), a, s));
  copy_reshaped(x, s, out, x_shape);
}

void flatten2(const Tensor& x, Tensor& out, Tensor* x_shape, const Flatten2Attrs& a) {
  require_init("flatten2", "X", x);
  Shape s;
  require_rule("flatten2", shapes::flatten2_shape(x.shape(), a, s));
  copy_reshaped(x, s, out, x_shape);
}

void flatten2_grad(const Tensor& x_shape, const Tensor& out_grad, Tensor* x_grad) {
  reshape2_grad(x_shape, out_grad, x_grad);
}

void squeeze2(const Tensor& x, Tensor& out, Tensor* x_shape, const Squeeze2Attrs& a) {
  require_init("squeeze2", "X", x);
  Shape s;
  require_rule("squeeze2", shapes::squeeze_shape(x.shape(), a.axes, s));
  copy_reshaped(x, s, out, x_shape);
}

void unsqueeze2(const Tensor& x, const Tensor* axes_tensor, const Tensor* const* axes_list, int num_axes_list,
                Tensor& out, Tensor* x_shape, const Unsqueeze2Attrs& a) {
  require_init("unsqueeze2", "X", x);
  // Paddle's precedence: AxesTensor, then AxesTensorList, then the attribute.
  Shape s;
  if (axes_tensor)
    require_rule("unsqueeze2", shapes::unsqueeze_shape(x.shape(), int_values("unsqueeze2", "AxesTensor", *axes_tensor), s));
  else if (num_axes_list > 0)
    require_rule("unsqueeze2", shapes::unsqueeze_shape(
                                   x.shape(), int_list_values("unsqueeze2", "AxesTensorList", axes_list, num_axes_list), s));
  else
    require_rule("unsqueeze2", shapes::unsqueeze_shape(x.shape(), a.axes, s));
  copy_reshaped(x, s, out, x_shape);
}

}  // namespace fluidc::kernels
