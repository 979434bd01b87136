// kernels/cpu/unary_impl.h - the element loops and scratch arrays shared by the activation kernels.
#pragma once

#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels::detail {

/// Out[i] = fn(X[i]). Reading X[i] before writing Out[i] makes out == x safe.
template <class Visit, class Fn>
void unary(const char* op, const Tensor& x, Tensor& out, Visit visit, Fn fn) {
  require_init(op, "X", x);
  out.resize(x.shape(), x.dtype());
  visit(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) po[i] = fn(px[i]);
  });
}

/// X@GRAD[i] = fn(A[i], Out@GRAD[i]) where A is Out or X depending on the op.
/// Same-index access again makes any aliasing of X@GRAD safe.
template <class Visit, class Fn>
void unary_grad(const char* op, const char* a_role, const Tensor& a, const Tensor& dout, Tensor* dx,
                Visit visit, Fn fn) {
  if (!dx) return;
  require_init(op, a_role, a);
  require_init(op, "Out@GRAD", dout);
  require_same_shape(op, a_role, a, "Out@GRAD", dout);
  require_same_dtype(op, a_role, a, "Out@GRAD", dout);
  dx->resize(a.shape(), a.dtype());
  visit(op, a_role, a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pd = dout.data<T>();
    T* px = dx->data<T>();
    for (int64_t i = 0, n = a.numel(); i < n; ++i) px[i] = fn(pa[i], pd[i]);
  });
}

// Generic lambdas stand in for the scalar functors; the visit helpers are
// wrapped so they can be passed as values.
inline constexpr auto kFloat = [](const char* op, const char* role, DType t, auto&& f) {
  visit_float(op, role, t, f);
};
inline constexpr auto kNumeric = [](const char* op, const char* role, DType t, auto&& f) {
  visit_numeric(op, role, t, f);
};

/// X@GRAD[i] = fn(X[i], Out[i], Out@GRAD[i]) for gradients that need both.
template <class Visit, class Fn>
void unary_grad_xo(const char* op, const Tensor& x, const Tensor& o, const Tensor& dout, Tensor* dx, Visit visit,
                   Fn fn) {
  if (!dx) return;
  require_init(op, "X", x);
  require_init(op, "Out", o);
  require_init(op, "Out@GRAD", dout);
  require_same_shape(op, "X", x, "Out", o);
  require_same_shape(op, "X", x, "Out@GRAD", dout);
  require_same_dtype(op, "X", x, "Out", o);
  require_same_dtype(op, "X", x, "Out@GRAD", dout);
  dx->resize(x.shape(), x.dtype());
  visit(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* po = o.data<T>();
    const T* pd = dout.data<T>();
    T* pg = dx->data<T>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) pg[i] = fn(px[i], po[i], pd[i]);
  });
}

/// n elements of T in the thread's scratch tensor `slot` (kernel_util.h):
/// reused from call to call, so a kernel in steady state does not allocate.
template <class T>
T* scratch_array(Slot slot, int64_t n) {
  Tensor& t = scratch(slot);
  t.resize(Shape{n}, DTypeOf<T>::value);
  return t.data<T>();
}

}  // namespace fluidc::kernels::detail
