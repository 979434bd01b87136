// kernels/cpu/unary_impl.h - the element loops and scratch arrays shared by the activation kernels.
#pragma once

#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels::detail {

/// out[i] = fn(in[i]...) for i in [0, n). The output may be the very input array (the memory plan's
/// OpDef::in_place pairs), which made the compiler's overlap check fail and run the scalar loop (gelu_grad
/// in place was 27% of the BERT-tiny step); each i reads its inputs before writing, so fp32 loops are told
/// it is safe. The loads and the store must stay in this loop's own body (not in a lambda): the hint only
/// covers the memory accesses written inside the loop. Other types' bodies are mostly libm calls that do
/// not vectorise anyway (the hint would only warn).
template <class T, class Fn, class... In>
[[gnu::always_inline]] inline void same_index_map(int64_t n, T* out, Fn&& fn, const In*... in) {
  if constexpr (std::is_same_v<T, float>) {
    FLUIDC_ELEMENTWISE_LOOP
    for (int64_t i = 0; i < n; ++i) out[i] = fn(in[i]...);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = fn(in[i]...);
  }
}

/// An fp32 loop over whole arrays, out[i] = f(in[i]...), compiled per
/// instruction set (isa_clones.h) for the costly activations: unary() and
/// unary_grad() run it instead of their own baseline loop.
using F32Map1 = void (*)(int64_t n, float* out, const float* a);
using F32Map2 = void (*)(int64_t n, float* out, const float* a, const float* b);

/// Out[i] = fn(X[i]). Reading X[i] before writing Out[i] makes out == x safe.
template <class Visit, class Fn>
void unary(const char* op, const Tensor& x, Tensor& out, Visit visit, Fn fn, F32Map1 f32 = nullptr) {
  require_init(op, "X", x);
  out.resize(x.shape(), x.dtype());
  visit(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    if constexpr (std::is_same_v<T, float>)
      if (f32) return f32(x.numel(), po, px);
    same_index_map(x.numel(), po, fn, px);
  });
}

/// X@GRAD[i] = fn(A[i], Out@GRAD[i]) where A is Out or X depending on the op.
/// Same-index access again makes any aliasing of X@GRAD safe.
template <class Visit, class Fn>
void unary_grad(const char* op, const char* a_role, const Tensor& a, const Tensor& dout, Tensor* dx,
                Visit visit, Fn fn, F32Map2 f32 = nullptr) {
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
    if constexpr (std::is_same_v<T, float>)
      if (f32) return f32(a.numel(), px, pa, pd);
    same_index_map(a.numel(), px, fn, pa, pd);
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
    same_index_map(x.numel(), pg, fn, px, po, pd);
  });
}

/// Zeros shaped like Out@GRAD: the gradient Paddle gives ops that are flat
/// almost everywhere (floor, ceil, round, trunc).
inline void zero_grad(const char* op, const Tensor& out_grad, Tensor* x_grad) {
  if (!x_grad) return;
  require_init(op, "Out@GRAD", out_grad);
  x_grad->resize(out_grad.shape(), out_grad.dtype());
  visit_float(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = x_grad->data<T>();
    for (int64_t i = 0, n = x_grad->numel(); i < n; ++i) p[i] = T(0);
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
