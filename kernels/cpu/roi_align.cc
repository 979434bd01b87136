// kernels/cpu/roi_align.cc - roi_align and its gradient: bins of bilinear samples over regions of an image batch.
#include <cmath>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/roi_images.h"
#include "kernels/roi_align.h"
#include "kernels/shapes/roi_align.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// The most samples per bin axis an adaptive grid may take: a region
/// millions of pixels tall (a corrupt ROIs tensor) would otherwise loop for
/// hours. Real heads use 2 to a few dozen.
constexpr int kMaxGrid = 4096;

/// Checks the inputs and fills image[r], the image region r belongs to.
Shape check(const char* op, const Tensor& x, const Tensor& rois, const Tensor* rois_num, const RoiAlignAttrs& a,
            std::vector<int64_t>& image) {
  require_init(op, "X", x);
  require_init(op, "ROIs", rois);
  require_same_dtype(op, "X", x, "ROIs", rois);
  if (rois_num) require_init(op, "RoisNum", *rois_num);
  Shape os;
  require_rule(op, shapes::roi_align_shape(x.shape(), rois.shape(), rois_num ? &rois_num->shape() : nullptr, a, os));
  roi_images(op, rois, rois_num, x.dim(0), image);
  return os;
}

/// One region's bins: origin, bin size and sampling grid.
template <class T>
struct Region {
  T xmin, ymin, bin_w, bin_h;
  int grid_h, grid_w;
};

template <class T>
Region<T> region_of(const char* op, const T* box, int64_t r, const RoiAlignAttrs& a) {
  for (int k = 0; k < 4; ++k)
    if (!std::isfinite(box[k])) rt::fail(fmt::format("{}: ROIs row {} holds a non-finite value", op, r));
  const T offset = a.aligned ? T(0.5) : T(0);
  Region<T> g;
  g.xmin = box[0] * a.spatial_scale - offset;
  g.ymin = box[1] * a.spatial_scale - offset;
  T w = box[2] * a.spatial_scale - offset - g.xmin;
  T h = box[3] * a.spatial_scale - offset - g.ymin;
  if (!a.aligned) {
    w = std::max(w, T(1));
    h = std::max(h, T(1));
  }
  g.bin_w = w / static_cast<T>(a.pooled_width);
  g.bin_h = h / static_cast<T>(a.pooled_height);
  auto grid = [&](T bin) {
    if (a.sampling_ratio > 0) return a.sampling_ratio;
    const T n = std::ceil(bin);  // bin = size / pooled: Paddle's ceil(size / pooled)
    if (n > static_cast<T>(kMaxGrid))
      rt::fail(fmt::format("{}: ROIs row {} needs a {}-sample grid per bin (more than {}); is it in pixels?", op, r,
                           static_cast<double>(n), kMaxGrid));
    return n > T(0) ? static_cast<int>(n) : 0;  // an aligned region of size <= 0 has no samples
  };
  g.grid_h = grid(g.bin_h);
  g.grid_w = grid(g.bin_w);
  return g;
}

/// A bilinear sample: four pixel offsets (x low/y low, x high/y low,
/// x low/y high, x high/y high) and weights; none when more than a pixel
/// outside the image.
template <class T>
struct Sample {
  int64_t at[4];
  T w[4];
  bool ok;
};

template <class T>
Sample<T> sample_at(T y, T x, int64_t H, int64_t W) {
  Sample<T> s{};
  s.ok = !(y < T(-1) || y > static_cast<T>(H) || x < T(-1) || x > static_cast<T>(W));
  if (!s.ok) return s;
  // Within a pixel outside: clamp onto the edge.
  auto axis = [](T& v, int64_t size, int64_t& lo, int64_t& hi) {
    if (v <= T(0)) v = T(0);
    lo = static_cast<int64_t>(v);
    if (lo >= size - 1) {
      lo = hi = size - 1;
      v = static_cast<T>(lo);
    } else {
      hi = lo + 1;
    }
    return static_cast<T>(hi) - v;  // the low side's weight
  };
  int64_t xl, xh, yl, yh;
  const T rx = axis(x, W, xl, xh), ry = axis(y, H, yl, yh);
  s.at[0] = yl * W + xl, s.at[1] = yl * W + xh, s.at[2] = yh * W + xl, s.at[3] = yh * W + xh;
  s.w[0] = rx * ry, s.w[1] = (T(1) - rx) * ry, s.w[2] = rx * (T(1) - ry), s.w[3] = (T(1) - rx) * (T(1) - ry);
  return s;
}

