// kernels/cpu/index_scan.cc - cumsum (+grad) and range: running sums along an axis and arithmetic sequences.
#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/index_util.h"
#include "kernels/index.h"
#include "kernels/shapes/index.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// Running sums of src into dst along the middle of `v`, row by row so the
// inner loop runs over contiguous columns. dst may be src unless exclusive.
template <class T>
void scan(const T* src, T* dst, const AxisView& v, bool exclusive, bool reverse) {
  const int64_t n = v.inner;
  for (int64_t o = 0; o < v.outer; ++o) {
    const T* s = src + o * v.mid * n;
    T* d = dst + o * v.mid * n;
    for (int64_t step = 0; step < v.mid; ++step) {
      const int64_t m = reverse ? v.mid - 1 - step : step;
      T* row = d + m * n;
      if (step == 0) {
        const T* in = s + m * n;
        for (int64_t j = 0; j < n; ++j) row[j] = exclusive ? T(0) : in[j];
        continue;
      }
      const int64_t p = reverse ? m + 1 : m - 1;  // the previous position in scan order
      const T* prev = d + p * n;
      const T* in = s + (exclusive ? p : m) * n;
      for (int64_t j = 0; j < n; ++j) row[j] = prev[j] + in[j];
    }
  }
}

AxisView scan_view(const char* op, const Shape& s, const CumsumAttrs& a) {
  if (a.flatten || s.rank == 0) {
    AxisView v;
    v.mid = s.numel();
    return v;
  }
  return axis_view(s, canonical_axis(op, "axis", a.axis, s.rank));
}

void run_scan(const char* op, const Tensor& x, const Shape& out_shape, const AxisView& v, bool exclusive,
              bool reverse, Tensor& out) {
  // Exclusive sums read the previous input after its position was written.
  OutBuf buf(&out, Slot::kOut0, exclusive && &out == &x);
  Tensor& o = buf.get();
  o.resize(out_shape, x.dtype());
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    scan(x.data<T>(), o.data<T>(), v, exclusive, reverse);
  });
  buf.finish();
}

}  // namespace

void cumsum(const Tensor& x, Tensor& out, const CumsumAttrs& a) {
  require_init("cumsum", "X", x);
  Shape s;
  require_rule("cumsum", shapes::cumsum_shape(x.shape(), a, s));
  run_scan("cumsum", x, s, scan_view("cumsum", x.shape(), a), a.exclusive, a.reverse, out);
}

void cumsum_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const CumsumAttrs& a) {
  if (!x_grad) return;
  require_init("cumsum_grad", "Out@GRAD", out_grad);
  if (out_grad.numel() != x.numel())
    rt::fail(fmt::format("cumsum_grad: Out@GRAD {} does not match X {}", out_grad.shape().str(), x.shape().str()));
  // Each input element reaches the outputs after it in scan order: the
  // gradient is the same scan run the other way.
  run_scan("cumsum_grad", out_grad, out_grad.shape(), scan_view("cumsum_grad", out_grad.shape(), a), a.exclusive,
           !a.reverse, *x_grad);
  x_grad->resize(x.shape());
}

void range(const Tensor& start, const Tensor& end, const Tensor& step, Tensor& out) {
  const double s = scalar_of("range", "Start", start), e = scalar_of("range", "End", end),
               st = scalar_of("range", "Step", step);
  int64_t n = 0;
  require_rule("range", shapes::range_size(s, e, st, n));
  out.resize(Shape{n}, start.dtype());
  visit_numeric("range", "Start", start.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* od = out.data<T>();
    // Accumulated rather than start + i * step: Paddle's values, bit for bit.
    T value = static_cast<T>(s);
    const T inc = static_cast<T>(st);
    for (int64_t i = 0; i < n; ++i, value += inc) od[i] = value;
  });
}

}  // namespace fluidc::kernels
