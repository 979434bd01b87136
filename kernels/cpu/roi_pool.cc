// kernels/cpu/roi_pool.cc - roi_pool and psroi_pool and their gradients: integer-pixel bins over regions of an image batch.
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/roi_images.h"
#include "kernels/roi_pool.h"
#include "kernels/shapes/roi_pool.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// One bin's pixels: rows [h0, h1), columns [w0, w1), inside the image.
struct Bin {
  int64_t h0, h1, w0, w1;
  bool empty() const { return h1 <= h0 || w1 <= w0; }
};

/// v (already floored or ceiled) as a pixel index clipped to [0, size]. On
/// v itself, before any cast: a corrupt region's coordinates may be far
/// outside every integer type.
template <class T>
int64_t clip(T v, int64_t size) {
  if (!(v > T(0))) return 0;
  if (v >= static_cast<T>(size)) return size;
  return static_cast<int64_t>(v);
}

template <class T>
void require_finite(const char* op, const T* box, int64_t r) {
  for (int k = 0; k < 4; ++k)
    if (!std::isfinite(box[k])) rt::fail(fmt::format("{}: ROIs row {} holds a non-finite value", op, r));
}

/// Paddle's corner rounding for roi_pool: round(v * scale) half away from
/// zero, as an integer. Kept within +-2^30 so the region's size stays an
/// exact integer; any such corner is already far outside the image.
template <class T>
T pixel(T v, float scale) {
  const T r = std::round(v * static_cast<T>(scale));
  constexpr T lim = T(1 << 30);
  return r < -lim ? -lim : r > lim ? lim : r;
}

/// roi_pool's bins of one region, row-major.
template <class T>
void roi_pool_bins(const char* op, const T* box, int64_t r, const RoiPoolAttrs& a, int64_t H, int64_t W,
                   std::vector<Bin>& bins) {
  require_finite(op, box, r);
  const T x0 = pixel(box[0], a.spatial_scale), y0 = pixel(box[1], a.spatial_scale);
  const T x1 = pixel(box[2], a.spatial_scale), y1 = pixel(box[3], a.spatial_scale);
  // Both edge pixels count; a reversed region is one pixel (Paddle's "malformed ROIs").
  const T h = std::max(y1 - y0 + T(1), T(1)), w = std::max(x1 - x0 + T(1), T(1));
  // Paddle divides in float whatever the dtype; so do we, so bins' edges agree with it.
  const float bin_h = static_cast<float>(h) / static_cast<float>(a.pooled_height);
  const float bin_w = static_cast<float>(w) / static_cast<float>(a.pooled_width);
  bins.clear();
  for (int ph = 0; ph < a.pooled_height; ++ph)
    for (int pw = 0; pw < a.pooled_width; ++pw) {
      Bin b;
      b.h0 = clip(static_cast<T>(std::floor(static_cast<float>(ph) * bin_h)) + y0, H);
      b.h1 = clip(static_cast<T>(std::ceil(static_cast<float>(ph + 1) * bin_h)) + y0, H);
      b.w0 = clip(static_cast<T>(std::floor(static_cast<float>(pw) * bin_w)) + x0, W);
      b.w1 = clip(static_cast<T>(std::ceil(static_cast<float>(pw + 1) * bin_w)) + x0, W);
      bins.push_back(b);
    }
}

/// The first largest pixel of a bin (offset y * W + x), -1 when it is empty.
template <class T>
int64_t bin_argmax(const T* img, const Bin& b, int64_t W) {
  if (b.empty()) return -1;
  // Paddle starts from the lowest finite value and takes strictly larger
  // ones: a bin of NaN or -inf only keeps that start (argmax -1, Out -max).
  T best = std::numeric_limits<T>::lowest();
  int64_t at = -1;
  for (int64_t y = b.h0; y < b.h1; ++y)
    for (int64_t x = b.w0; x < b.w1; ++x)
      if (img[y * W + x] > best) best = img[y * W + x], at = y * W + x;
  return at;
}

/// psroi_pool's bins of one region, row-major.
template <class T>
void psroi_pool_bins(const char* op, const T* box, int64_t r, const PsroiPoolAttrs& a, int64_t H, int64_t W,
                     std::vector<Bin>& bins) {
  require_finite(op, box, r);
  const T s = static_cast<T>(a.spatial_scale);
  // Rounded to pixels first, the far corners one pixel out, then scaled (Paddle's order).
  const T x0 = std::round(box[0]) * s, y0 = std::round(box[1]) * s;
  const T x1 = (std::round(box[2]) + T(1)) * s, y1 = (std::round(box[3]) + T(1)) * s;
  const T bin_h = std::max(y1 - y0, T(0.1)) / static_cast<T>(a.pooled_height);
  const T bin_w = std::max(x1 - x0, T(0.1)) / static_cast<T>(a.pooled_width);
  bins.clear();
  for (int ph = 0; ph < a.pooled_height; ++ph)
    for (int pw = 0; pw < a.pooled_width; ++pw) {
      Bin b;
      b.h0 = clip(std::floor(static_cast<T>(ph) * bin_h + y0), H);
      b.h1 = clip(std::ceil(static_cast<T>(ph + 1) * bin_h + y0), H);
      b.w0 = clip(std::floor(static_cast<T>(pw) * bin_w + x0), W);
      b.w1 = clip(std::ceil(static_cast<T>(pw + 1) * bin_w + x0), W);
      bins.push_back(b);
    }
}

