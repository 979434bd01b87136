// kernels/cpu/reduce_lse_amax.cc - logsumexp and reduce_amax / reduce_amin with grads (ties share the gradient).
#include <cmath>
#include <limits>

#include "kernels/cpu/reduce_walk.h"
#include "kernels/reduce.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// X@GRAD = Out@GRAD / ties where X equals its Out, 0 elsewhere; `ties`
// counts the X equal to Out in each group (first walk), so tied extrema
// share the gradient evenly as Paddle's amax / amin do.
void tie_split_grad(const char* op, const Tensor& x, const Tensor& out, const Tensor& dout, Tensor* dx,
                    const ReduceAttrs& attrs) {
  if (!dx) return;
  const shapes::ReducePlan p = checked_xout_plan(op, x, out, dout, attrs);
  double* ties = zeroed(Slot::kAcc, p.out.numel());
  OutBuf buf(dx, Slot::kOut0, aliases(dx, {&x, &out, &dout}));
  Tensor& g = buf.get();
  const Shape xs = x.shape();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>(), *po = out.data<T>(), *pg = dout.data<T>();
    const StridedSpace<2> s = x_and_kept_space(xs, p.kept);
    for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = off[1] + i * st[1];
        ties[k] += px[off[0] + i * st[0]] == po[k] ? 1.0 : 0.0;
      }
    });
    g.resize(xs, x.dtype());
    T* pd = g.data<T>();
    for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t xi = off[0] + i * st[0], k = off[1] + i * st[1];
        pd[xi] = px[xi] == po[k] ? static_cast<T>(pg[k] / ties[k]) : T(0);
      }
    });
  });
  buf.finish();
}

}  // namespace

void reduce_amax(const Tensor& x, Tensor& out, const ReduceAttrs& attrs) {
  fold_reduce("reduce_amax", x, out, attrs, [](auto t) { return std::numeric_limits<decltype(t)>::lowest(); },
              [](auto a, auto b) { return b > a ? b : a; });
}

void reduce_amin(const Tensor& x, Tensor& out, const ReduceAttrs& attrs) {
  fold_reduce("reduce_amin", x, out, attrs, [](auto t) { return std::numeric_limits<decltype(t)>::max(); },
              [](auto a, auto b) { return b < a ? b : a; });
}

void reduce_amax_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                      const ReduceAttrs& attrs) {
  tie_split_grad("reduce_amax_grad", x, out, out_grad, x_grad, attrs);
}

void reduce_amin_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                      const ReduceAttrs& attrs) {
  tie_split_grad("reduce_amin_grad", x, out, out_grad, x_grad, attrs);
}

void logsumexp(const Tensor& x, Tensor& out, const LogsumexpAttrs& attrs) {
  const char* op = "logsumexp";
  require_init(op, "X", x);
  const shapes::ReducePlan p = plan_reduce(op, x.shape(), shapes::logsumexp_as_reduce(attrs));
  const int64_t n = p.out.numel();
  // The group maxima, then sum exp(x - max) in double, both in scratch so
  // Out may be X.
  double* mx = zeroed(Slot::kAcc, n);
  double* sum = zeroed(Slot::kTmp0, n);
  for (int64_t i = 0; i < n; ++i) mx[i] = -std::numeric_limits<double>::infinity();
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    fold_into<T, double>(px, x.shape(), p.kept, mx, [](double m, T v) { return v > m ? double(v) : m; });
    const StridedSpace<2> s = x_and_kept_space(x.shape(), p.kept);
    for_each_run(s, [&](const int64_t* off, int64_t len, const int64_t* st) {
      for (int64_t i = 0; i < len; ++i) {
        const int64_t k = off[1] + i * st[1];
        if (std::isfinite(mx[k])) sum[k] += std::exp(double(px[off[0] + i * st[0]]) - mx[k]);
      }
    });
    o.resize(p.out, x.dtype());
    T* po = o.data<T>();
    for (int64_t i = 0; i < n; ++i) po[i] = static_cast<T>(std::isfinite(mx[i]) ? mx[i] + std::log(sum[i]) : mx[i]);
  });
  buf.finish();
}

void logsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                    const LogsumexpAttrs& attrs) {
  xout_grad("logsumexp_grad", x, out, out_grad, x_grad, shapes::logsumexp_as_reduce(attrs),
            [](auto xv, auto ov, auto gv) { return static_cast<decltype(gv)>(gv * std::exp(xv - ov)); });
}

}  // namespace fluidc::kernels
