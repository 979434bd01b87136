// kernels/cpu/flip_tril.cc - flip and Fluid 1.x's reverse (reverse along axes) and tril_triu (keep one triangle of each matrix) with its gradient.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/flip_tril.h"
#include "kernels/tensor_manip_more.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Copies one row of `n` elements of `es` bytes, reversed or not.
void copy_row(const char* src, char* dst, int64_t n, size_t es, bool reverse) {
  if (!reverse) {
    std::memcpy(dst, src, static_cast<size_t>(n) * es);
    return;
  }
  for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * es, src + (n - 1 - j) * es, es);
}

template <class T>
void mask_triangles(const Shape& s, const TrilTriuAttrs& a, const T* x, T* out) {
  const int64_t H = s.d[s.rank - 2], W = s.d[s.rank - 1];
  const int64_t mats = prod(s, 0, s.rank - 2);
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < H; ++i) {
      const T* xr = x + (m * H + i) * W;
      T* orow = out + (m * H + i) * W;
      // Kept columns: j <= i + diagonal (lower) or j >= i + diagonal (upper).
      const int64_t edge = std::clamp<int64_t>(a.lower ? i + a.diagonal + 1 : i + a.diagonal, 0, W);
      const int64_t keep_b = a.lower ? 0 : edge, keep_e = a.lower ? edge : W;
      for (int64_t j = 0; j < keep_b; ++j) orow[j] = T(0);
      for (int64_t j = keep_b; j < keep_e; ++j) orow[j] = xr[j];
      for (int64_t j = keep_e; j < W; ++j) orow[j] = T(0);
    }
}

void tril_triu_impl(const char* op, const char* role, const Tensor& x, Tensor& out, const TrilTriuAttrs& a) {
  require_init(op, role, x);
  require_rule(op, shapes::tril_triu_check(x.shape()));
  // Each element is read before it is written at the same place: safe in place.
  if (&out != &x) out.resize(x.shape(), x.dtype());
  visit_all(op, role, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    mask_triangles<T>(x.shape(), a, x.data<T>(), out.data<T>());
  });
}

// flip's body, under the name of the op that asked (flip, or Fluid 1.x's reverse).
void flip_impl(const char* op, const Tensor& x, Tensor& out, const FlipAttrs& attrs) {
  require_init(op, "X", x);
  const Shape& s = x.shape();
  bool flipped[Shape::kMaxRank];
  require_rule(op, shapes::flip_axes(s, attrs, flipped));
  OutBuf buf(&out, Slot::kOut0, &out == &x);
  Tensor& o = buf.get();
  o.resize(s, x.dtype());
  const size_t es = rt::dtype_size(x.dtype());
  const char* src = x.data<char>();
  char* dst = o.data<char>();
  if (s.rank == 0 || x.numel() == 0) {
    std::memcpy(dst, src, x.nbytes());
    buf.finish();
    return;
  }
  const int last = s.rank - 1;
  const int64_t row = s.d[last], rows = x.numel() / row;
  int64_t stride[Shape::kMaxRank];  // in rows, for the dims before the last
  int64_t st = 1;
  for (int d = last - 1; d >= 0; --d) stride[d] = st, st *= s.d[d];
  int64_t idx[Shape::kMaxRank] = {};
  for (int64_t r = 0; r < rows; ++r) {
    int64_t from = 0;
    for (int d = 0; d < last; ++d) from += (flipped[d] ? s.d[d] - 1 - idx[d] : idx[d]) * stride[d];
    copy_row(src + from * row * es, dst + r * row * es, row, es, flipped[last]);
    for (int d = last - 1; d >= 0; --d) {  // next output row
      if (++idx[d] < s.d[d]) break;
      idx[d] = 0;
    }
  }
  buf.finish();
}

}  // namespace

void flip(const Tensor& x, Tensor& out, const FlipAttrs& attrs) { flip_impl("flip", x, out, attrs); }
void reverse(const Tensor& x, Tensor& out, const FlipAttrs& attrs) { flip_impl("reverse", x, out, attrs); }

void tril_triu(const Tensor& x, Tensor& out, const TrilTriuAttrs& attrs) {
  tril_triu_impl("tril_triu", "X", x, out, attrs);
}

void tril_triu_grad(const Tensor& out_grad, Tensor* x_grad, const TrilTriuAttrs& attrs) {
  if (x_grad) tril_triu_impl("tril_triu_grad", "Out@GRAD", out_grad, *x_grad, attrs);
}

}  // namespace fluidc::kernels
