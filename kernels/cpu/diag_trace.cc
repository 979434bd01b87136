// kernels/cpu/diag_trace.cc - diag_v2, eye and trace with their gradients: walks along one diagonal.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/linalg_misc.h"
#include "kernels/shapes/linalg_misc.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// First element of diagonal `offset` in a row-major [h, w] matrix, and its step.
int64_t diag_start(int64_t w, int64_t offset) { return offset >= 0 ? offset : -offset * w; }

// A vector of X's elements placed on diagonal `offset` of `out`, the rest `fill`.
template <class T>
void vector_to_diag(const T* v, int64_t n, int64_t offset, T fill, Tensor& out) {
  const int64_t side = out.shape().d[0];
  T* o = out.data<T>();
  std::fill(o, o + side * side, fill);
  const int64_t start = diag_start(side, offset);
  for (int64_t i = 0; i < n; ++i) o[start + i * (side + 1)] = v[i];
}

// The layout of trace's Input as [outer, a, mid, b, inner] around the two
// matrix axes (a before b in memory), with Out indexed by (outer, mid, inner).
// As in Paddle 2.6.2, the matrix's rows are the earlier axis of the two
// whichever of axis1 and axis2 names it; offset counts from there.
struct TraceWalk {
  int64_t outer = 1, da = 1, mid = 1, db = 1, inner = 1;
  int64_t len = 0, row_off = 0, col_off = 0;  // diagonal length and its first (a, b) position

  TraceWalk(const char* op, const Shape& s, const TraceAttrs& a) {
    int ax1 = 0, ax2 = 0;
    require_rule(op, shapes::trace_axes(s, a, ax1, ax2));
    const int lo = std::min(ax1, ax2), hi = std::max(ax1, ax2);
    outer = prod(s, 0, lo), da = s.d[lo], mid = prod(s, lo + 1, hi), db = s.d[hi], inner = prod(s, hi + 1, s.rank);
    len = std::max<int64_t>(0, shapes::diagonal_length(da, db, a.offset));
    // Element k of the diagonal is (a, b) = (row_off + k, col_off + k).
    row_off = a.offset >= 0 ? 0 : -a.offset;
    col_off = a.offset >= 0 ? a.offset : 0;
  }
  // Input offset of diagonal element k of matrix (o, m, i).
  int64_t at(int64_t o, int64_t m, int64_t i, int64_t k) const {
    return (((o * da + row_off + k) * mid + m) * db + col_off + k) * inner + i;
  }
  template <class Body>
  void each(Body body) const {  // body(out index, input offset of element k) over every matrix and k
    int64_t j = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t m = 0; m < mid; ++m)
        for (int64_t i = 0; i < inner; ++i, ++j)
          for (int64_t k = 0; k < len; ++k) body(j, at(o, m, i, k));
  }
};

}  // namespace

void diag_v2(const Tensor& x, Tensor& out, const DiagV2Attrs& attrs) {
  constexpr const char* op = "diag_v2";
  require_init(op, "X", x);
  Shape os;
  require_rule(op, shapes::diag_v2_shape(x.shape(), attrs, os));
  if (&out == &x) rt::fail("diag_v2: Out must not be X");
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    out.resize(os, x.dtype());
    const T* xv = x.data<T>();
    if (x.shape().rank <= 1) {
      vector_to_diag<T>(xv, x.numel(), attrs.offset, static_cast<T>(attrs.padding_value), out);
      return;
    }
    const int64_t w = x.shape().d[1], start = diag_start(w, attrs.offset);
    T* o = out.data<T>();
    for (int64_t i = 0; i < os.d[0]; ++i) o[i] = xv[start + i * (w + 1)];
  });
}

void diag_v2_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const DiagV2Attrs& attrs) {
  constexpr const char* op = "diag_v2_grad";
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", out_grad);
  Shape os;
  require_rule(op, shapes::diag_v2_shape(x.shape(), attrs, os));
  if (out_grad.shape() != os) rt::fail(fmt::format("{}: Out@GRAD has shape {}, expected {}", op, out_grad.shape().str(), os.str()));
  visit_float(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    x_grad->resize(x.shape(), out_grad.dtype());
    const T* g = out_grad.data<T>();
    T* dx = x_grad->data<T>();
    if (x.shape().rank <= 1) {  // read the diagonal back
      const int64_t side = os.d[0], start = diag_start(side, attrs.offset);
      for (int64_t i = 0; i < x.numel(); ++i) dx[i] = g[start + i * (side + 1)];
      return;
    }
    std::fill(dx, dx + x.numel(), T(0));
    const int64_t w = x.shape().d[1], start = diag_start(w, attrs.offset);
    for (int64_t i = 0; i < os.d[0]; ++i) dx[start + i * (w + 1)] = g[i];
  });
}

void eye(Tensor& out, const EyeAttrs& attrs) {
  constexpr const char* op = "eye";
  Shape os;
  require_rule(op, shapes::eye_shape(attrs, os));
  if (!rt::dtype_is_valid(attrs.dtype)) rt::fail(fmt::format("eye: dtype {} is not a tensor dtype", attrs.dtype));
  const DType dt = static_cast<DType>(attrs.dtype);
  visit_numeric(op, "dtype", dt, [&](auto tag) {
    using T = decltype(tag);
    out.resize(os, dt);
    T* o = out.data<T>();
    std::fill(o, o + os.numel(), T(0));
    for (int64_t i = 0; i < std::min(os.d[0], os.d[1]); ++i) o[i * (os.d[1] + 1)] = T(1);
  });
}

void trace(const Tensor& input, Tensor& out, const TraceAttrs& attrs) {
  constexpr const char* op = "trace";
  require_init(op, "Input", input);
  Shape os;
  require_rule(op, shapes::trace_shape(input.shape(), attrs, os));
  const TraceWalk walk(op, input.shape(), attrs);
  if (&out == &input) rt::fail("trace: Out must not be Input");
  visit_numeric(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    out.resize(os, input.dtype());
    T* o = out.data<T>();
    const T* x = input.data<T>();
    std::fill(o, o + os.numel(), T(0));
    walk.each([&](int64_t j, int64_t xo) { o[j] += x[xo]; });
  });
}

void trace_grad(const Tensor& input, const Tensor& out_grad, Tensor* input_grad, const TraceAttrs& attrs) {
  constexpr const char* op = "trace_grad";
  if (!input_grad) return;
  require_init(op, "Input", input);
  require_init(op, "Out@GRAD", out_grad);
  Shape os;
  require_rule(op, shapes::trace_shape(input.shape(), attrs, os));
  if (out_grad.shape() != os) rt::fail(fmt::format("{}: Out@GRAD has shape {}, expected {}", op, out_grad.shape().str(), os.str()));
  const TraceWalk walk(op, input.shape(), attrs);
  visit_float(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    input_grad->resize(input.shape(), out_grad.dtype());
    T* dx = input_grad->data<T>();
    const T* g = out_grad.data<T>();
    std::fill(dx, dx + input.numel(), T(0));
    walk.each([&](int64_t j, int64_t xo) { dx[xo] = g[j]; });
  });
}

}  // namespace fluidc::kernels
