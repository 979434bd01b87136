// kernels/cpu/reduce_ext.cc - reduce_max/min/prod/any/all, p_norm and frobenius_norm with grads: folds along the shared reduce walk.
#include <cmath>
#include <limits>

#include "kernels/cpu/reduce_walk.h"
#include "kernels/reduce.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

using shapes::ReducePlan;

// any / all: Out (bool) = fold of (x != 0).
void logical_reduce(const char* op, const Tensor& x, Tensor& out, const ReduceAttrs& attrs, bool is_all) {
  require_init(op, "X", x);
  const ReducePlan p = plan_reduce(op, x.shape(), attrs);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  o.resize(p.out, DType::kBool);
  bool* po = o.data<bool>();
  for (int64_t i = 0, n = p.out.numel(); i < n; ++i) po[i] = is_all;
  visit_all(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (is_all)
      fold_into<T, bool>(x.data<T>(), x.shape(), p.kept, po, [](bool a, T b) { return a && b != T(0); });
    else
      fold_into<T, bool>(x.data<T>(), x.shape(), p.kept, po, [](bool a, T b) { return a || b != T(0); });
  });
  buf.finish();
}

template <class T> T sign_of(T v) { return static_cast<T>((v > T(0)) - (v < T(0))); }

/// po = sqrt of the sum of squares of px over the plan's reduced dims, summed
/// in `pa` (double, zeroed, one per output): p_norm's p = 2 and frobenius_norm.
template <class T>
void root_sum_squares(const T* px, const Shape& xs, const ReducePlan& p, double* pa, T* po) {
  fold_into<T, double>(px, xs, p.kept, pa, [](double s, T v) { return s + double(v) * v; });
  for (int64_t i = 0, n = p.out.numel(); i < n; ++i) po[i] = static_cast<T>(std::sqrt(pa[i]));
}

}  // namespace

void reduce_max(const Tensor& x, Tensor& out, const ReduceAttrs& attrs) {
  fold_reduce("reduce_max", x, out, attrs, [](auto t) { return std::numeric_limits<decltype(t)>::lowest(); },
              [](auto a, auto b) { return b > a ? b : a; });
}

void reduce_min(const Tensor& x, Tensor& out, const ReduceAttrs& attrs) {
  fold_reduce("reduce_min", x, out, attrs, [](auto t) { return std::numeric_limits<decltype(t)>::max(); },
              [](auto a, auto b) { return b < a ? b : a; });
}

void reduce_prod(const Tensor& x, Tensor& out, const ReduceAttrs& attrs) {
  fold_reduce("reduce_prod", x, out, attrs, [](auto t) { return static_cast<decltype(t)>(1); },
              [](auto a, auto b) { return a * b; });
}

void reduce_max_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                     const ReduceAttrs& attrs) {
  xout_grad("reduce_max_grad", x, out, out_grad, x_grad, attrs,
            [](auto xv, auto ov, auto gv) { return xv == ov ? gv : decltype(gv)(0); });
}

void reduce_min_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                     const ReduceAttrs& attrs) {
  xout_grad("reduce_min_grad", x, out, out_grad, x_grad, attrs,
            [](auto xv, auto ov, auto gv) { return xv == ov ? gv : decltype(gv)(0); });
}

void reduce_prod_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                      const ReduceAttrs& attrs) {
  xout_grad("reduce_prod_grad", x, out, out_grad, x_grad, attrs,
            [](auto xv, auto ov, auto gv) { return gv * ov / xv; });
}

void reduce_any(const Tensor& x, Tensor& out, const ReduceAttrs& attrs) {
  logical_reduce("reduce_any", x, out, attrs, false);
}

void reduce_all(const Tensor& x, Tensor& out, const ReduceAttrs& attrs) {
  logical_reduce("reduce_all", x, out, attrs, true);
}

