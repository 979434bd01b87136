// kernels/cpu/index_sample.cc - index_sample (per-row gather: Out[i, j] = X[i, Index[i, j]]) and its gradient.
#include "kernels/cpu/index_util.h"
#include "kernels/shapes/vision_legacy.h"
#include "kernels/vision_legacy.h"

namespace fluidc::kernels {

using namespace detail;

void index_sample(const Tensor& x, const Tensor& index, Tensor& out) {
  const char* op = "index_sample";
  require_init(op, "X", x);
  Shape os;
  require_rule(op, shapes::index_sample_shape(x.shape(), index.shape(), os));
  const int64_t m = x.shape()[1], k = os[1];
  const int64_t* id = checked_indices(op, "Index", index, m);
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x, &index}));
    ob.get().resize(os, x.dtype());
    const T* px = x.data<T>();
    T* po = ob.get().data<T>();
    for (int64_t i = 0; i < os[0]; ++i)
      for (int64_t j = 0; j < k; ++j) po[i * k + j] = px[i * m + id[i * k + j]];
    ob.finish();
  });
}

void index_sample_grad(const Tensor& x, const Tensor& index, const Tensor& out_grad, Tensor* x_grad) {
  const char* op = "index_sample_grad";
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", out_grad);
  Shape os;
  require_rule(op, shapes::index_sample_shape(x.shape(), index.shape(), os));
  if (out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD {} is not Out's shape {}", op, out_grad.shape().str(), os.str()));
  const int64_t m = x.shape()[1], k = os[1];
  const int64_t* id = checked_indices(op, "Index", index, m);
  visit_float(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // X@GRAD is zeroed before Out@GRAD is read: through scratch when they are one.
    OutBuf ob(x_grad, Slot::kOut0, aliases(x_grad, {&out_grad, &index}));
    ob.get().resize(x.shape(), out_grad.dtype());
    T* dx = ob.get().data<T>();
    const T* dy = out_grad.data<T>();
    for (int64_t e = 0; e < x.numel(); ++e) dx[e] = T(0);
    for (int64_t i = 0; i < os[0]; ++i)
      for (int64_t j = 0; j < k; ++j) dx[i * m + id[i * k + j]] += dy[i * k + j];
    ob.finish();
  });
}

}  // namespace fluidc::kernels