/// Checks the inputs common to both ops: initialised, one float dtype, the image of each region.
void check(const char* op, const Tensor& x, const Tensor& rois, const Tensor* rois_num, const std::string& rule,
           std::vector<int64_t>& image) {
  require_rule(op, rule);
  roi_images(op, rois, rois_num, x.dim(0), image);
}

void require_inputs(const char* op, const Tensor& x, const Tensor& rois, const Tensor* rois_num) {
  require_init(op, "X", x);
  require_init(op, "ROIs", rois);
  require_same_dtype(op, "X", x, "ROIs", rois);
  if (rois_num) require_init(op, "RoisNum", *rois_num);
}

void require_out_grad(const char* op, const Tensor& x, const Tensor& out_grad, const Shape& os) {
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD is {} but Out is {}", op, out_grad.shape().str(), os.str()));
}

/// What both gradients share: the checks, X@GRAD zeroed at X's shape, then
/// `scatter(tag, R, C, H, W, bins per region, rd, gd, dx, image)` for X's
/// float type. `rule(os)` is the op's shape rule (its reason, empty when OK).
template <class Rule, class Scatter>
void region_pool_grad(const char* op, const Tensor& x, const Tensor& rois, const Tensor* rois_num,
                      const Tensor& out_grad, Tensor* x_grad, Rule rule, Scatter scatter) {
  if (!x_grad) return;
  require_inputs(op, x, rois, rois_num);
  Shape os;
  std::vector<int64_t> image;
  check(op, x, rois, rois_num, rule(os), image);
  require_out_grad(op, x, out_grad, os);
  OutBuf xb(x_grad, Slot::kOut0, aliases(x_grad, {&x, &rois, rois_num, &out_grad}));
  const int64_t R = os.d[0], C = os.d[1], H = x.dim(2), W = x.dim(3), nb = os.d[2] * os.d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    xb.get().resize(x.shape(), x.dtype());
    xb.get().zero();
    scatter(tag, R, C, H, W, nb, rois.data<T>(), out_grad.data<T>(), xb.get().data<T>(), image);
  });
  xb.finish();
}

}  // namespace

void roi_pool(const Tensor& x, const Tensor& rois, const Tensor* rois_num, Tensor& out, Tensor* argmax,
              const RoiPoolAttrs& a) {
  constexpr const char* op = "roi_pool";
  require_inputs(op, x, rois, rois_num);
  Shape os;
  std::vector<int64_t> image;
  check(op, x, rois, rois_num, shapes::roi_pool_shape(x.shape(), rois.shape(), rois_num ? &rois_num->shape() : nullptr, a, os),
        image);
  OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x, &rois, rois_num}));
  OutBuf ab(argmax, Slot::kOut1, aliases(argmax, {&x, &rois, rois_num, &out}));
  const int64_t R = os.d[0], C = os.d[1], H = x.dim(2), W = x.dim(3), nb = os.d[2] * os.d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    if (argmax) ab.get().resize(os, DType::kInt64);
    const T* xd = x.data<T>();
    const T* rd = rois.data<T>();
    T* od = ob.get().data<T>();
    int64_t* md = argmax ? ab.get().data<int64_t>() : nullptr;
    // Bins are made here, not in the threads (rt::fail must not throw on a worker).
    std::vector<std::vector<Bin>> bins(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) roi_pool_bins(op, rd + r * 4, r, a, H, W, bins[static_cast<size_t>(r)]);
    parallel_items(R, C * nb * 4, [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r)
        for (int64_t c = 0; c < C; ++c) {
          const T* img = xd + (image[static_cast<size_t>(r)] * C + c) * H * W;
          for (int64_t k = 0; k < nb; ++k) {
            const Bin& b = bins[static_cast<size_t>(r)][static_cast<size_t>(k)];
            const int64_t at = bin_argmax(img, b, W);
            const int64_t o = (r * C + c) * nb + k;
            od[o] = at >= 0 ? img[at] : b.empty() ? T(0) : std::numeric_limits<T>::lowest();
            if (md) md[o] = at;
          }
        }
    });
  });
  ob.finish();
  ab.finish();
}

