// kernels/cuda/reshape.cc - reshape2, flatten_contiguous_range, squeeze2, unsqueeze2 (and gradients): a device copy under a new shape.
#include <string>

#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/reshape.h"
#include "kernels/shapes/tensor_manip.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

// Out = X's bytes with shape `s` (in place when Out is X: the byte count is
// the same, so nothing moves); XShape = [0, X dims...] holding no data.
void copy_reshaped(const char* op, const DTensor& x, const rt::Shape& s, DTensor& out, DTensor* x_shape) {
  if (s.numel() != x.dnumel())
    rt::fail(std::string(op) + ": Out " + s.str() + " does not hold X " + x.dshape().str());
  set_x_shape(x, x_shape);
  if (&out == &x) {
    out.dresize(s, x.ddtype());
    return;
  }
  out.dresize(s, x.ddtype());
  const size_t bytes = static_cast<size_t>(x.dnumel()) * rt::dtype_size(x.ddtype());
  if (bytes)
    cu::check(cudaMemcpyAsync(out.dptr<unsigned char>(), x.dev().raw(), bytes, cudaMemcpyDeviceToDevice, stream()),
              op);
}

}  // namespace

void reshape2(const DTensor& x, const DTensor* shape, const DTensor* const* shape_tensor, int num_shape_tensor,
              DTensor& out, DTensor* x_shape, const Reshape2Attrs& attrs) {
  const char* op = "reshape2";
  require_dev(op, "X", x);
  // A shape held in a tensor would be read back to the host inside the step.
  if (shape || num_shape_tensor > 0) rt::fail("reshape2: Shape and ShapeTensor inputs have no CUDA kernel yet");
  rt::Shape s;
  require_rule(op, shapes::reshape2_shape(x.dshape(), attrs, s));
  copy_reshaped(op, x, s, out, x_shape);
}

void flatten_contiguous_range(const DTensor& x, DTensor& out, DTensor* x_shape, const FlattenAttrs& attrs) {
  const char* op = "flatten_contiguous_range";
  require_dev(op, "X", x);
  rt::Shape s;
  require_rule(op, shapes::flatten_shape(x.dshape(), attrs, s));
  copy_reshaped(op, x, s, out, x_shape);
}

void squeeze2(const DTensor& x, DTensor& out, DTensor* x_shape, const Squeeze2Attrs& attrs) {
  const char* op = "squeeze2";
  require_dev(op, "X", x);
  rt::Shape s;
  require_rule(op, shapes::squeeze_shape(x.dshape(), attrs.axes, s));
  copy_reshaped(op, x, s, out, x_shape);
}

void unsqueeze2(const DTensor& x, const DTensor* axes_tensor, const DTensor* const* axes_list, int num_axes_list,
                DTensor& out, DTensor* x_shape, const Unsqueeze2Attrs& attrs) {
  const char* op = "unsqueeze2";
  require_dev(op, "X", x);
  if (axes_tensor || num_axes_list > 0) rt::fail("unsqueeze2: AxesTensor inputs have no CUDA kernel (they run on the host)");
  rt::Shape s;
  require_rule(op, shapes::unsqueeze_shape(x.dshape(), attrs.axes, s));
  copy_reshaped(op, x, s, out, x_shape);
}

void reshape2_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad) {
  const char* op = "reshape2_grad";
  if (!x_grad) return;
  require_dev(op, "XShape", x_shape);
  require_dev(op, "Out@GRAD", out_grad);
  copy_reshaped(op, out_grad, dims_of_x_shape(op, x_shape), *x_grad, nullptr);
}

void flatten_contiguous_range_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad) {
  reshape2_grad(x_shape, out_grad, x_grad);
}
void squeeze2_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad) {
  reshape2_grad(x_shape, out_grad, x_grad);
}
void unsqueeze2_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad) {
  reshape2_grad(x_shape, out_grad, x_grad);
}

}  // namespace fluidc::kernels::cuda
