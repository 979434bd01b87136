// test/unit/kernels/roi_align_test.cc - roi_align: samples of a linear image, alignment, grids, images, errors, gradients.
#include <catch2/catch.hpp>

#include <limits>

#include "kernels/roi_align.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::RoiAlignAttrs ra(int ph, int pw, int sampling, bool aligned, float scale = 1.0f) {
  k::RoiAlignAttrs a;
  a.pooled_height = ph;
  a.pooled_width = pw;
  a.sampling_ratio = sampling;
  a.aligned = aligned;
  a.spatial_scale = scale;
  return a;
}

// Image n, channel c, pixel (y, x) = 100 n + 10 y + x + 1000 c: bilinear
// samples inside it are exact, so bin means are the mean sample position.
Tensor linear_image(int64_t N, int64_t C, int64_t H, int64_t W) {
  std::vector<float> v;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < W; ++x) v.push_back(static_cast<float>(100 * n + 10 * y + x + 1000 * c));
  return f32(Shape{N, C, H, W}, v);
}

}  // namespace

TEST_CASE("roi_align: bin means of a linear image, aligned and not, fixed and adaptive grids", "[roi_align]") {
  Tensor x = linear_image(1, 1, 4, 4), out;
  Tensor rois = f32(Shape{1, 4}, {0, 0, 3, 3});
  Tensor num = i32(Shape{1}, {1});
  // Unaligned: samples at 0.75 and 2.25 per axis, mean 1.5: 10 * 1.5 + 1.5.
  k::roi_align(x, rois, &num, out, ra(1, 1, 2, false));
  CHECK(out.shape() == Shape{1, 1, 1, 1});
  CHECK(values(out)[0] == Approx(16.5));
  // Aligned: the region moves half a pixel up-left: samples 0.25 and 1.75.
  k::roi_align(x, rois, &num, out, ra(1, 1, 2, true));
  CHECK(values(out)[0] == Approx(11));
  // Adaptive (sampling_ratio <= 0): ceil(3 / 1) = 3 samples, 0.5 1.5 2.5.
  k::roi_align(x, rois, &num, out, ra(1, 1, 0, false));
  CHECK(values(out)[0] == Approx(16.5));
  // 2x2 bins with spatial_scale 0.5 on box (0, 0, 6, 6): bins of 1.5 pixels.
  Tensor big = f32(Shape{1, 4}, {0, 0, 6, 6});
  k::roi_align(x, big, &num, out, ra(2, 2, 1, false, 0.5f));
  CHECK_THAT(values(out), Catch::Matchers::Approx(std::vector<double>{8.25, 9.75, 23.25, 24.75}));
}

TEST_CASE("roi_align: regions outside the image, several images, LoD, bad inputs", "[roi_align]") {
  Tensor x = linear_image(2, 2, 3, 3), out;
  // Region 0 (image 0): far outside, every sample reads 0. Region 1
  // (image 1): starts a pixel above-left, those samples clamp to row/column 0.
  // Region 2 (image 1): inside.
  Tensor rois = f32(Shape{3, 4}, {10, 10, 12, 12, -1, -1, 1, 1, 0, 0, 2, 2});
  Tensor num = i64(Shape{2}, {1, 2});
  k::roi_align(x, rois, &num, out, ra(1, 1, 2, false));
  CHECK(out.shape() == Shape{3, 2, 1, 1});
  // Region 1 samples -0.5 -> 0 and 0.5 per axis: mean 0.25; image 1 adds 100.
  // Region 2 samples 0.5 and 1.5: mean 1.
  CHECK_THAT(values(out), Catch::Matchers::Approx(std::vector<double>{0, 0, 102.75, 1102.75, 111, 1111}));
  // The same assignment from ROIs' LoD instead of RoisNum.
  rois.mutable_lod() = {{0, 1, 3}};
  Tensor lod_out;
  k::roi_align(x, rois, nullptr, lod_out, ra(1, 1, 2, false));
  CHECK(values(lod_out) == values(out));
  rois.clear_lod();
  CHECK_THROWS_WITH(k::roi_align(x, rois, nullptr, out, ra(1, 1, 2, false)), Catch::Contains("must carry a LoD"));
  Tensor short_num = i32(Shape{2}, {1, 1});
  CHECK_THROWS_WITH(k::roi_align(x, rois, &short_num, out, ra(1, 1, 2, false)),
                    Catch::Contains("the images claim 2 regions but ROIs has 3"));
  Tensor over_num = i32(Shape{2}, {2, 5});
  CHECK_THROWS_WITH(k::roi_align(x, rois, &over_num, out, ra(1, 1, 2, false)), Catch::Contains("image 1 claims 5"));
  Tensor one_num = i32(Shape{1}, {3});
  CHECK_THROWS_WITH(k::roi_align(x, rois, &one_num, out, ra(1, 1, 2, false)), Catch::Contains("RoisNum must be [N]"));
  Tensor float_num = f32(Shape{2}, {1, 2});
  CHECK_THROWS_WITH(k::roi_align(x, rois, &float_num, out, ra(1, 1, 2, false)), Catch::Contains("RoisNum"));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor bad = f32(Shape{3, 4}, {0, 0, 1, 1, 0, nan, 1, 1, 0, 0, 1, 1});
  CHECK_THROWS_WITH(k::roi_align(x, bad, &num, out, ra(1, 1, 2, false)), Catch::Contains("row 1 holds a non-finite"));
  Tensor huge = f32(Shape{3, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1e9f, 1});
  CHECK_THROWS_WITH(k::roi_align(x, huge, &num, out, ra(1, 1, 0, false)), Catch::Contains("ROIs row 2 needs a"));
  CHECK_THROWS_WITH(k::roi_align(x, rois, &num, out, ra(0, 1, 2, false)), Catch::Contains("must be positive"));
  Tensor rois5 = f32(Shape{1, 5}, {0, 0, 0, 1, 1});
  CHECK_THROWS_WITH(k::roi_align(x, rois5, &num, out, ra(1, 1, 2, false)), Catch::Contains("ROIs must be [R, 4]"));
  // An aligned region of zero size has no samples (adaptive grid): 0, not Paddle's 0/0.
  Tensor dot = f32(Shape{3, 4}, {1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1});
  k::roi_align(x, dot, &num, out, ra(1, 1, 0, true));
  CHECK(values(out)[0] == 0);
}

TEST_CASE("roi_align_grad: finite differences over X, every alignment and grid form", "[roi_align][grad]") {
  std::mt19937 rng(17);
  for (bool aligned : {false, true})
    for (int sampling : {2, -1}) {
      Tensor x = random(Shape{2, 2, 5, 6}, DType::kFP64, rng);
      // Partly outside the image, inside, and tall-thin; 1 region for image 0, 2 for image 1.
      Tensor rois = f64(Shape{3, 4}, {-1.5, 2.0, 3.2, 6.5, 0.4, 0.3, 4.1, 3.7, 2.2, -0.8, 3.4, 4.9});
      Tensor num = i32(Shape{2}, {1, 2});
      const k::RoiAlignAttrs a = ra(2, 3, sampling, aligned, 1.0f);
      INFO("aligned " << aligned << " sampling_ratio " << sampling);
      CHECK_GRADCHECK_OP("roi_align", {&x}, [&](Tensor& out) { k::roi_align(x, rois, &num, out, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           k::roi_align_grad(x, rois, &num, dout, g[0], a);
                         });
    }
}
