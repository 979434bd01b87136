// test/unit/kernels/roi_pool_test.cc - roi_pool and psroi_pool: bins of a linear image, rounding, empty bins, images, errors, gradients.
#include <catch2/catch.hpp>

#include <limits>

#include "kernels/roi_pool.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::RoiPoolAttrs rp(int ph, int pw, float scale = 1.0f) {
  k::RoiPoolAttrs a;
  a.pooled_height = ph;
  a.pooled_width = pw;
  a.spatial_scale = scale;
  return a;
}

k::PsroiPoolAttrs ps(int ph, int pw, int channels, float scale = 1.0f) {
  k::PsroiPoolAttrs a;
  a.pooled_height = ph;
  a.pooled_width = pw;
  a.output_channels = channels;
  a.spatial_scale = scale;
  return a;
}

// Image n, channel c, pixel (y, x) = 1000 n + 100 c + 10 y + x: a bin's
// maximum is its bottom-right pixel, its mean the mean position.
Tensor linear_image(int64_t N, int64_t C, int64_t H, int64_t W) {
  std::vector<float> v;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < W; ++x) v.push_back(static_cast<float>(1000 * n + 100 * c + 10 * y + x));
  return f32(Shape{N, C, H, W}, v);
}

std::vector<double> ints(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<double>(t.data<int64_t>()[i]));
  return v;
}

}  // namespace

