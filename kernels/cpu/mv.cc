// kernels/cpu/mv.cc - mv (a matrix times a vector) and its gradient, accumulated in double.
#include "kernels/cpu/kernel_util.h"
#include "kernels/linalg_misc.h"
#include "kernels/shapes/linalg_misc.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// The checked [M, N] of X against Vec (both float, the same dtype).
Shape checked(const char* op, const Tensor& x, const Tensor& vec) {
  require_init(op, "X", x);
  require_init(op, "Vec", vec);
  require_same_dtype(op, "X", x, "Vec", vec);
  visit_float(op, "X", x.dtype(), [](auto) {});
  Shape os;
  require_rule(op, shapes::mv_shape(x.shape(), vec.shape(), os));
  return x.shape();
}

}  // namespace

void mv(const Tensor& x, const Tensor& vec, Tensor& out) {
  constexpr const char* op = "mv";
  const Shape s = checked(op, x, vec);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &vec}));
  Tensor& o = buf.get();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    o.resize(Shape{s.d[0]}, x.dtype());
    const T *xv = x.data<T>(), *v = vec.data<T>();
    T* ov = o.data<T>();
    for (int64_t i = 0; i < s.d[0]; ++i) {
      double acc = 0.0;
      for (int64_t j = 0; j < s.d[1]; ++j) acc += static_cast<double>(xv[i * s.d[1] + j]) * v[j];
      ov[i] = static_cast<T>(acc);
    }
  });
  buf.finish();
}

void mv_grad(const Tensor& x, const Tensor& vec, const Tensor& out_grad, Tensor* x_grad, Tensor* vec_grad) {
  constexpr const char* op = "mv_grad";
  const Shape s = checked(op, x, vec);
  require_init(op, "Out@GRAD", out_grad);
  if (out_grad.shape() != Shape{s.d[0]} || out_grad.dtype() != x.dtype())
    rt::fail(fmt::format("mv_grad: Out@GRAD {} must be {} [{}]", out_grad.shape().str(), rt::dtype_name(x.dtype()),
                         s.d[0]));
  const int64_t m = s.d[0], n = s.d[1];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xv = x.data<T>(), *v = vec.data<T>(), *g = out_grad.data<T>();
    // Vec@GRAD first, in double scratch: X@GRAD may be X's very tensor.
    double* vg = vec_grad ? zeroed(Slot::kAcc, n) : nullptr;
    if (vg)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) vg[j] += static_cast<double>(xv[i * n + j]) * g[i];
    if (x_grad) {
      OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&vec, &out_grad}));
      Tensor& xg = buf.get();
      xg.resize(s, x.dtype());
      T* o = xg.data<T>();
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) o[i * n + j] = static_cast<T>(static_cast<double>(g[i]) * v[j]);
      buf.finish();
    }
    if (vg) {
      OutBuf buf(vec_grad, Slot::kOut1, aliases(vec_grad, {&out_grad}));
      Tensor& o = buf.get();
      o.resize(Shape{n}, x.dtype());
      for (int64_t j = 0; j < n; ++j) o.data<T>()[j] = static_cast<T>(vg[j]);
      buf.finish();
    }
  });
}

}  // namespace fluidc::kernels
