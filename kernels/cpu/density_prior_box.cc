// kernels/cpu/density_prior_box.cc - density_prior_box: SSD prior boxes on a density grid per fixed size.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/vision_legacy2.h"
#include "kernels/vision_legacy2.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// The arithmetic follows Paddle's precisions step by step (float centres,
// an integer average step, double edges), so the boxes match to the bit.
template <class T>
void boxes_of(const DensityPriorBoxAttrs& a, int64_t fh, int64_t fw, int64_t ih, int64_t iw, T* out) {
  T step_x = static_cast<T>(a.step_w), step_y = static_cast<T>(a.step_h);
  if (a.step_w == 0 || a.step_h == 0) {
    step_x = static_cast<T>(iw) / static_cast<T>(fw);
    step_y = static_cast<T>(ih) / static_cast<T>(fh);
  }
  const int step_avg = static_cast<int>((step_x + step_y) * 0.5);
  const T off = static_cast<T>(a.offset);
  std::vector<float> sqrt_ratio;
  for (float r : a.fixed_ratios) sqrt_ratio.push_back(std::sqrt(r));
  const double iwd = static_cast<double>(iw), ihd = static_cast<double>(ih);
  for (int64_t h = 0; h < fh; ++h)
    for (int64_t w = 0; w < fw; ++w) {
      const T cx = (static_cast<T>(w) + off) * step_x, cy = (static_cast<T>(h) + off) * step_y;
      for (size_t s = 0; s < a.fixed_sizes.size(); ++s) {
        const float size = a.fixed_sizes[s];
        const int density = a.densities[s], shift = step_avg / density;
        for (float sr : sqrt_ratio) {
          const float bw = size * sr, bh = size / sr;
          const float dcx = static_cast<float>(cx - step_avg / 2. + shift / 2.);
          const float dcy = static_cast<float>(cy - step_avg / 2. + shift / 2.);
          for (int di = 0; di < density; ++di)
            for (int dj = 0; dj < density; ++dj) {
              const float x0 = dcx + static_cast<float>(dj * shift), y0 = dcy + static_cast<float>(di * shift);
              *out++ = static_cast<T>(std::max((x0 - bw / 2.) / iwd, 0.));
              *out++ = static_cast<T>(std::max((y0 - bh / 2.) / ihd, 0.));
              *out++ = static_cast<T>(std::min((x0 + bw / 2.) / iwd, 1.));
              *out++ = static_cast<T>(std::min((y0 + bh / 2.) / ihd, 1.));
            }
        }
      }
    }
}

}  // namespace

void density_prior_box(const Tensor& input, const Tensor& image, Tensor& boxes, Tensor& variances,
                       const DensityPriorBoxAttrs& attrs) {
  constexpr const char* kOp = "density_prior_box";
  require_init(kOp, "Input", input);
  require_init(kOp, "Image", image);
  Shape bs, vs;
  require_rule(kOp, shapes::density_prior_shape(input.shape(), image.shape(), attrs, bs, vs));
  if (&boxes == &input || &boxes == &image || &variances == &input || &variances == &image || &boxes == &variances)
    rt::fail(fmt::format("{}: Boxes and Variances must be distinct from the inputs", kOp));
  if (input.dim(2) < 1 || input.dim(3) < 1 || image.dim(2) < 1 || image.dim(3) < 1)
    rt::fail(fmt::format("{}: Input {} and Image {} need positive heights and widths", kOp, input.shape().str(),
                         image.shape().str()));
  size_t bytes = 0;
  if (!bs.checked_bytes(rt::dtype_size(input.dtype()), &bytes))
    rt::fail(fmt::format("{}: Boxes {} is too large", kOp, bs.str()));
  // The cell step becomes an int: it must be a finite value int holds.
  for (float st : {attrs.step_w, attrs.step_h, attrs.offset})
    if (!std::isfinite(st) || std::fabs(st) > 1e9f)
      rt::fail(fmt::format("{}: step_w, step_h and offset must be finite and at most 1e9, got {}", kOp, st));
  boxes.resize(bs, input.dtype());
  variances.resize(vs, input.dtype());
  visit_float(kOp, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* b = boxes.data<T>();
    boxes_of<T>(attrs, input.dim(2), input.dim(3), image.dim(2), image.dim(3), b);
    if (attrs.clip)
      for (int64_t i = 0; i < boxes.numel(); ++i) b[i] = std::min<T>(std::max<T>(b[i], T(0)), T(1));
    T* v = variances.data<T>();
    for (int64_t i = 0; i < variances.numel(); ++i) v[i] = static_cast<T>(attrs.variances[i % 4]);
  });
}

}  // namespace fluidc::kernels