void roi_pool_grad(const Tensor& x, const Tensor& rois, const Tensor* rois_num, const Tensor* /*argmax*/,
                   const Tensor& out_grad, Tensor* x_grad, const RoiPoolAttrs& a) {
  constexpr const char* op = "roi_pool_grad";
  region_pool_grad(
      op, x, rois, rois_num, out_grad, x_grad,
      [&](Shape& os) {
        return shapes::roi_pool_shape(x.shape(), rois.shape(), rois_num ? &rois_num->shape() : nullptr, a, os);
      },
      [&](auto tag, int64_t R, int64_t C, int64_t H, int64_t W, int64_t nb, const auto* rd, const auto* gd, auto* dx,
          const std::vector<int64_t>& image) {
        using T = decltype(tag);
        const T* xd = x.data<T>();
        std::vector<Bin> bins;
        // Serial: regions of one image add into the same pixels.
        for (int64_t r = 0; r < R; ++r) {
          roi_pool_bins(op, rd + r * 4, r, a, H, W, bins);
          for (int64_t c = 0; c < C; ++c) {
            const int64_t plane = (image[static_cast<size_t>(r)] * C + c) * H * W;
            for (int64_t k = 0; k < nb; ++k) {
              const int64_t at = bin_argmax(xd + plane, bins[static_cast<size_t>(k)], W);
              if (at >= 0) dx[plane + at] += gd[(r * C + c) * nb + k];
            }
          }
        }
      });
}

void psroi_pool(const Tensor& x, const Tensor& rois, const Tensor* rois_num, Tensor& out, const PsroiPoolAttrs& a) {
  constexpr const char* op = "psroi_pool";
  require_inputs(op, x, rois, rois_num);
  Shape os;
  std::vector<int64_t> image;
  check(op, x, rois, rois_num,
        shapes::psroi_pool_shape(x.shape(), rois.shape(), rois_num ? &rois_num->shape() : nullptr, a, os), image);
  OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x, &rois, rois_num}));
  const int64_t R = os.d[0], C = os.d[1], H = x.dim(2), W = x.dim(3), nb = os.d[2] * os.d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    const T* xd = x.data<T>();
    const T* rd = rois.data<T>();
    T* od = ob.get().data<T>();
    std::vector<std::vector<Bin>> bins(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) psroi_pool_bins(op, rd + r * 4, r, a, H, W, bins[static_cast<size_t>(r)]);
    parallel_items(R, C * nb * 4, [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t k = 0; k < nb; ++k) {
            const Bin& b = bins[static_cast<size_t>(r)][static_cast<size_t>(k)];
            // Output channel c, bin k reads input channel c * bins + k.
            const T* img = xd + (image[static_cast<size_t>(r)] * C * nb + c * nb + k) * H * W;
            T sum = T(0);
            for (int64_t y = b.h0; y < b.h1; ++y)
              for (int64_t xx = b.w0; xx < b.w1; ++xx) sum += img[y * W + xx];
            od[(r * C + c) * nb + k] = b.empty() ? T(0) : sum / static_cast<T>((b.h1 - b.h0) * (b.w1 - b.w0));
          }
    });
  });
  ob.finish();
}

void psroi_pool_grad(const Tensor& x, const Tensor& rois, const Tensor* rois_num, const Tensor& out_grad,
                     Tensor* x_grad, const PsroiPoolAttrs& a) {
  constexpr const char* op = "psroi_pool_grad";
  region_pool_grad(
      op, x, rois, rois_num, out_grad, x_grad,
      [&](Shape& os) {
        return shapes::psroi_pool_shape(x.shape(), rois.shape(), rois_num ? &rois_num->shape() : nullptr, a, os);
      },
      [&](auto tag, int64_t R, int64_t C, int64_t H, int64_t W, int64_t nb, const auto* rd, const auto* gd, auto* dx,
          const std::vector<int64_t>& image) {
        using T = decltype(tag);
        std::vector<Bin> bins;
        for (int64_t r = 0; r < R; ++r) {
          psroi_pool_bins(op, rd + r * 4, r, a, H, W, bins);
          for (int64_t c = 0; c < C; ++c)
            for (int64_t k = 0; k < nb; ++k) {
              const Bin& b = bins[static_cast<size_t>(k)];
              if (b.empty()) continue;
              const T g = gd[(r * C + c) * nb + k] / static_cast<T>((b.h1 - b.h0) * (b.w1 - b.w0));
              T* img = dx + (image[static_cast<size_t>(r)] * C * nb + c * nb + k) * H * W;
              for (int64_t y = b.h0; y < b.h1; ++y)
                for (int64_t xx = b.w0; xx < b.w1; ++xx) img[y * W + xx] += g;
            }
        }
      });
}

}  // namespace fluidc::kernels
