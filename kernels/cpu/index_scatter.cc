// kernels/cpu/index_scatter.cc - scatter and where with their grads: writes selected by index or by mask.
#include <cstring>

#include "kernels/cpu/index_util.h"
#include "kernels/index.h"
#include "kernels/shapes/index.h"

namespace fluidc::kernels {

using namespace detail;

void scatter(const Tensor& x, const Tensor& ids, const Tensor& updates, Tensor& out, const ScatterAttrs& a) {
  require_init("scatter", "X", x);
  require_init("scatter", "Updates", updates);
  require_same_dtype("scatter", "X", x, "Updates", updates);
  Shape s;
  require_rule("scatter", shapes::scatter_shape(x.shape(), ids.shape(), updates.shape(), s));
  const int64_t rows = x.dim(0), n = ids.numel();
  const int64_t* idx = checked_indices("scatter", "Ids", ids, rows);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&ids, &updates}));  // out == X is safe: rows are rewritten in place
  Tensor& o = buf.get();
  if (&o != &x) o.copy_from(x);
  const int64_t inner = rows ? x.numel() / rows : 0;
  if (a.overwrite) {
    const size_t row = static_cast<size_t>(inner) * rt::dtype_size(x.dtype());
    char* dst = static_cast<char*>(o.raw());
    const char* src = static_cast<const char*>(updates.raw());
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + idx[i] * row, src + i * row, row);  // the last id wins
  } else {
    // Every named row starts from zero, then receives the sum of its updates.
    visit_numeric("scatter", "X", x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* od = o.data<T>();
      const T* ud = updates.data<T>();
      for (int64_t i = 0; i < n; ++i) std::fill(od + idx[i] * inner, od + (idx[i] + 1) * inner, T(0));
      for (int64_t i = 0; i < n; ++i) {
        T* dst = od + idx[i] * inner;
        const T* src = ud + i * inner;
        for (int64_t j = 0; j < inner; ++j) dst[j] += src[j];
      }
    });
  }
  buf.finish();
}

void scatter_grad(const Tensor& ids, const Tensor& updates, const Tensor& out_grad, Tensor* x_grad,
                  Tensor* updates_grad, const ScatterAttrs&) {
  require_init("scatter_grad", "Out@GRAD", out_grad);
  const Shape& s = out_grad.shape();
  if (s.rank < 1) rt::fail("scatter_grad: Out@GRAD must have at least 1 dim");
  const int64_t rows = s.d[0], n = ids.numel();
  const int64_t inner = rows ? out_grad.numel() / rows : 0;
  const int64_t* idx = checked_indices("scatter_grad", "Ids", ids, rows);
  const size_t row = static_cast<size_t>(inner) * rt::dtype_size(out_grad.dtype());
  if (updates_grad) {
    if (updates.numel() != n * inner)
      rt::fail(fmt::format("scatter_grad: Updates {} does not match {} ids into Out@GRAD {}", updates.shape().str(), n,
                           s.str()));
    OutBuf ub(updates_grad, Slot::kOut1, updates_grad == &out_grad);
    ub.get().resize(updates.shape(), out_grad.dtype());
    char* dst = static_cast<char*>(ub.get().raw());
    const char* src = static_cast<const char*>(out_grad.raw());
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * row, src + idx[i] * row, row);
    ub.finish();
  }
  if (x_grad) {
    // X's rows at Ids were replaced, so they get no gradient.
    if (x_grad != &out_grad) x_grad->copy_from(out_grad);
    char* g = static_cast<char*>(x_grad->raw());
    for (int64_t i = 0; i < n; ++i) std::memset(g + idx[i] * row, 0, row);
  }
}

void where(const Tensor& condition, const Tensor& x, const Tensor& y, Tensor& out) {
  require_init("where", "Condition", condition);
  require_init("where", "X", x);
  require_init("where", "Y", y);
  require_same_dtype("where", "X", x, "Y", y);
  require_same_shape("where", "X", x, "Y", y);
  require_same_shape("where", "Condition", condition, "X", x);
  if (condition.dtype() != DType::kBool)
    rt::fail(fmt::format("where: Condition must be bool, got {}", rt::dtype_name(condition.dtype())));
  const bool* c = condition.data<bool>();
  const int64_t n = x.numel();
  // Element i of X and Y is read before it is written (safe in place);
  // Condition's bools are narrower than Out's elements, so not in its place.
  OutBuf buf(&out, Slot::kOut0, &out == &condition);
  Tensor& o = buf.get();
  o.resize(x.shape(), x.dtype());
  visit_all("where", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    const T* yd = y.data<T>();
    T* od = o.data<T>();
    for (int64_t i = 0; i < n; ++i) od[i] = c[i] ? xd[i] : yd[i];
  });
  buf.finish();
}

void where_grad(const Tensor& condition, const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                Tensor* y_grad) {
  require_init("where_grad", "Out@GRAD", out_grad);
  require_same_shape("where_grad", "Condition", condition, "Out@GRAD", out_grad);
  if (condition.dtype() != DType::kBool)
    rt::fail(fmt::format("where_grad: Condition must be bool, got {}", rt::dtype_name(condition.dtype())));
  (void)x;
  (void)y;
  const bool* c = condition.data<bool>();
  const int64_t n = out_grad.numel();
  visit_float("where_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* dy = out_grad.data<T>();
    // Both grads read dy[i] before writing element i; when one aliases
    // Out@GRAD it is written last.
    Tensor* first = y_grad == &out_grad ? x_grad : y_grad;
    Tensor* last = first == x_grad ? y_grad : x_grad;
    for (Tensor* g : {first, last}) {
      if (!g) continue;
      const bool keep = g == x_grad;  // X's gradient where Condition holds, Y's elsewhere
      g->resize(out_grad.shape(), out_grad.dtype());
      T* gd = g->data<T>();
      for (int64_t i = 0; i < n; ++i) gd[i] = c[i] == keep ? dy[i] : T(0);
    }
  });
}

}  // namespace fluidc::kernels
