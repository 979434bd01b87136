// kernels/cpu/cumprod.cc - cumprod and its gradient: running products along one dim, zeros handled exactly.
#include "kernels/cpu/index_util.h"
#include "kernels/index_misc.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// The lines of X along `dim` (a 0-D X is one line of one element).
AxisView lines(const char* op, const Shape& s, int dim) {
  if (s.rank == 0) return AxisView{};
  return axis_view(s, canonical_axis(op, "dim", dim, s.rank));
}

}  // namespace

void cumprod(const Tensor& x, Tensor& out, const CumprodAttrs& attrs) {
  const char* op = "cumprod";
  require_init(op, "X", x);
  const AxisView v = lines(op, x.shape(), attrs.dim);
  // Element (o, m, j) is read before it is written at the same place and
  // later reads only the output: safe in place.
  if (&out != &x) out.resize(x.shape(), x.dtype());
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.data<T>();
    const int64_t n = v.inner;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t m = 0; m < v.mid; ++m) {
        const int64_t base = (o * v.mid + m) * n;
        for (int64_t j = 0; j < n; ++j) po[base + j] = m == 0 ? px[base + j] : static_cast<T>(po[base - n + j] * px[base + j]);
      }
  });
}

void cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                  const CumprodAttrs& attrs) {
  const char* op = "cumprod_grad";
  (void)out;
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "X", x, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  const AxisView v = lines(op, x.shape(), attrs.dim);
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &out_grad}));
  Tensor& g = buf.get();
  g.resize(x.shape(), x.dtype());
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>(), *pg = out_grad.data<T>();
    T* pd = g.data<T>();
    // Per line: dx[j] = P[j-1] * S[j] with P the prefix product before j and
    // S[j] = dout[j] + x[j+1] * S[j+1] (S[last] = dout[last]); S runs from
    // the end into pd, then the prefix products multiply in from the start.
    const int64_t n = v.inner, len = v.mid;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t base = o * len * n + j;
        T s = 0;
        for (int64_t m = len - 1; m >= 0; --m) {
          const int64_t at = base + m * n;
          s = m == len - 1 ? pg[at] : static_cast<T>(pg[at] + px[at + n] * s);
          pd[at] = s;
        }
        T p = 1;
        for (int64_t m = 0; m < len; ++m) {
          const int64_t at = base + m * n;
          const T xm = px[at];
          pd[at] = static_cast<T>(pd[at] * p);
          p = static_cast<T>(p * xm);
        }
      }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
