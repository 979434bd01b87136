// kernels/cpu/spp.cc - spp and its gradient, one pool2d (and pool2d_grad) per pyramid level.
#include <algorithm>

#include "kernels/cpu/kernel_util.h"
#include "kernels/pool.h"
#include "kernels/shapes/spp.h"
#include "kernels/spp.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// Level p's pool2d: windows and strides ceil(size / 2^p), Paddle's padding,
/// exclusive averages; with H, W >= 2^p it gives exactly 2^p x 2^p bins.
PoolAttrs level_attrs(const Tensor& x, int p, const SppAttrs& a) {
  const int64_t b = int64_t{1} << p, H = x.dim(2), W = x.dim(3);
  const int64_t kh = (H + b - 1) / b, kw = (W + b - 1) / b;
  PoolAttrs pa;
  pa.pooling_type = a.pooling_type;
  pa.ksize = {static_cast<int>(kh), static_cast<int>(kw)};
  pa.strides = pa.ksize;
  pa.paddings = {static_cast<int>((kh * b - H + 1) / 2), static_cast<int>((kw * b - W + 1) / 2)};
  pa.exclusive = true;
  return pa;
}

Shape check(const char* op, const Tensor& x, const SppAttrs& a) {
  require_init(op, "X", x);
  Shape os;
  require_rule(op, shapes::spp_shape(x.shape(), a, os));
  return os;
}

/// Level p's [N, C, b, b] into its columns [offset, offset + per_image) of flat [N, total].
template <class T>
void put_level(const T* level, T* flat, int64_t N, int64_t per_image, int64_t offset, int64_t total) {
  for (int64_t n = 0; n < N; ++n)
    std::copy(level + n * per_image, level + (n + 1) * per_image, flat + n * total + offset);
}

/// The reverse: level p's columns of flat into [N, C, b, b].
template <class T>
void take_level(const T* flat, T* level, int64_t N, int64_t per_image, int64_t offset, int64_t total) {
  for (int64_t n = 0; n < N; ++n)
    std::copy(flat + n * total + offset, flat + n * total + offset + per_image, level + n * per_image);
}

}  // namespace

void spp(const Tensor& x, Tensor& out, const SppAttrs& a) {
  constexpr const char* op = "spp";
  const Shape os = check(op, x, a);
  OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x}));
  const int64_t N = x.dim(0), C = x.dim(1);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    Tensor level;  // a level's pool2d output (pool2d's own storage rule: it only grows)
    int64_t offset = 0;
    for (int p = 0; p < a.pyramid_height; ++p) {
      pool2d(x, level, level_attrs(x, p, a));
      const int64_t b = int64_t{1} << p, per_image = C * b * b;
      // Always b x b when H, W >= 2^p (the shape rule's bound); checked, as the copy trusts it.
      if (level.shape() != Shape{N, C, b, b})
        rt::fail(fmt::format("{}: level {} pooled to {}, not {} x {} bins", op, p, level.shape().str(), b, b));
      put_level(level.data<T>(), ob.get().data<T>(), N, per_image, offset, os.d[1]);
      offset += per_image;
    }
  });
  ob.finish();
}

void spp_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SppAttrs& a) {
  constexpr const char* op = "spp_grad";
  if (!x_grad) return;
  const Shape os = check(op, x, a);
  require_init(op, "Out", out);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out", out);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (out.shape() != os || out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out {} and Out@GRAD {} must be {}", op, out.shape().str(), out_grad.shape().str(),
                         os.str()));
  OutBuf xb(x_grad, Slot::kOut0, aliases(x_grad, {&x, &out, &out_grad}));
  const int64_t N = x.dim(0), C = x.dim(1);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    xb.get().resize(x.shape(), x.dtype());
    xb.get().zero();
    Tensor level_out, level_grad, level_dx;
    int64_t offset = 0;
    for (int p = 0; p < a.pyramid_height; ++p) {
      const int64_t b = int64_t{1} << p, per_image = C * b * b;
      const Shape ls{N, C, b, b};
      level_out.resize(ls, x.dtype());
      level_grad.resize(ls, x.dtype());
      take_level(out.data<T>(), level_out.data<T>(), N, per_image, offset, os.d[1]);
      take_level(out_grad.data<T>(), level_grad.data<T>(), N, per_image, offset, os.d[1]);
      pool2d_grad(x, level_out, level_grad, &level_dx, level_attrs(x, p, a));
      T* dx = xb.get().data<T>();
      const T* ld = level_dx.data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) dx[i] += ld[i];
      offset += per_image;
    }
  });
  xb.finish();
}

}  // namespace fluidc::kernels