void p_norm(const Tensor& x, Tensor& out, const PNormAttrs& a) {
  const char* op = "p_norm";
  require_init(op, "X", x);
  const ReducePlan p = plan_reduce(op, x.shape(), shapes::p_norm_as_reduce(a));
  const double porder = a.porder;
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    o.resize(p.out, x.dtype());
    T* po = o.data<T>();
    const int64_t n = p.out.numel();
    const T* px = x.data<T>();
    auto fill = [&](T v) {
      for (int64_t i = 0; i < n; ++i) po[i] = v;
    };
    if (std::isinf(porder) && porder > 0) {
      fill(T(0));
      fold_into<T, T>(px, x.shape(), p.kept, po, [](T m, T v) { return std::max(m, std::abs(v)); });
      buf.finish();
      return;
    }
    if (std::isinf(porder)) {
      fill(std::numeric_limits<T>::infinity());
      fold_into<T, T>(px, x.shape(), p.kept, po, [](T m, T v) { return std::min(m, std::abs(v)); });
      buf.finish();
      return;
    }
    // Sums in double (scratch accumulator), as reduce_sum does.
    Tensor& acc = scratch(Slot::kAcc);
    acc.resize(Shape{n}, DType::kFP64);
    acc.zero();
    double* pa = acc.data<double>();
    if (porder == 0) {
      fold_into<T, double>(px, x.shape(), p.kept, pa, [](double s, T v) { return s + (v != T(0) ? 1.0 : 0.0); });
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<T>(pa[i]);
    } else if (porder == 2) {
      root_sum_squares(px, x.shape(), p, pa, po);
    } else if (porder == 1) {
      fold_into<T, double>(px, x.shape(), p.kept, pa, [](double s, T v) { return s + std::abs(double(v)); });
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<T>(pa[i]);
    } else {
      fold_into<T, double>(px, x.shape(), p.kept, pa,
                           [porder](double s, T v) { return s + std::pow(std::abs(double(v)), porder); });
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<T>(std::pow(pa[i], 1.0 / porder));
    }
  });
  buf.finish();
}

void p_norm_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const PNormAttrs& a) {
  const double porder = a.porder;
  const double eps = a.epsilon;
  const ReduceAttrs r = shapes::p_norm_as_reduce(a);
  const char* op = "p_norm_grad";
  if (porder == 0) {
    xout_grad(op, x, out, out_grad, x_grad, r, [](auto, auto, auto gv) { return decltype(gv)(0); });
  } else if (std::isinf(porder)) {
    xout_grad(op, x, out, out_grad, x_grad, r, [](auto xv, auto ov, auto gv) {
      return std::abs(xv) == ov ? gv * sign_of(xv) : decltype(gv)(0);
    });
  } else {
    xout_grad(op, x, out, out_grad, x_grad, r, [porder, eps](auto xv, auto ov, auto gv) {
      using T = decltype(gv);
      const double ax = std::abs(static_cast<double>(xv));
      const double f = std::pow(ax, porder - 1) / std::pow(static_cast<double>(ov) + eps, porder - 1);
      return static_cast<T>(static_cast<double>(gv) * sign_of(xv) * f);
    });
  }
}

void frobenius_norm(const Tensor& x, Tensor& out, const ReduceAttrs& a) {
  const char* op = "frobenius_norm";
  require_init(op, "X", x);
  const ReducePlan p = plan_reduce(op, x.shape(), a);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    o.resize(p.out, x.dtype());
    root_sum_squares(x.data<T>(), x.shape(), p, zeroed(Slot::kAcc, p.out.numel()), o.data<T>());
  });
  buf.finish();
}

void frobenius_norm_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                         const ReduceAttrs& a) {
  xout_grad("frobenius_norm_grad", x, out, out_grad, x_grad, a,
            [](auto xv, auto ov, auto gv) { return static_cast<decltype(gv)>(gv * xv / ov); });
}

}  // namespace fluidc::kernels
