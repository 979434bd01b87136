// kernels/cpu/cum_extreme.cc - cummax and cummin (paddle.cummax / cummin) with Paddle's NaN and tie rules, and their gradients.
#include <cmath>
#include <type_traits>

#include "kernels/cpu/index_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/index.h"
#include "kernels/shapes/index_misc.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Lines along the axis: `outer` blocks of `len` positions `inner` apart.
struct Lines {
  int64_t outer = 1, len = 1, inner = 1;
};

Lines lines_of(const char* op, const Tensor& x, int axis) {
  int a = 0;
  require_rule(op, shapes::cum_axis(x.shape(), axis, a));
  Lines l;
  if (x.rank() == 0) return l;
  l.outer = prod(x.shape(), 0, a);
  l.len = x.dim(a);
  l.inner = prod(x.shape(), a + 1, x.rank());
  return l;
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

// `better(v, cur)`: v replaces the running value (>= for cummax, <= for cummin: ties move to the later
// position, as Paddle). A NaN always replaces it, and nothing but a NaN replaces a NaN.
template <class Better>
void cum_extreme(const char* op, const Tensor& x, Tensor& out, Tensor& indices, const CumExtremeAttrs& attrs,
                 Better better) {
  require_init(op, "x", x);
  if (attrs.dtype != 2 && attrs.dtype != 3)
    rt::fail(fmt::format("{}: dtype {} must be 2 (int32) or 3 (int64)", op, attrs.dtype));
  if (aliases(&indices, {&x}) || &out == &indices) rt::fail(fmt::format("{}: indices may not be an input", op));
  const Lines l = lines_of(op, x, attrs.axis);
  const bool i32 = attrs.dtype == 2;
  if (i32 && l.len > INT32_MAX) rt::fail(fmt::format("{}: axis length {} does not fit int32 indices", op, l.len));
  // Position t of a line reads X only at t before writing out at t: out may be x.
  const Shape shape = x.shape();
  indices.resize(shape, i32 ? DType::kInt32 : DType::kInt64);
  visit_numeric(op, "x", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    out.resize(shape, x.dtype());
    T* po = out.data<T>();
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t in = 0; in < l.inner; ++in) {
        const int64_t base = o * l.len * l.inner + in;
        T cur{};
        int64_t arg = 0;
        for (int64_t t = 0; t < l.len; ++t) {
          const int64_t at = base + t * l.inner;
          const T v = px[at];
          if (t == 0 || is_nan(v) || (!is_nan(cur) && better(v, cur))) {
            cur = v;
            arg = t;
          }
          po[at] = cur;
          if (i32)
            indices.data<int32_t>()[at] = static_cast<int32_t>(arg);
          else
            indices.data<int64_t>()[at] = arg;
        }
      }
  });
}

void cum_extreme_grad(const char* op, const Tensor& x, const Tensor& indices, const Tensor& out_grad,
                      Tensor* x_grad, const CumExtremeAttrs& attrs) {
  require_init(op, "out@GRAD", out_grad);
  require_same_shape(op, "x", x, "out@GRAD", out_grad);
  require_same_shape(op, "x", x, "indices", indices);
  if (!x_grad) return;
  const Lines l = lines_of(op, x, attrs.axis);
  // Indices come from the program's data: each must lie on its line.
  const int64_t* idx = checked_indices(op, "indices", indices, l.len);
  visit_float(op, "out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // x@GRAD is written by scatter: it may not share out@GRAD's bytes.
    OutBuf buf(x_grad, Slot::kOut0, x_grad == &out_grad);
    Tensor& g = buf.get();
    g.resize(x.shape(), out_grad.dtype());
    T* pg = g.data<T>();
    const T* pd = out_grad.data<T>();
    for (int64_t i = 0; i < g.numel(); ++i) pg[i] = T(0);
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t in = 0; in < l.inner; ++in) {
        const int64_t base = o * l.len * l.inner + in;
        for (int64_t t = 0; t < l.len; ++t) {
          const int64_t at = base + t * l.inner;
          pg[base + idx[at] * l.inner] += pd[at];
        }
      }
    buf.finish();
  });
}

}  // namespace

void cummax(const Tensor& x, Tensor& out, Tensor& indices, const CumExtremeAttrs& attrs) {
  cum_extreme("cummax", x, out, indices, attrs, [](auto v, auto cur) { return v >= cur; });
}
void cummin(const Tensor& x, Tensor& out, Tensor& indices, const CumExtremeAttrs& attrs) {
  cum_extreme("cummin", x, out, indices, attrs, [](auto v, auto cur) { return v <= cur; });
}
void cummax_grad(const Tensor& x, const Tensor& indices, const Tensor& out_grad, Tensor* x_grad,
                 const CumExtremeAttrs& attrs) {
  cum_extreme_grad("cummax_grad", x, indices, out_grad, x_grad, attrs);
}
void cummin_grad(const Tensor& x, const Tensor& indices, const Tensor& out_grad, Tensor* x_grad,
                 const CumExtremeAttrs& attrs) {
  cum_extreme_grad("cummin_grad", x, indices, out_grad, x_grad, attrs);
}

}  // namespace fluidc::kernels
