// kernels/cpu/index_add.cc - index_add and its gradient: slices along one axis added at indexed positions.
#include "kernels/cpu/index_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/index_misc.h"
#include "kernels/shapes/index.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// The checked axis, and Index's values each in [0, X's dim along it).
const int64_t* checked(const char* op, const Shape& x, const Tensor& index, const Tensor& add_value, int axis_attr,
                       int& axis) {
  require_init(op, "Index", index);
  require_init(op, "AddValue", add_value);
  require_rule(op, shapes::index_add_shape(x, index.shape(), add_value.shape(), axis_attr, axis));
  return checked_indices(op, "Index", index, x.d[axis]);
}

}  // namespace

void index_add(const Tensor& x, const Tensor& index, const Tensor& add_value, Tensor& out, const IndexAddAttrs& a) {
  constexpr const char* op = "index_add";
  require_init(op, "X", x);
  int axis = 0;
  const int64_t* id = checked(op, x.shape(), index, add_value, a.axis, axis);
  require_same_dtype(op, "X", x, "AddValue", add_value);
  const int64_t n = index.numel();
  // Out over X is the in-place form: X is copied to Out first, so only AddValue and Index must survive.
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&index, &add_value}));
  Tensor& o = buf.get();
  if (&o != &x) o.copy_from(x);
  const AxisView v = axis_view(x.shape(), axis);
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    add_rows(add_value.data<T>(), v, id, n, o.data<T>(), /*zero_first=*/false);
  });
  buf.finish();
}

void index_add_grad(const Tensor& index, const Tensor& add_value, const Tensor& out_grad, Tensor* x_grad,
                    Tensor* add_value_grad, const IndexAddAttrs& a) {
  constexpr const char* op = "index_add_grad";
  require_init(op, "Out@GRAD", out_grad);
  int axis = 0;
  const int64_t* id = checked(op, out_grad.shape(), index, add_value, a.axis, axis);
  const int64_t n = index.numel();
  const AxisView v = axis_view(out_grad.shape(), axis);
  // AddValue@GRAD first: X@GRAD may be Out@GRAD's very tensor (then the copy below is a no-op).
  if (add_value_grad) {
    OutBuf buf(add_value_grad, Slot::kOut0, aliases(add_value_grad, {&index, &out_grad}));
    Tensor& g = buf.get();
    g.resize(add_value.shape(), out_grad.dtype());
    take_rows(out_grad, v, id, n, g);
    buf.finish();
  }
  if (x_grad && x_grad != &out_grad) x_grad->copy_from(out_grad);
}

}  // namespace fluidc::kernels
