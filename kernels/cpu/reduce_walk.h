// kernels/cpu/reduce_walk.h - the reduce plan, the joint walk of X and its reduced (kept) shape, and the folds and
// X/Out-reading gradients built on it, shared by the reduce kernels.
#pragma once

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/reduce.h"

namespace fluidc::kernels::detail {

/// The shared rule (kernels/shapes/reduce.h); fails with the op's name.
inline shapes::ReducePlan plan_reduce(const char* op, const Shape& xs, const ReduceAttrs& a) {
  shapes::ReducePlan p;
  require_rule(op, shapes::reduce_shape(xs, a, p));
  return p;
}

/// The joint iteration space of X and of the kept (reduced, keep-dim) shape
/// broadcast back over it: strides[0] walks X, strides[1] the kept tensor.
inline StridedSpace<2> x_and_kept_space(const Shape& xs, const Shape& kept) {
  StridedSpace<2> s;
  s.rank = xs.rank;
  for (int i = 0; i < xs.rank; ++i) s.dims[i] = xs.d[i];
  broadcast_strides(xs, s.strides[0]);
  broadcast_strides(kept, s.strides[1]);
  simplify(s);
  return s;
}

/// acc[kept index] = fold(acc, x) over every element of x (acc set to the
/// identity by the caller). Runs that fold into one value stay in a register.
template <class T, class A, class Fold>
inline void fold_into(const T* x, const Shape& xs, const Shape& kept, A* acc, Fold fold) {
  StridedSpace<2> s = x_and_kept_space(xs, kept);
  for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
    const T* px = x + off[0];
    if (st[1] == 0) {
      A local = acc[off[1]];
      if (st[0] == 1)
        for (int64_t i = 0; i < n; ++i) local = fold(local, px[i]);
      else
        for (int64_t i = 0; i < n; ++i) local = fold(local, px[i * st[0]]);
      acc[off[1]] = local;
    } else {
      A* pa = acc + off[1];
      for (int64_t i = 0; i < n; ++i) pa[i * st[1]] = fold(pa[i * st[1]], px[i * st[0]]);
    }
  });
}

/// dx[i] = fn(x[i], out[kept i], dout[kept i]) over X's shape.
template <class T, class Fn>
void grad_walk(const T* x, const T* out, const T* dout, const Shape& xs, const Shape& kept, T* dx, Fn fn) {
  StridedSpace<2> s = x_and_kept_space(xs, kept);
  for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t xi = off[0] + i * st[0], ki = off[1] + i * st[1];
      dx[xi] = fn(x[xi], out[ki], dout[ki]);
    }
  });
}

// Out = fold over the plan, starting from `init`, in X's dtype.
template <class Init, class Fold>
void fold_reduce(const char* op, const Tensor& x, Tensor& out, const ReduceAttrs& attrs, Init init, Fold fold) {
  require_init(op, "X", x);
  const shapes::ReducePlan p = plan_reduce(op, x.shape(), attrs);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    o.resize(p.out, x.dtype());
    T* po = o.data<T>();
    const T v0 = init(tag);
    for (int64_t i = 0, n = p.out.numel(); i < n; ++i) po[i] = v0;
    fold_into<T, T>(x.data<T>(), x.shape(), p.kept, po, [&](T a, T b) { return fold(a, b); });
  });
  buf.finish();
}

// The checks of a gradient that reads X, Out and Out@GRAD, and its plan.
inline shapes::ReducePlan checked_xout_plan(const char* op, const Tensor& x, const Tensor& out, const Tensor& dout,
                                            const ReduceAttrs& attrs) {
  require_init(op, "X", x);
  require_init(op, "Out", out);
  require_init(op, "Out@GRAD", dout);
  shapes::ReducePlan p = plan_reduce(op, x.shape(), attrs);
  for (const Tensor* t : {&out, &dout})
    if (t->numel() != p.out.numel())
      rt::fail(fmt::format("{}: Out / Out@GRAD {} do not match reducing X {} to {}", op, t->shape().str(),
                           x.shape().str(), p.out.str()));
  require_same_dtype(op, "X", x, "Out@GRAD", dout);
  require_same_dtype(op, "X", x, "Out", out);
  return p;
}

// The gradients that read X, Out and Out@GRAD: dx = fn(x, out, dout).
template <class Fn>
void xout_grad(const char* op, const Tensor& x, const Tensor& out, const Tensor& dout, Tensor* dx,
               const ReduceAttrs& attrs, Fn fn) {
  if (!dx) return;
  const shapes::ReducePlan p = checked_xout_plan(op, x, out, dout, attrs);
  OutBuf buf(dx, Slot::kOut0, aliases(dx, {&x, &out, &dout}));
  Tensor& g = buf.get();
  const Shape xs = x.shape();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    g.resize(xs, x.dtype());
    grad_walk<T>(x.data<T>(), out.data<T>(), dout.data<T>(), xs, p.kept, g.data<T>(),
                 [&](T xv, T ov, T gv) { return fn(xv, ov, gv); });
  });
  buf.finish();
}

}  // namespace fluidc::kernels::detail
