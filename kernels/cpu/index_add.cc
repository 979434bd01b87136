// kernels/cpu/index_add.cc - index_add and its gradient: slices along one axis added at indexed positions.
#include <cstring>

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
    T* po = o.data<T>();
    const T* pv = add_value.data<T>();
    for (int64_t r = 0; r < v.outer; ++r)
      for (int64_t i = 0; i < n; ++i) {
        T* dst = po + (r * v.mid + id[i]) * v.inner;
        const T* src = pv + (r * n + i) * v.inner;
        for (int64_t q = 0; q < v.inner; ++q) dst[q] += src[q];
      }
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
    const size_t slice = static_cast<size_t>(v.inner) * rt::dtype_size(out_grad.dtype());
    const char* src = static_cast<const char*>(out_grad.raw());
    char* dst = static_cast<char*>(g.raw());
    for (int64_t r = 0; r < v.outer; ++r)
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + (r * n + i) * slice, src + (r * v.mid + id[i]) * slice, slice);
    buf.finish();
  }
  if (x_grad && x_grad != &out_grad) x_grad->copy_from(out_grad);
}

}  // namespace fluidc::kernels