/// Every sample of region g, bin by bin (row-major bins, then the grid
/// row-major within a bin), into `out`.
template <class T>
void samples_of(const Region<T>& g, const RoiAlignAttrs& a, int64_t H, int64_t W, std::vector<Sample<T>>& out) {
  out.clear();
  for (int ph = 0; ph < a.pooled_height; ++ph)
    for (int pw = 0; pw < a.pooled_width; ++pw)
      for (int iy = 0; iy < g.grid_h; ++iy) {
        const T y = g.ymin + g.bin_h * (static_cast<T>(ph) + static_cast<T>(iy + .5f) / static_cast<T>(g.grid_h));
        for (int ix = 0; ix < g.grid_w; ++ix) {
          const T x = g.xmin + g.bin_w * (static_cast<T>(pw) + static_cast<T>(ix + .5f) / static_cast<T>(g.grid_w));
          out.push_back(sample_at(y, x, H, W));
        }
      }
}

}  // namespace

void roi_align(const Tensor& x, const Tensor& rois, const Tensor* rois_num, Tensor& out, const RoiAlignAttrs& a) {
  constexpr const char* op = "roi_align";
  std::vector<int64_t> image;
  const Shape os = check(op, x, rois, rois_num, a, image);
  OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x, &rois, rois_num}));
  const int64_t R = os.d[0], C = os.d[1], H = x.dim(2), W = x.dim(3), bins = os.d[2] * os.d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    const T* xd = x.data<T>();
    const T* rd = rois.data<T>();
    T* od = ob.get().data<T>();
    // Regions are checked here, not in the threads (rt::fail must not throw on a worker).
    std::vector<Region<T>> regions;
    regions.reserve(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) regions.push_back(region_of(op, rd + r * 4, r, a));
    parallel_items(R, C * bins * 16, [&](int64_t rb, int64_t re) {
      std::vector<Sample<T>> samples;
      for (int64_t r = rb; r < re; ++r) {
        const Region<T>& g = regions[static_cast<size_t>(r)];
        samples_of(g, a, H, W, samples);
        const int per_bin = g.grid_h * g.grid_w;
        const T scale = per_bin > 0 ? static_cast<T>(1.0 / per_bin) : T(0);
        for (int64_t c = 0; c < C; ++c) {
          const T* img = xd + (image[static_cast<size_t>(r)] * C + c) * H * W;
          T* o = od + (r * C + c) * bins;
          const Sample<T>* s = samples.data();
          for (int64_t b = 0; b < bins; ++b) {
            T sum = T(0);
            for (int k = 0; k < per_bin; ++k, ++s)
              if (s->ok)
                sum += s->w[0] * img[s->at[0]] + s->w[1] * img[s->at[1]] + s->w[2] * img[s->at[2]] +
                       s->w[3] * img[s->at[3]];
            o[b] = sum * scale;
          }
        }
      }
    });
  });
  ob.finish();
}

void roi_align_grad(const Tensor& x, const Tensor& rois, const Tensor* rois_num, const Tensor& out_grad,
                    Tensor* x_grad, const RoiAlignAttrs& a) {
  constexpr const char* op = "roi_align_grad";
  if (!x_grad) return;
  std::vector<int64_t> image;
  const Shape os = check(op, x, rois, rois_num, a, image);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD is {} but Out is {}", op, out_grad.shape().str(), os.str()));
  OutBuf xb(x_grad, Slot::kOut0, aliases(x_grad, {&x, &rois, rois_num, &out_grad}));
  const int64_t R = os.d[0], C = os.d[1], H = x.dim(2), W = x.dim(3), bins = os.d[2] * os.d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    xb.get().resize(x.shape(), x.dtype());
    xb.get().zero();
    const T* rd = rois.data<T>();
    const T* gd = out_grad.data<T>();
    T* dx = xb.get().data<T>();
    std::vector<Sample<T>> samples;
    // Serial: regions of one image add into the same pixels.
    for (int64_t r = 0; r < R; ++r) {
      const Region<T> g = region_of(op, rd + r * 4, r, a);
      samples_of(g, a, H, W, samples);
      const int per_bin = g.grid_h * g.grid_w;
      const T count = static_cast<T>(per_bin);
      for (int64_t c = 0; c < C; ++c) {
        T* img = dx + (image[static_cast<size_t>(r)] * C + c) * H * W;
        const Sample<T>* s = samples.data();
        for (int64_t b = 0; b < bins; ++b) {
          const T go = gd[(r * C + c) * bins + b];
          for (int k = 0; k < per_bin; ++k, ++s)
            if (s->ok)
              for (int q = 0; q < 4; ++q) img[s->at[q]] += go * s->w[q] / count;
        }
      }
    }
  });
  xb.finish();
}

}  // namespace fluidc::kernels