TEST_CASE("roi_pool: bin maxima and Argmax, rounding, empty and reversed regions, images", "[roi_pool]") {
  Tensor x = linear_image(2, 1, 4, 4), out, argmax;
  // Region 0 (image 0): pixels 0..3 both ways, 2x2 bins of 2 pixels. Region 1
  // (image 1): wholly above-left of the image, every bin empty: 0 and -1.
  // Region 2 (image 1): reversed (x2 < x1), one pixel wide at column 2, row 1.
  // Region 3 (image 1): 2.5 rounds away from zero to pixel 3 (2 under banker's rounding).
  Tensor rois = f32(Shape{4, 4}, {0, 0, 3, 3, -3, -3, -2, -2, 2, 1, 0, 1, 2.5f, 2.5f, 2.5f, 2.5f});
  Tensor num = i32(Shape{2}, {1, 3});
  k::roi_pool(x, rois, &num, out, &argmax, rp(2, 2));
  CHECK(out.shape() == Shape{4, 1, 2, 2});
  CHECK(argmax.dtype() == DType::kInt64);
  CHECK_THAT(values(out), Catch::Matchers::Approx(std::vector<double>{11, 13, 31, 33, 0, 0, 0, 0,  //
                                                                      1012, 1012, 1012, 1012, 1033, 1033, 1033, 1033}));
  CHECK(ints(argmax) == std::vector<double>{5, 7, 13, 15, -1, -1, -1, -1, 6, 6, 6, 6, 15, 15, 15, 15});
  // spatial_scale 0.5 on (0, 0, 6, 2): pixels 0..3 by 0..1, one bin.
  Tensor half = f32(Shape{4, 4}, {0, 0, 6, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  k::roi_pool(x, half, &num, out, nullptr, rp(1, 1, 0.5f));
  CHECK(values(out)[0] == 13);
  // The same assignment from ROIs' LoD instead of RoisNum.
  k::roi_pool(x, rois, &num, out, nullptr, rp(2, 2));
  rois.mutable_lod() = {{0, 1, 4}};
  Tensor lod_out;
  k::roi_pool(x, rois, nullptr, lod_out, nullptr, rp(2, 2));
  CHECK(values(lod_out) == values(out));
  Tensor num64 = i64(Shape{2}, {1, 3});
  k::roi_pool(x, rois, &num64, lod_out, nullptr, rp(2, 2));
  CHECK(values(lod_out) == values(out));
}

TEST_CASE("roi_pool and psroi_pool: bad inputs are refused", "[roi_pool]") {
  Tensor x = linear_image(2, 4, 4, 4), out;
  Tensor rois = f32(Shape{3, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1});
  Tensor num = i32(Shape{2}, {1, 2});
  Tensor short_num = i32(Shape{2}, {1, 1});
  CHECK_THROWS_WITH(k::roi_pool(x, rois, &short_num, out, nullptr, rp(1, 1)),
                    Catch::Contains("the images claim 2 regions but ROIs has 3"));
  Tensor neg_num = i32(Shape{2}, {-1, 4});
  CHECK_THROWS_WITH(k::psroi_pool(x, rois, &neg_num, out, ps(1, 1, 4)), Catch::Contains("image 0 claims -1"));
  CHECK_THROWS_WITH(k::roi_pool(x, rois, nullptr, out, nullptr, rp(1, 1)), Catch::Contains("must carry a LoD"));
  rois.mutable_lod() = {{0, 3}};
  CHECK_THROWS_WITH(k::psroi_pool(x, rois, nullptr, out, ps(1, 1, 4)), Catch::Contains("LoD has 1 images but X has 2"));
  rois.clear_lod();
  const float inf = std::numeric_limits<float>::infinity();
  Tensor bad = f32(Shape{3, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, inf, 1});
  CHECK_THROWS_WITH(k::roi_pool(x, bad, &num, out, nullptr, rp(1, 1)), Catch::Contains("row 2 holds a non-finite"));
  CHECK_THROWS_WITH(k::psroi_pool(x, bad, &num, out, ps(1, 1, 4)), Catch::Contains("row 2 holds a non-finite"));
  CHECK_THROWS_WITH(k::roi_pool(x, rois, &num, out, nullptr, rp(0, 1)), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(k::roi_pool(x, rois, &num, out, nullptr, rp(1, 1, 0.0f)), Catch::Contains("spatial_scale"));
  CHECK_THROWS_WITH(k::psroi_pool(x, rois, &num, out, ps(1, 2, 3)), Catch::Contains("X has 4 channels"));
  CHECK_THROWS_WITH(k::psroi_pool(x, rois, &num, out, ps(1, 1, 0)), Catch::Contains("output_channels 0"));
  Tensor rois3 = f32(Shape{1, 3}, {0, 0, 1});
  CHECK_THROWS_WITH(k::roi_pool(x, rois3, &num, out, nullptr, rp(1, 1)), Catch::Contains("ROIs must be [R, 4]"));
  Tensor rois64 = f64(Shape{3, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1});
  CHECK_THROWS_WITH(k::roi_pool(x, rois64, &num, out, nullptr, rp(1, 1)), Catch::Contains("ROIs"));
  // A corner far outside every integer type is clipped, not cast: every bin empty.
  Tensor far = f32(Shape{3, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 3e38f, 3e38f, 3e38f, 3e38f});
  k::roi_pool(x, far, &num, out, nullptr, rp(1, 1));
  CHECK(values(out)[8] == 0);
  k::psroi_pool(x, far, &num, out, ps(1, 1, 4));
  CHECK(values(out)[8] == 0);
}

TEST_CASE("psroi_pool: each bin reads its own channel's mean", "[roi_pool]") {
  // Bins 1 x 2, one output channel: bin (0, 0) reads channel 0, bin (0, 1) channel 1.
  Tensor x = linear_image(1, 2, 4, 4), out;
  // (0, 0, 1, 3): the far corners one pixel out: 0..2 by 0..4, bins 1 pixel wide.
  Tensor rois = f32(Shape{2, 4}, {0, 0, 1, 3, 5, 5, 6, 6});
  Tensor num = i32(Shape{1}, {2});
  k::psroi_pool(x, rois, &num, out, ps(1, 2, 1));
  CHECK(out.shape() == Shape{2, 1, 1, 2});
  // Column 0 of channel 0: mean of 10 y = 15; column 1 of channel 1: 100 + 15 + 1. Region 1 is outside: 0.
  CHECK_THAT(values(out), Catch::Matchers::Approx(std::vector<double>{15, 116, 0, 0}));
  // spatial_scale 0.5 halves the region: (0, 0, 2, 2) covers pixels 0 and 1 (1.5 ceiled to 2) per axis.
  Tensor big = f32(Shape{2, 4}, {0, 0, 2, 2, 0, 0, 2, 2});
  k::psroi_pool(x, big, &num, out, ps(1, 1, 2, 0.5f));
  CHECK_THAT(values(out), Catch::Matchers::Approx(std::vector<double>{5.5, 105.5, 5.5, 105.5}));
}

TEST_CASE("roi_pool_grad and psroi_pool_grad: finite differences over X", "[roi_pool][grad]") {
  std::mt19937 rng(23);
  // Partly outside, inside and tall-thin, one region for image 0 and two for image 1; distinct random
  // values, so no bin's maximum is tied.
  Tensor x = random(Shape{2, 6, 5, 6}, DType::kFP64, rng);
  Tensor rois = f64(Shape{3, 4}, {-1.5, 2.0, 3.2, 6.5, 0.4, 0.3, 4.1, 3.7, 2.2, -0.8, 3.4, 4.9});
  Tensor num = i32(Shape{2}, {1, 2});
  const k::RoiPoolAttrs a = rp(2, 3);
  CHECK_GRADCHECK_OP("roi_pool", {&x}, [&](Tensor& out) { k::roi_pool(x, rois, &num, out, nullptr, a); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) {
                       k::roi_pool_grad(x, rois, &num, nullptr, dout, g[0], a);
                     });
  const k::PsroiPoolAttrs b = ps(1, 3, 2, 0.8f);
  CHECK_GRADCHECK_OP("psroi_pool", {&x}, [&](Tensor& out) { k::psroi_pool(x, rois, &num, out, b); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) {
                       k::psroi_pool_grad(x, rois, &num, dout, g[0], b);
                     });
}
