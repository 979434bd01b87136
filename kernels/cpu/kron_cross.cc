// kernels/cpu/kron_cross.cc - kron and cross with their gradients.
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/linalg_misc.h"
#include "kernels/shapes/linalg_misc.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Out's offset of X element p is xb[p] + yb[q] with Y element q: Out index
// d is p_d * Y_d + q_d, which splits into a part from each operand.
struct KronLayout {
  Shape out;
  std::vector<int64_t> xb, yb;

  KronLayout(const char* op, const Tensor& x, const Tensor& y) {
    require_init(op, "X", x);
    require_init(op, "Y", y);
    require_same_dtype(op, "X", x, "Y", y);
    Shape xa, ya;
    require_rule(op, shapes::kron_shape(x.shape(), y.shape(), xa, ya, out));
    int64_t ostride[Shape::kMaxRank];
    int64_t s = 1;
    for (int d = out.rank - 1; d >= 0; --d) ostride[d] = s, s *= out.d[d];
    xb = bases(xa, ya, ostride, true);
    yb = bases(ya, ya, ostride, false);
  }

  // Each element's part of the Out offset: p_d * Y_d * stride_d (X) or q_d * stride_d (Y).
  static std::vector<int64_t> bases(const Shape& s, const Shape& ya, const int64_t* ostride, bool scale) {
    std::vector<int64_t> b(static_cast<size_t>(s.numel()));
    int64_t idx[Shape::kMaxRank] = {};
    for (auto& v : b) {
      v = 0;
      for (int d = 0; d < s.rank; ++d) v += idx[d] * (scale ? ya.d[d] : 1) * ostride[d];
      for (int d = s.rank - 1; d >= 0; --d) {
        if (++idx[d] < s.d[d]) break;
        idx[d] = 0;
      }
    }
    return b;
  }
};

int cross_axis(const char* op, const Tensor& x, const Tensor& y, const CrossAttrs& a) {
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_same_dtype(op, "X", x, "Y", y);
  int axis = 0;
  require_rule(op, shapes::cross_axis(x.shape(), y.shape(), a, axis));
  return axis;
}

// r = a x b over [outer, 3, inner] vectors; r must not alias a or b.
template <class T>
void cross_into(const Shape& s, int axis, const T* a, const T* b, T* r) {
  const int64_t outer = prod(s, 0, axis), inner = prod(s, axis + 1, s.rank);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t p0 = o * 3 * inner + i, p1 = p0 + inner, p2 = p1 + inner;
      r[p0] = a[p1] * b[p2] - a[p2] * b[p1];
      r[p1] = a[p2] * b[p0] - a[p0] * b[p2];
      r[p2] = a[p0] * b[p1] - a[p1] * b[p0];
    }
}

}  // namespace

void kron(const Tensor& x, const Tensor& y, Tensor& out) {
  constexpr const char* op = "kron";
  const KronLayout l(op, x, y);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &y}));
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& o = buf.get();
    o.resize(l.out, x.dtype());
    const T* xv = x.data<T>();
    const T* yv = y.data<T>();
    T* ov = o.data<T>();
    for (size_t p = 0; p < l.xb.size(); ++p)
      for (size_t q = 0; q < l.yb.size(); ++q) ov[l.xb[p] + l.yb[q]] = xv[p] * yv[q];
  });
  buf.finish();
}

void kron_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad) {
  constexpr const char* op = "kron_grad";
  const KronLayout l(op, x, y);
  require_init(op, "Out@GRAD", out_grad);
  if (out_grad.shape() != l.out)
    rt::fail(fmt::format("{}: Out@GRAD has shape {}, expected {}", op, out_grad.shape().str(), l.out.str()));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xv = x.data<T>();
    const T* yv = y.data<T>();
    const T* g = out_grad.data<T>();
    std::vector<Acc<T>> dx(l.xb.size(), 0), dy(l.yb.size(), 0);
    for (size_t p = 0; p < l.xb.size(); ++p)
      for (size_t q = 0; q < l.yb.size(); ++q) {
        const Acc<T> gv = g[l.xb[p] + l.yb[q]];
        dx[p] += gv * yv[q];
        dy[q] += gv * xv[p];
      }
    if (x_grad) {
      x_grad->resize(x.shape(), x.dtype());
      for (size_t p = 0; p < dx.size(); ++p) x_grad->data<T>()[p] = static_cast<T>(dx[p]);
    }
    if (y_grad) {
      y_grad->resize(y.shape(), y.dtype());
      for (size_t q = 0; q < dy.size(); ++q) y_grad->data<T>()[q] = static_cast<T>(dy[q]);
    }
  });
}

void cross(const Tensor& x, const Tensor& y, Tensor& out, const CrossAttrs& attrs) {
  constexpr const char* op = "cross";
  const int axis = cross_axis(op, x, y, attrs);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &y}));
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& o = buf.get();
    o.resize(x.shape(), x.dtype());
    cross_into<T>(x.shape(), axis, x.data<T>(), y.data<T>(), o.data<T>());
  });
  buf.finish();
}

void cross_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad,
                const CrossAttrs& attrs) {
  constexpr const char* op = "cross_grad";
  const int axis = cross_axis(op, x, y, attrs);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "Out@GRAD", out_grad, "X", x);
  require_same_dtype(op, "Out@GRAD", out_grad, "X", x);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // g . (x X y) = x . (y X g) = y . (g X x).
    if (x_grad) {
      OutBuf bx(x_grad, Slot::kOut0, aliases(x_grad, {&x, &y, &out_grad}));
      bx.get().resize(x.shape(), x.dtype());
      cross_into<T>(x.shape(), axis, y.data<T>(), out_grad.data<T>(), bx.get().data<T>());
      bx.finish();
    }
    if (y_grad) {
      OutBuf by(y_grad, Slot::kOut1, aliases(y_grad, {&x, &y, &out_grad}));
      by.get().resize(y.shape(), y.dtype());
      cross_into<T>(x.shape(), axis, out_grad.data<T>(), x.data<T>(), by.get().data<T>());
      by.finish();
    }
  });
}

}  // namespace fluidc::kernels
