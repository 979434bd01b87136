// kernels/cpu/logcumsumexp.cc - logcumsumexp (paddle.logcumsumexp): a stable running log-sum-exp and its gradient.
#include <cmath>
#include <limits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/index.h"
#include "kernels/shapes/index_misc.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// The lines the scan runs along: `outer` blocks of `len` positions `inner` apart; with flatten, one line
// over every element.
struct Scan {
  int64_t outer = 1, len = 1, inner = 1;
  bool reverse = false;
  // The element index of step t (0 = where the scan starts) of line (o, in).
  int64_t at(int64_t o, int64_t in, int64_t t) const {
    const int64_t p = reverse ? len - 1 - t : t;
    return (o * len + p) * inner + in;
  }
};

Scan scan_of(const char* op, const Tensor& x, const CumsumAttrs& attrs, Shape& out_shape) {
  Scan s;
  s.reverse = attrs.reverse;
  if (attrs.flatten) {
    s.len = x.numel();
    out_shape = Shape{x.numel()};
    return s;
  }
  int a = 0;
  require_rule(op, shapes::cum_axis(x.shape(), attrs.axis, a));
  out_shape = x.shape();
  if (x.rank() == 0) return s;
  s.outer = prod(x.shape(), 0, a);
  s.len = x.dim(a);
  s.inner = prod(x.shape(), a + 1, x.rank());
  return s;
}

// log(e^a + e^b) without overflow; NaN when either is NaN.
template <class T>
T log_add_exp(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  const T hi = a > b ? a : b, lo = a > b ? b : a;
  return hi + std::log1p(std::exp(lo - hi));
}

}  // namespace

void logcumsumexp(const Tensor& x, Tensor& out, const CumsumAttrs& attrs) {
  const char* op = "logcumsumexp";
  require_init(op, "X", x);
  Shape shape;
  const Scan s = scan_of(op, x, attrs, shape);
  // Step t reads X only at its own element before writing it: Out may be X.
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    out.resize(shape, x.dtype());
    T* po = out.data<T>();
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t in = 0; in < s.inner; ++in) {
        // Paddle's scan starts from the lowest finite value, not -inf (see kernels/index_misc.h).
        T acc = std::numeric_limits<T>::lowest();
        for (int64_t t = 0; t < s.len; ++t) {
          const int64_t at = s.at(o, in, t);
          const T v = px[at];
          if (attrs.exclusive) {
            po[at] = acc;
            acc = log_add_exp(acc, v);
          } else {
            acc = log_add_exp(acc, v);
            po[at] = acc;
          }
        }
      }
  });
}

void logcumsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                       const CumsumAttrs& attrs) {
  const char* op = "logcumsumexp_grad";
  require_init(op, "X", x);
  require_init(op, "Out", out);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out", out);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  Shape shape;
  const Scan s = scan_of(op, x, attrs, shape);
  if (out.shape() != shape || out_grad.shape() != shape)
    rt::fail(fmt::format("{}: Out {} and Out@GRAD {} must be {}", op, out.shape().str(), out_grad.shape().str(),
                         shape.str()));
  if (!x_grad) return;
  // Walked from the scan's far end: each step reads its own element of the inputs before writing it, but
  // also Out at the step after it, already passed; so X@GRAD may not be Out or Out@GRAD.
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&out, &out_grad}));
  Tensor& g = buf.get();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* po = out.data<T>();
    const T* pd = out_grad.data<T>();
    g.resize(x.shape(), x.dtype());
    T* pg = g.data<T>();
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t in = 0; in < s.inner; ++in) {
        // b = sum over the later steps i >= k of Out@GRAD[i] e^(Out[k] - Out[i]), kept relative to Out at
        // step k (every later Out is at least Out[k], so no factor exceeds 1): b_k = d_k + b_{k+1}
        // e^(Out[k] - Out[k+1]). Inclusive: X@GRAD at step j is b_j e^(X[j] - Out[j]); exclusive (X[j]
        // is in the sums from step j + 1 on): b_{j+1} e^(X[j] - Out[j+1]), and 0 at the last step.
        T b = T(0), next_out = T(0);
        for (int64_t t = s.len - 1; t >= 0; --t) {
          const int64_t at = s.at(o, in, t);
          const T xv = px[at], ov = po[at], dv = pd[at];
          if (attrs.exclusive) {
            pg[at] = t == s.len - 1 ? T(0) : b * std::exp(xv - next_out);
            b = dv + (t == s.len - 1 ? T(0) : b * std::exp(ov - next_out));
          } else {
            b = dv + (t == s.len - 1 ? T(0) : b * std::exp(ov - next_out));
            pg[at] = b * std::exp(xv - ov);
          }
          next_out = ov;
        }
      }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
